//! The evidence `--explain` gathers beside the measuring threads: rtlat-system's sampler,
//! SCHED_OTHER, on the CPUs no thread measures (any CPU when every one is measured), and the
//! osnoise tracer on the measured CPUs where the kernel has it (its tracefs changes printed,
//! undone when it stops). The measuring loop only publishes its wake-ups; nothing here runs
//! on a measured CPU when another is available.

use std::fmt::Write as _;
use std::path::Path;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::Facts;
use rtlat_system::noise::tracer::{self, TracerPath};
use rtlat_system::noise::{
    Config, Findings, NoiseTrace, Sampler, SamplerThread, Spike as NoiseSpike, SpikeRecord,
    Verdict, Watched,
};

/// The sampler and the tracer, running.
#[derive(Debug)]
pub struct Evidence {
    sampler: SamplerThread,
    /// The CPUs the sampler runs on (empty: any).
    housekeeping: Vec<usize>,
    /// The calling (main) thread was moved to them.
    main_moved: bool,
    period_ns: u64,
    /// The tracer path's state, one line.
    tracer: String,
    trace: Option<NoiseTrace>,
}

/// Whether `--explain` starts the osnoise tracer where the kernel has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TracerUse {
    /// Start it (its events are read once, when the evidence stops).
    Start,
    /// Leave it, for this reason (said in the tracer path's state: `not used: <why>`).
    Skip(&'static str),
}

/// What the evidence gave once stopped.
#[derive(Debug)]
pub struct Stopped {
    /// The sampler, with one last sample past every wake-up.
    pub sampler: Sampler,
    /// The tracer's events, read once.
    pub events: Option<tracer::Events>,
    /// The CPUs the sampler ran on (empty: any).
    pub housekeeping: Vec<usize>,
    /// The sampler's period, ns.
    pub period_ns: u64,
    /// The tracer path's state, one line.
    pub tracer: String,
}

impl Evidence {
    /// Starts the sampler for the threads `tids` of this process (set up, not measuring yet)
    /// on the `measured` CPUs, running on the `available` CPUs no thread measures. With
    /// `move_main`, the calling thread (which makes the verdicts) moves there too; with
    /// [`TracerUse::Start`], the osnoise tracer starts on the measured CPUs where the kernel
    /// has it.
    pub fn start(
        measured: &[usize],
        tids: &[u32],
        available: &[usize],
        move_main: bool,
        tracer: TracerUse,
    ) -> Result<Evidence, String> {
        let housekeeping: Vec<usize> = available
            .iter()
            .copied()
            .filter(|c| !measured.contains(c))
            .collect();
        let pid = std::process::id();
        let watched: Vec<Watched> = tids.iter().map(|&tid| Watched { pid, tid }).collect();
        let config = Config::default();
        let period_ns = config.period.as_nanos() as u64;
        let sampler = Sampler::new(Facts::live(), measured, &watched, config);
        let sampler = SamplerThread::spawn(sampler, &housekeeping)
            .map_err(|e| format!("--explain: cannot start the evidence sampler thread: {e}"))?;
        let main_moved = move_main
            && !housekeeping.is_empty()
            && rtlat_linux::set_affinity(&housekeeping).is_ok();
        let (trace, tracer) = match tracer {
            TracerUse::Start => start_tracer(measured),
            TracerUse::Skip(why) => (None, format!("not used: {why}")),
        };
        Ok(Evidence {
            sampler,
            housekeeping,
            main_moved,
            period_ns,
            tracer,
            trace,
        })
    }

    /// Runs `f` on the sampler (which waits meanwhile).
    pub fn with<R>(&self, f: impl FnOnce(&Sampler) -> R) -> R {
        self.sampler.with(f)
    }

    /// Where the sampler runs, for the started line: `CPU 0-1`, or `anywhere` when it may run
    /// on any CPU.
    pub fn on(&self, anywhere: &str) -> String {
        if self.housekeeping.is_empty() {
            anywhere.to_string()
        } else {
            format!("CPU {}", cpu_list(&self.housekeeping))
        }
    }

    /// The sampler's period, ms.
    pub fn period_ms(&self) -> f64 {
        self.period_ns as f64 / 1e6
    }

    /// Whether the calling thread was moved to the sampler's CPUs.
    pub fn main_moved(&self) -> bool {
        self.main_moved
    }

