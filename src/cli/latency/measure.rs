//! `rtlat latency`'s sampling thread: set up once (CPU, SCHED_FIFO, stack prefault, the
//! histogram allocated and written), then a warm-up second and the measurement loop, each
//! cycle a step of rtlat-core's engine (sleep to an absolute deadline, read the clock),
//! the totals and Xenomai's histogram recorded, and the per-second windows cut
//! ([`crate::cli::run::seconds`]). Nothing else happens in the loop: no allocation, no lock,
//! no formatting, no system call but the sleep and the clock read.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use rtlat_core::{CycleConfig, CycleEngine, Outcome, Summary, Timer as _};
use rtlat_linux::{AbsoluteSleep, ClockId, PageFaults, Policy, PosixClock, ThreadSetup};

use super::histogram::XenomaiHistogram;
use super::seconds::{SampleSeconds, samples_per_second};
use crate::cli::run::seconds::{SECOND_NS, WindowRing};

/// Xenomai's first deadline: one millisecond after the sampling thread reads the clock.
const START_DELAY_NS: u64 = 1_000_000;

/// How the sampling thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// CPU to pin to.
    pub cpu: Option<usize>,
    /// Policy (SCHED_FIFO for the command; tests may use SCHED_OTHER).
    pub policy: Policy,
    /// Priority.
    pub priority: i32,
    /// Sampling period, ns.
    pub period_ns: u64,
    /// Histogram cells.
    pub cells: usize,
    /// Histogram bucket width, ns.
    pub bucket_ns: u64,
    /// Stack bytes to prefault.
    pub prefault_stack: usize,
    /// `-T N`: end the run `N + 1` seconds after the thread's start (warm-up included);
    /// `None` runs until `Shared::stop`.
    pub duration_s: Option<u64>,
}

/// What the sampling thread and the main thread share.
#[derive(Debug)]
pub struct Shared {
    /// Set by the main thread to end the run.
    pub stop: AtomicBool,
    /// The sampling thread and the main thread meet here once the thread is set up.
    pub ready: Barrier,
    /// Closed seconds, for the main thread's `RTD|` lines.
    pub windows: WindowRing,
    /// Set when the thread has left its loop (finished or failed).
    pub finished: AtomicBool,
    /// The sampling thread's id once it is set up (0 before): where the main thread sends
    /// the wake-up that ends the run at once
    /// ([`cancel_measurement`](rtlat_linux::signals::cancel_measurement)).
    pub tid: AtomicI32,
}

impl Shared {
    /// State for one sampling thread.
    pub fn new() -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            ready: Barrier::new(2),
            windows: WindowRing::default(),
            finished: AtomicBool::new(false),
            tid: AtomicI32::new(0),
        }
    }
}

impl Default for Shared {
    fn default() -> Self {
        Shared::new()
    }
}

/// What the thread hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Every latency after the warm-up second, Xenomai's way (the "avg" histogram).
    pub histogram: XenomaiHistogram,
    /// Cycles measured, warm-up included.
    pub cycles: u64,
    /// Allocations made by the thread while measuring.
    pub allocations: u64,
    /// Minor page faults taken by the thread while measuring.
    pub minor_faults: u64,
}

