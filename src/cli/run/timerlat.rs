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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use rtlat_core::Summary;
use rtlat_engine::run::{RunHistogram, new_run_histogram};
use rtlat_formats::schema::rtlat as schema;
use rtlat_formats::schema::{Count, Field};
use rtlat_linux::cpuset::CpuSet;
use rtlat_system::noise::timerlat::{
    Context, TimerlatLine, TimerlatPath, TimerlatSettings, TimerlatTrace, Workload, probe,
};
use serde_json::{Number, Value};

use crate::cli::cyclic::options::Plan;

/// The shortest and longest period the tracer takes (`osnoise/timerlat_period_us`), µs.
const PERIOD_RANGE_US: (u64, u64) = (100, 1_000_000);

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
    let first = cpus.iter().next().unwrap_or(0);
    match probe(Path::new("/"), first) {
        TimerlatPath::Available(tracefs, workload, why) => Ok(TimerlatPlan {
            cpus,
            period_us: period,
            tracefs,
            workload,
            why,
        }),
        TimerlatPath::Absent(why) => Err(format!("--timerlat: {why}")),
    }
}

/// One CPU's figures from the trace.
pub struct CpuFigures {
    /// The timer IRQ's latency.
    pub irq: Box<RunHistogram>,
    /// The woken thread's, in the kernel.
    pub thread: Box<RunHistogram>,
    /// The return from user space (user workload only).
    pub user: Box<RunHistogram>,
    /// Events the ring buffer dropped on this CPU.
    pub lost: u64,
}

impl CpuFigures {
    fn new() -> CpuFigures {
        CpuFigures {
            irq: new_run_histogram(),
            thread: new_run_histogram(),
            user: new_run_histogram(),
            lost: 0,
        }
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
    pub fn start(plan: TimerlatPlan) -> Result<TimerlatRun, String> {
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
                let mut cpus: BTreeMap<usize, CpuFigures> = BTreeMap::new();
                loop {
                    // Read once more after the stop: what the last cycles left.
                    let last = stopped.load(Ordering::Acquire);
                    pipe.drain(|line| match line {
                        TimerlatLine::Sample {
                            cpu,
                            context,
                            latency_ns,
                            ..
                        } => {
                            let figures = cpus.entry(cpu).or_insert_with(CpuFigures::new);
                            let part = match context {
                                Context::Irq => &mut figures.irq,
                                Context::Thread => &mut figures.thread,
                                Context::User => &mut figures.user,
                            };
                            part.record(i64::try_from(latency_ns).unwrap_or(i64::MAX));
                        }
                        TimerlatLine::Lost { cpu, events } => {
                            cpus.entry(cpu).or_insert_with(CpuFigures::new).lost += events;
                        }
                    })
                    .map_err(|e| format!("--timerlat: {e}"))?;
                    if last {
                        return Ok(cpus);
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

/// The word for a workload in the text and the JSON.
fn workload_name(workload: Workload) -> &'static str {
    match workload {
        Workload::User => "user",
        Workload::Kernel => "kernel",
    }
}

/// The text after the run: per thread, each part's count, min, avg, max and p99 (µs, or ns
/// with `-N`), cyclictest's way of truncating.
pub fn text(out: &mut String, figures: &TimerlatFigures, plan: &Plan, nanoseconds: bool) {
    use std::fmt::Write as _;
    let unit = if nanoseconds { 1 } else { 1000 };
    let _ = writeln!(
        out,
        "# timerlat: period {} us, workload {} ({})",
        figures.period_us,
        workload_name(figures.workload),
        match figures.workload {
            Workload::User => "IRQ, Thd and Usr are rtlat's own wake-ups",
            Workload::Kernel => "the tracer's timerlat/N threads beside rtlat's",
        }
    );
    for t in &plan.threads {
        let Some(cpu) = figures.cpus.get(&t.cpu) else {
            let _ = writeln!(out, "T:{:2} CPU:{:3} timerlat: no samples", t.index, t.cpu);
            continue;
        };
        let mut parts = vec![("IRQ", &cpu.irq), ("Thd", &cpu.thread)];
        if figures.workload == Workload::User {
            parts.push(("Usr", &cpu.user));
        }
        for (name, h) in parts {
            let s = h.summary();
            let _ = writeln!(
                out,
                "T:{:2} CPU:{:3} {name} C:{:9} Min:{:7} Avg:{:7} Max:{:8} p99:{:8}",
                t.index,
                t.cpu,
                s.count(),
                s.min().map_or(0, |v| v / unit),
                s.mean().map_or(0, |m| (m / unit as f64) as i64),
                s.max().map_or(0, |v| v / unit),
                h.percentile(99.0).map_or(0, |v| v / unit),
            );
        }
        if cpu.lost > 0 {
            let _ = writeln!(
                out,
                "T:{:2} CPU:{:3} timerlat: {} events lost by the ring buffer",
                t.index, t.cpu, cpu.lost
            );
        }
    }
}

/// A thread's `rtlat.timerlat` object; `None` for a CPU that was not traced.
pub fn json(figures: &TimerlatFigures, cpu: usize) -> schema::Timerlat {
    let found = figures.cpus.get(&cpu);
    let part = |h: Option<&RunHistogram>| -> Field<schema::TimerlatPart> {
        let empty = Summary::new();
        let s = h.map_or(&empty, |h| h.summary());
        schema::TimerlatPart {
            samples: Count(s.count()).into(),
            min: s.min().map(Number::from).into(),
            max: s.max().map(Number::from).into(),
            mean: s.mean().into(),
            percentiles: super::output::json::percentiles(h).into(),
            histogram: Field::from_value(
                h.and_then(|h| serde_json::to_value(h).ok())
                    .unwrap_or(Value::Null),
            ),
        }
        .into()
    };
    schema::Timerlat {
        workload: workload_name(figures.workload).to_string().into(),
        cpu: (cpu as u64).into(),
        period_us: figures.period_us.into(),
        irq: part(found.map(|f| &*f.irq)),
        thread: part(found.map(|f| &*f.thread)),
        user: match figures.workload {
            Workload::User => part(found.map(|f| &*f.user)),
            Workload::Kernel => Field::Absent,
        },
        lost_events: found.map_or(0, |f| f.lost).into(),
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