    /// The tracer path's state, one line: `used (osnoise tracer)`, `absent: …`, `not used: …`.
    pub fn tracer(&self) -> &str {
        &self.tracer
    }

    /// Stops the sampler after one last sample (past every wake-up) and the tracer after
    /// reading its events; with `break_trace`, the trace is kept in that file (a break).
    pub fn stop(mut self, break_trace: Option<&Path>) -> Stopped {
        let mut sampler = self.sampler.stop();
        if let Ok(now) = rtlat_linux::PosixClock::monotonic().now_ns() {
            sampler.sample(now);
        }
        let events = self.trace.as_ref().and_then(|trace| {
            let _ = trace.pause();
            if let Some(path) = break_trace {
                keep_trace(trace, path);
            }
            trace.events().ok()
        });
        if let Some(trace) = self.trace.take()
            && let Err(e) = trace.stop()
        {
            crate::errln!("warning: --explain: {e}");
        }
        Stopped {
            sampler,
            events,
            housekeeping: self.housekeeping,
            period_ns: self.period_ns,
            tracer: self.tracer,
        }
    }
}

/// A break's trace, kept in `path` (told on stderr either way).
fn keep_trace(trace: &NoiseTrace, path: &Path) {
    match trace.read() {
        Ok(text) => match rtlat::atomic_file::write_atomically(path, text.as_bytes()) {
            Ok(()) => crate::errln!(
                "# --explain: the trace of the break is in {}",
                path.display()
            ),
            Err(e) => crate::errln!(
                "warning: --explain: cannot write the trace to {}: {e}",
                path.display()
            ),
        },
        Err(e) => crate::errln!("warning: --explain: cannot read the trace: {e}"),
    }
}

/// Adds to each spike's verdict the tracer's noise events on its CPU within its window, and
/// ranks the causes again.
pub fn add_tracer_causes(findings: &mut Findings, events: &tracer::Events, tid: u32) {
    for record in &mut findings.spikes {
        add_tracer_causes_to(record, events, tid);
    }
}

/// Adds to one spike's verdict (of the thread `tid`) the tracer's noise events on its CPU
/// within its window, and ranks the causes again; a spike without a CPU, a window or a
/// verdict is left as it is.
pub fn add_tracer_causes_to(record: &mut SpikeRecord, events: &tracer::Events, tid: u32) {
    let (Some(cpu), Verdict::Causes(causes)) = (record.cpu, &mut record.verdict) else {
        return;
    };
    if record.window_ns == (0, 0) {
        return;
    }
    let spike = NoiseSpike {
        cpu,
        tid: Some(tid),
        previous_wake_ns: record.window_ns.0,
        wake_ns: record.window_ns.1,
        latency_ns: record.latency_ns,
    };
    causes.extend(tracer::causes(events.overlapping(&spike)));
    causes.sort_by_key(|c| std::cmp::Reverse(c.score));
}

/// The osnoise tracer on the measured CPUs, where the kernel has it (its changes printed;
/// undone when it stops), and its state in one line: `used (osnoise tracer)`, `absent: …`, or
/// `not used: …` when starting it failed (the sampler's evidence stands alone then).
fn start_tracer(measured: &[usize]) -> (Option<NoiseTrace>, String) {
    let tracefs = match tracer::probe(&Facts::live()) {
        TracerPath::Absent(why) => return (None, why),
        TracerPath::Available(dir) => dir,
    };
    let cpus = match CpuSet::from_cpus(measured.iter().copied()) {
        Ok(cpus) => cpus,
        Err(e) => return (None, format!("not used: {e}")),
    };
    match NoiseTrace::start(&tracefs, &cpus) {
        Ok(trace) => {
            for change in trace.changes() {
                crate::errln!("# --explain: tracefs {change}");
            }
            (Some(trace), "used (osnoise tracer)".into())
        }
        Err(e) => (None, format!("not used: {e}")),
    }
}

/// `0-2,5`-style list of sorted CPUs.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            let _ = write!(out, "{start}");
        } else {
            let _ = write!(out, "{start}-{end}");
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cpu_list;

    #[test]
    fn cpu_lists_join_runs() {
        assert_eq!(cpu_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(cpu_list(&[3]), "3");
        assert_eq!(cpu_list(&[]), "");
    }
}
