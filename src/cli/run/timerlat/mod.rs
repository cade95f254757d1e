//! `rtlat run --timerlat`: the kernel's timerlat tracer on the measured CPUs, its figures
//! beside each thread's own. Where the kernel lets a user thread be the tracer's workload
//! (`timerlat_fd`, Linux 6.5+), the measuring threads are it: every cycle has the timer
//! IRQ's latency, the thread's latency in the kernel and its return to user space, for the
//! very wake-ups rtlat measures. Before that, the tracer's own threads run beside rtlat's on
//! the same CPUs and period, and the output says so.
//!
//! The trace is read as it runs from `trace_pipe` by a thread of the main thread's CPUs (the
//! ring buffer would fill in seconds), each sample recorded into its CPU's histograms; every
//! tracefs change is printed before the run and put back at its end, however it ends.

mod collect;
mod output;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::noise::timerlat::{
    TimerlatLine, TimerlatPath, TimerlatSettings, TimerlatTrace, Workload, probe,
};

pub use collect::{Collector, CpuFigures, Spike};
pub use output::{json, text};

use crate::cli::cyclic::options::Plan;

/// The shortest and longest period the tracer takes (`osnoise/timerlat_period_us`), µs.
pub const PERIOD_RANGE_US: (u64, u64) = (100, 1_000_000);

/// How often the trace is read.
const READ_EVERY: Duration = Duration::from_millis(10);

/// `--timerlat` checked, before anything changes.
pub struct TimerlatPlan {
    cpus: CpuSet,
    period_us: u64,
    tracefs: PathBuf,
    workload: Workload,
    /// Why not the user workload.
    why: Option<String>,
}

/// What `--timerlat` asks of the plan: one thread per CPU (the tracer has one timer per
/// CPU), one interval (its period is the system's), and a kernel with the tracer (which
/// decides the workload). Changes nothing.
pub fn check(plan: &Plan) -> Result<TimerlatPlan, String> {
    let mut cpus = CpuSet::new();
    for t in &plan.threads {
        if cpus.contains(t.cpu) {
            return Err(format!(
                "--timerlat: threads share CPU {}: the tracer has one timer per CPU; give each thread its own CPU (-a with as many CPUs as -t threads)",
                t.cpu
            ));
        }
        cpus.insert(t.cpu)
            .map_err(|e| format!("--timerlat: CPU {}: {e}", t.cpu))?;
    }
    let intervals: Vec<u64> = plan.threads.iter().map(|t| t.interval_us).collect();
    let period = intervals.first().copied().unwrap_or(1000);
    if intervals.iter().any(|&i| i != period) {
        return Err(
            "--timerlat: the threads' intervals differ (-d): the tracer's period (osnoise/timerlat_period_us) is one for the system; use -d 0".into(),
        );
    }
    let (low, high) = PERIOD_RANGE_US;
    if !(low..=high).contains(&period) {
        return Err(format!(
            "--timerlat: an interval of {period} µs is outside the tracer's period range, {low} to {high} µs (-i)"
        ));
    }
    plan_on(cpus, period, None)
}

/// The tracer on `cpus` at `period_us` (in its range), as the kernel has it; with
/// `kernel_only`, the tracer's own threads whatever the kernel offers, for that reason (a
/// front whose threads cannot be the tracer's workload). Changes nothing.
pub fn plan_on(
    cpus: CpuSet,
    period_us: u64,
    kernel_only: Option<&str>,
) -> Result<TimerlatPlan, String> {
    let first = cpus.iter().next().unwrap_or(0);
    match probe(Path::new("/"), first) {
        TimerlatPath::Available(tracefs, workload, why) => Ok(TimerlatPlan {
            cpus,
            period_us,
            tracefs,
            workload: if kernel_only.is_some() {
                Workload::Kernel
            } else {
                workload
            },
            why: kernel_only.map(String::from).or(why),
        }),
        TimerlatPath::Absent(why) => Err(format!("--timerlat: {why}")),
    }
}

/// The tracer's figures for the run.
pub struct TimerlatFigures {
    /// Who the tracer woke.
    pub workload: Workload,
    /// Its period, µs.
    pub period_us: u64,
    /// Per CPU traced.
    pub cpus: BTreeMap<usize, CpuFigures>,
}

/// What also takes each line of the trace as it is read.
pub type LineSink = Box<dyn FnMut(&TimerlatLine) + Send>;

/// The tracer running, and the thread reading it.
pub struct TimerlatRun {
    trace: TimerlatTrace,
    workload: Workload,
    period_us: u64,
    stop: Arc<AtomicBool>,
    reader: JoinHandle<Result<BTreeMap<usize, CpuFigures>, String>>,
}