/// Sets the thread's `finished` flag however the thread ends.
struct Finished<'a>(&'a AtomicBool);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Runs the sampling thread until `shared.stop`, or to the end of a `-T` run. Errors are
/// one-line messages.
///
/// As in Xenomai: the first deadline is one millisecond after the thread reads the clock
/// (`t0`); a "second" is [`samples_per_second`] wake-ups, the first of them the warm-up
/// second; a `-T N` run ends at `t0 + (N + 1) s` (Xenomai's `alarm(N + 1)`, set just
/// before), and a wake-up whose deadline is not before that end is not waited for. So the
/// last second is reported only if it completed by then (at periods above 1 ms), and
/// seconds stretched by overruns leave fewer reported seconds.
pub fn run_thread(plan: &Plan, shared: &Shared) -> Result<Report, String> {
    let _finished = Finished(&shared.finished);
    let prepared = prepare(plan, &shared.tid);
    // Meet the main thread even after a failure, so that it never waits forever.
    shared.ready.wait();
    let (mut engine, mut histogram) = prepared?;
    let failed =
        |e: rtlat_core::Error<rtlat_linux::ClockError, rtlat_linux::SleepError>| e.to_string();
    // A step cut short because the run is ending measured nothing: the loop just ends.
    let cancelled = |r: &Result<Outcome, rtlat_core::Error<_, rtlat_linux::SleepError>>| {
        matches!(
            r,
            Err(rtlat_core::Error::Timer(rtlat_linux::SleepError::Cancelled))
        )
    };

    let scale = engine.scale();
    let t0 = PosixClock::new(ClockId::Monotonic)
        .now_ns()
        .map_err(|e| e.to_string())?;
    engine.start_at(scale.from_ns(t0.saturating_add(START_DELAY_NS)));
    let end_ns = plan
        .duration_s
        .map(|n| t0.saturating_add(n.saturating_add(1).saturating_mul(SECOND_NS)));
    let end = end_ns.map_or(u64::MAX, |ns| scale.from_ns(ns));
    let mut seconds = SampleSeconds::new(samples_per_second(plan.period_ns));
    let mut totals = Summary::new();
    let ring = &shared.windows;

    let faults_start = PageFaults::current().map(|f| f.minor).unwrap_or(0);
    let allocations_start = crate::allocations::this_thread();
    // Whether the run reached its `-T` end (then the thread waits for it before leaving).
    let mut reached_end = false;
    let result = (|| -> Result<(), String> {
        // The warm-up second: measured (it is Xenomai's first, unreported second) but kept
        // out of the histogram.
        while seconds.index() == 0 {
            if shared.stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if engine.next_deadline().unwrap_or(0) >= end {
                reached_end = true;
                return Ok(());
            }
            let step = engine.step(&mut totals);
            if cancelled(&step) {
                return Ok(());
            }
            let sample = match step.map_err(failed)? {
                Outcome::Sample(s) | Outcome::Break(s) => s,
                Outcome::Done => return Ok(()),
            };
            seconds.record(&sample, ring);
        }
        loop {
            if shared.stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if engine.next_deadline().unwrap_or(0) >= end {
                reached_end = true;
                return Ok(());
            }
            let step = engine.step(&mut (&mut totals, &mut histogram));
            if cancelled(&step) {
                return Ok(());
            }
            let sample = match step.map_err(failed)? {
                Outcome::Sample(s) | Outcome::Break(s) => s,
                Outcome::Done => return Ok(()),
            };
            seconds.record(&sample, ring);
        }
    })();
    let allocations = crate::allocations::this_thread() - allocations_start;
    let minor_faults = PageFaults::current()
        .map(|f| f.minor.saturating_sub(faults_start))
        .unwrap_or(0);
    seconds.finish(ring);
    result?;
    if let (true, Some(end_ns)) = (reached_end, end_ns) {
        // The run lasts until its end, as Xenomai's does until its alarm (a period of up to
        // a second may leave the last deadline well before it); a stop signal cuts this.
        let mut sleep = AbsoluteSleep::new(ClockId::Monotonic);
        match sleep.sleep_until(end_ns) {
            Ok(()) | Err(rtlat_linux::SleepError::Cancelled) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(Report {
        histogram,
        cycles: totals.count(),
        allocations,
        minor_faults,
    })
}

type Engine = CycleEngine<PosixClock, AbsoluteSleep>;

/// Sets up the calling thread and allocates what the loop records into.
fn prepare(plan: &Plan, tid: &AtomicI32) -> Result<(Engine, XenomaiHistogram), String> {
    rtlat_linux::signals::block_run_signals().map_err(|e| e.to_string())?;
    let mut setup = ThreadSetup::new(plan.policy, plan.priority);
    setup.cpus = plan.cpu.into_iter().collect();
    setup.prefault_stack = plan.prefault_stack;
    tid.store(setup.apply().map_err(|e| e.to_string())?, Ordering::Release);
    let histogram = XenomaiHistogram::new(plan.cells, plan.bucket_ns)
        .ok_or_else(|| "the histogram needs at least one cell of at least 1 ns".to_string())?;
    let clock = PosixClock::new(ClockId::Monotonic);
    let engine = CycleEngine::new(
        clock,
        AbsoluteSleep::new(ClockId::Monotonic),
        CycleConfig::new(plan.period_ns),
    )
    .map_err(|e| e.to_string())?;
    Ok((engine, histogram))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::seconds::Window;

    #[test]
    fn the_thread_warms_up_measures_and_allocates_nothing_while_measuring() {
        let shared = Shared::new();
        let plan = Plan {
            cpu: None,
            policy: Policy::Other,
            priority: 0,
            period_ns: 1_000_000,
            cells: 100,
            bucket_ns: 1000,
            prefault_stack: 16 * 1024,
            duration_s: None,
        };
        let (report, windows) = std::thread::scope(|s| {
            let worker = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(s, || run_thread(&plan, &shared))
                .unwrap();
            shared.ready.wait();
            // Two seconds and a bit: the warm-up second, one full second, part of the next.
            let mut windows: Vec<Window> = Vec::new();
            let started = std::time::Instant::now();
            while started.elapsed() < std::time::Duration::from_millis(2300) {
                std::thread::sleep(std::time::Duration::from_millis(20));
                shared.windows.drain(|w| windows.push(w));
            }
            shared.stop.store(true, Ordering::Release);
            let report = worker.join().unwrap().unwrap();
            shared.windows.drain(|w| windows.push(w));
            (report, windows)
        });
        assert_eq!(report.allocations, 0, "nothing allocated while measuring");
        assert!(shared.finished.load(Ordering::Acquire));
        assert_eq!(windows[0].index, 0, "the warm-up second comes first");
        assert!(windows.iter().filter(|w| w.complete).count() >= 2);
        let last = windows.last().unwrap();
        assert!(
            !last.complete,
            "the second under way when the run stops is partial"
        );
        let all: u64 = windows.iter().map(|w| w.cycles).sum();
        assert_eq!(all, report.cycles, "every cycle is in a window");
        let after_warm_up: u64 = windows.iter().skip(1).map(|w| w.cycles).sum();
        let in_histogram: u64 = report.histogram.cells().iter().sum();
        assert_eq!(
            in_histogram, after_warm_up,
            "the histogram skips the warm-up second"
        );
    }

    #[test]
    fn a_t_run_ends_itself_after_whole_seconds_of_wake_ups() {
        // -p 100000 -T 1: seconds of 10 wake-ups, deadlines 1 ms + k·100 ms after the start;
        // the run ends 2 s after the start, so wake-ups 0..19 are measured and the 21st
        // (2.001 s) is not waited for.
        let shared = Shared::new();
        let plan = Plan {
            cpu: None,
            policy: Policy::Other,
            priority: 0,
            period_ns: 100_000_000,
            cells: 100,
            bucket_ns: 1000,
            prefault_stack: 16 * 1024,
            duration_s: Some(1),
        };
        let started = std::time::Instant::now();
        let report = std::thread::scope(|s| {
            let worker = s.spawn(|| run_thread(&plan, &shared));
            shared.ready.wait();
            worker.join().unwrap().unwrap()
        });
        assert!(started.elapsed() >= std::time::Duration::from_secs(2));
        let mut windows = Vec::new();
        shared
            .windows
            .drain(|w| windows.push((w.index, w.cycles, w.complete)));
        assert_eq!(windows, [(0, 10, true), (1, 10, true)]);
        assert_eq!(report.cycles, 20);
        assert_eq!(report.histogram.cells().iter().sum::<u64>(), 10);
    }
}