impl TimerlatRun {
    /// Starts the tracer as [`check`] planned it and the thread that reads it; prints which
    /// workload it runs (and why, when not rtlat's threads) and each change made. Refused in
    /// one line where another trace runs.
    /// With `explain`, the osnoise family's noise events are traced too and the worst
    /// wake-ups of each CPU kept in parts ([`Collector`]).
    pub fn start(plan: TimerlatPlan, explain: bool) -> Result<TimerlatRun, String> {
        TimerlatRun::start_with(plan, explain, None)
    }

    /// [`TimerlatRun::start`], each line read also given to `sink` as it is read (on the
    /// reading thread: `rtlat monitor`'s metrics).
    pub fn start_with(
        plan: TimerlatPlan,
        explain: bool,
        mut sink: Option<LineSink>,
    ) -> Result<TimerlatRun, String> {
        let TimerlatPlan {
            cpus,
            period_us,
            tracefs,
            workload,
            why,
        } = plan;
        let settings = TimerlatSettings {
            cpus,
            period_us,
            workload,
            noise_events: explain,
        };
        let trace =
            TimerlatTrace::start(&tracefs, &settings).map_err(|e| format!("--timerlat: {e}"))?;
        match (&workload, why) {
            (Workload::User, _) => errln!(
                "# timerlat: the tracer wakes rtlat's threads (osnoise/per_cpu/cpuN/timerlat_fd), period {period_us} us"
            ),
            (Workload::Kernel, why) => errln!(
                "# timerlat: {}; its figures are the same CPU's and period's, not rtlat's wake-ups",
                why.unwrap_or_else(|| "the tracer's own threads are woken".into())
            ),
        }
        for change in trace.changes() {
            errln!("# {change}");
        }
        let mut pipe = trace.pipe().map_err(|e| format!("--timerlat: {e}"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let reader = std::thread::Builder::new()
            .name("rtlat-timerlat".into())
            .spawn(move || {
                let mut collector = Collector::new(explain);
                loop {
                    // Read once more after the stop: what the last cycles left.
                    let last = stopped.load(Ordering::Acquire);
                    pipe.drain(|line| {
                        if let Some(sink) = sink.as_mut() {
                            sink(&line);
                        }
                        collector.line(line)
                    })
                    .map_err(|e| format!("--timerlat: {e}"))?;
                    if last {
                        return Ok(collector.finish());
                    }
                    std::thread::sleep(READ_EVERY);
                }
            })
            .map_err(|e| format!("--timerlat: cannot start the thread reading the trace: {e}"))?;
        Ok(TimerlatRun {
            trace,
            workload,
            period_us,
            stop,
            reader,
        })
    }

    /// Who the tracer wakes.
    pub fn workload(&self) -> Workload {
        self.workload
    }

    /// Once the measuring threads ended (their `timerlat_fd` closed): reads the rest of the
    /// trace, puts every tracefs setting back, and returns the figures.
    pub fn finish(self) -> Result<TimerlatFigures, String> {
        self.stop.store(true, Ordering::Release);
        let read = self
            .reader
            .join()
            .unwrap_or_else(|_| Err("--timerlat: the thread reading the trace panicked".into()));
        let restored = self.trace.stop().map_err(|e| format!("--timerlat: {e}"));
        let cpus = read?;
        restored?;
        Ok(TimerlatFigures {
            workload: self.workload,
            period_us: self.period_us,
            cpus,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::cyclic::options::ThreadPlan;
    use rtlat_linux::Policy;

    fn plan(threads: &[(usize, u64)]) -> Plan {
        Plan {
            threads: threads
                .iter()
                .enumerate()
                .map(|(index, &(cpu, interval_us))| ThreadPlan {
                    index: index as u32,
                    cpu,
                    policy: Policy::Fifo,
                    priority: 80,
                    interval_us,
                })
                .collect(),
            main_affinity: None,
            notices: Vec::new(),
        }
    }

    fn refusal(threads: &[(usize, u64)]) -> String {
        match check(&plan(threads)) {
            Err(e) => e,
            Ok(_) => panic!("{threads:?} accepted"),
        }
    }

    #[test]
    fn the_plan_is_refused_before_the_kernel_is_asked() {
        assert!(refusal(&[(0, 1000), (0, 1000)]).contains("threads share CPU 0"));
        assert!(refusal(&[(0, 1000), (1, 1500)]).contains("intervals differ"));
        assert!(refusal(&[(0, 99)]).contains("100 to 1000000"));
        assert!(refusal(&[(0, 1_000_001)]).contains("100 to 1000000"));
    }

    #[test]
    fn a_good_plan_gets_the_kernels_answer() {
        match check(&plan(&[(0, 1000), (1, 1000)])) {
            // The development machines' kernel: no tracer, said in one line.
            Err(e) => {
                assert!(e.starts_with("--timerlat: "), "{e}");
                assert!(e.contains("trace"), "{e}");
            }
            // An RT kernel: its period and CPUs.
            Ok(plan) => {
                assert_eq!(plan.period_us, 1000);
                assert_eq!(plan.cpus.iter().collect::<Vec<_>>(), [0, 1]);
            }
        }
    }
}
