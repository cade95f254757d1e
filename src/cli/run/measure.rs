//! The measurement thread: set up once, then sleep, read the clock, record — nothing else.
//!
//! Everything a cycle touches (histograms, the `-v` ring, the overflow list, the stack) is
//! allocated and written before the first cycle. Inside the loop there is no allocation, no
//! lock, no formatting and no system call but the timer's sleep and the clock read; figures
//! leave through [`LiveStatus`] (a sequence lock the thread never waits on).

use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use core::fmt::Display;

use rtlat_core::cycle::Sample;
use rtlat_core::{Clock as CoreClock, CycleConfig, CycleEngine, Layout, Linear, Outcome, Timer};
use rtlat_linux::{
    AbsoluteSleep, ClockId, Ftrace, NanoSleep, PageFaults, Policy, PosixClock, PosixTimer,
    RelativeSleep, ThreadSetup, TimerFd, TimerKind,
};

use super::live::{LiveFigures, LiveStatus};
use super::options::Clock;
use super::report::{LinearReport, RunHistogram, ThreadReport};
use super::ring::SampleRing;
use super::seconds::{SECOND_NS, SecondWindows, WindowRing};

/// How one measurement thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasurePlan {
    /// Thread number (0-based).
    pub index: usize,
    /// CPU to pin to.
    pub cpu: Option<usize>,
    /// Scheduling policy.
    pub policy: Policy,
    /// RT priority (0 for non-RT policies).
    pub priority: i32,
    /// Interval, ns.
    pub interval_ns: u64,
    /// Stop after this many cycles.
    pub loops: Option<u64>,
    /// `-D`: stop after the first cycle that wakes this long (ns) after the thread's start
    /// (its first deadline less one interval), that cycle counted, as cyclictest does.
    pub duration_ns: Option<u64>,
    /// Break the run at the first latency above this, ns.
    pub break_above_ns: Option<i64>,
    /// How to sleep.
    pub timer: TimerKind,
    /// Which clock.
    pub clock: Clock,
    /// cyclictest's fixed-width histogram: (buckets, width ns).
    pub linear: Option<(usize, u64)>,
    /// First deadline offset from the common start when starts are aligned, ns.
    pub aligned_offset_ns: Option<u64>,
    /// Stack bytes to prefault.
    pub prefault_stack: usize,
    /// Nanoseconds per displayed unit: 1000 (µs), or 1 with `-N`.
    pub display_unit_ns: u64,
    /// `--spike`: keep every latency above this (ns), up to `spike_nodes` of them.
    pub spike_above_ns: Option<i64>,
    /// `--spike-nodes`: how many spikes to keep.
    pub spike_nodes: usize,
    /// Keep per-second windows for the JSON time series (off without `--json`: the loop
    /// then pays nothing for them).
    pub seconds_series: bool,
}

/// State all threads and the main thread share for one run.
#[derive(Debug)]
pub struct RunShared {
    /// Set by any thread (or the main thread) to end the run.
    pub stop: AtomicBool,
    /// Live figures per thread.
    pub live: Vec<LiveStatus>,
    /// `-v` sample rings per thread.
    pub rings: Vec<Option<SampleRing>>,
    /// Every measurement thread and the main thread meet here once set up.
    pub ready: Barrier,
    /// The common start for aligned starts (clock ns), set by the main thread.
    pub epoch_ns: AtomicU64,
    /// Every thread waits here until `epoch_ns` is set.
    pub go: Barrier,
    /// TID of the first thread that crossed the break threshold (0: none).
    pub break_tid: AtomicI32,
    /// ftrace, for `--tracemark` on a break.
    pub ftrace: Option<Ftrace>,
    /// Per-second windows per thread, drained by the main thread into the JSON time series
    /// (see [`super::seconds`]).
    pub seconds: Vec<WindowRing>,
}

/// Runs one measurement thread to the end of the run. Errors are one-line messages.
///
/// The loop is compiled once per clock and timer pair, so a cycle pays no dispatch on either.
///
/// `histogram` is made by the caller (on a thread with a large stack): building its 30 KiB
/// on this thread's small stack would need room for the temporaries.
pub fn run_thread(
    plan: &MeasurePlan,
    shared: &RunShared,
    histogram: Box<RunHistogram>,
) -> Result<ThreadReport, String> {
    let h = histogram;
    let id = match plan.clock {
        Clock::Monotonic => ClockId::Monotonic,
        Clock::Realtime => ClockId::Realtime,
        // The generic-timer counter, and its timer (absolute deadlines only: the options
        // refuse any other with this clock).
        #[cfg(target_arch = "aarch64")]
        Clock::Cntvct => {
            return measure(plan, shared, h, || {
                let (clock, timer) = counter_clock()?;
                Ok((clock, timer))
            });
        }
    };
    let clock = PosixClock::new(id);
    let interval = plan.interval_ns;
    let linux = |e: rtlat_linux::TimerError| e.to_string();
    match plan.timer {
        TimerKind::Absolute => measure(plan, shared, h, || Ok((clock, AbsoluteSleep::new(id)))),
        TimerKind::Relative => measure(plan, shared, h, || Ok((clock, RelativeSleep::new(id)))),
        TimerKind::NanoSleep => measure(plan, shared, h, || Ok((clock, NanoSleep::new(id)))),
        TimerKind::PosixTimer => measure(plan, shared, h, || {
            Ok((clock, PosixTimer::new(id, interval).map_err(linux)?))
        }),
        TimerKind::TimerFd => measure(plan, shared, h, || {
            Ok((clock, TimerFd::new(id, interval).map_err(linux)?))
        }),
    }
}

/// How long the counter timer measures CLOCK_MONOTONIC's rate before the run.
#[cfg(target_arch = "aarch64")]
const CALIBRATION: std::time::Duration = std::time::Duration::from_millis(100);

/// The generic-timer clock and its timer, calibrated against CLOCK_MONOTONIC: refused (the
/// line to print) when `CNTFRQ_EL0` is 0 or the counter does not run at its rate. The main
/// thread calls it once before changing anything; each measurement thread makes its own.
#[cfg(target_arch = "aarch64")]
pub fn counter_clock() -> Result<(rtlat_arm64::GenericTimer, rtlat_arm64::GenericTimerSleep), String>
{
    let failed = |e: &dyn Display| format!("-c/--clock cntvct: {e}");
    let clock = rtlat_arm64::GenericTimer::new().map_err(|e| failed(&e))?;
    let mut timer = rtlat_arm64::GenericTimerSleep::new(&clock).map_err(|e| failed(&e))?;
    timer
        .calibrate(CALIBRATION)
        .map_err(|e| failed(&e))?
        .map_err(|e| failed(&e))?;
    Ok((clock, timer))
}

/// What a timer that translates deadlines to another clock did (rtlat-arm64's counter
/// timer), for the JSON; `None` for timers that sleep on the measured clock itself.
pub trait DeadlineTranslation {
    /// The figures so far, if the timer translates.
    fn translation(&self) -> Option<TranslationFigures> {
        None
    }
}

/// A translating timer's figures (see rtlat-arm64's `DeadlineMap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranslationFigures {
    /// Wake-ups before the deadline on the measured clock, finished on it.
    pub early_wakeups: u64,
    /// CLOCK_MONOTONIC's rate against the measured clock's stated rate, ppm, at the end.
    pub slew_ppm: i64,
    /// Rate measurements taken (the one before the run, then one a second).
    pub calibrations: u64,
    /// Rate measurements refused (beyond 0.1 %, or clocks going back).
    pub refused: u64,
}

impl DeadlineTranslation for AbsoluteSleep {}
impl DeadlineTranslation for RelativeSleep {}
impl DeadlineTranslation for NanoSleep {}
impl DeadlineTranslation for PosixTimer {}
impl DeadlineTranslation for TimerFd {}

#[cfg(target_arch = "aarch64")]
impl DeadlineTranslation for rtlat_arm64::GenericTimerSleep {
    fn translation(&self) -> Option<TranslationFigures> {
        let map = self.map();
        Some(TranslationFigures {
            early_wakeups: self.early_wakeups(),
            slew_ppm: map.slew_ppm(),
            calibrations: map.calibrations(),
            refused: map.refused(),
        })
    }
}

/// [`run_thread`] with a concrete clock and timer, made on this thread by `make`.
fn measure<C, T>(
    plan: &MeasurePlan,
    shared: &RunShared,
    histogram: Box<RunHistogram>,
    make: impl FnOnce() -> Result<(C, T), String>,
) -> Result<ThreadReport, String>
where
    C: CoreClock,
    C::Error: Display,
    T: Timer<Error = rtlat_linux::SleepError> + DeadlineTranslation,
{
    let live = &shared.live[plan.index];
    let ring = shared.rings[plan.index].as_ref();
    let seconds_ring = &shared.seconds[plan.index];
    // However this function ends (finished, broken, failed), the run ends with it and the
    // main thread is told: no path leaves the supervisor waiting.
    let _ending = EndsTheRun {
        live,
        stop: &shared.stop,
    };
    let prepared = prepare(plan, live, histogram, make);
    // Meet the others even after a failure, so nobody waits forever.
    shared.ready.wait();
    shared.go.wait();
    let (mut state, mut engine) = prepared?;
    // cyclictest's fixed-width histogram: counters allocated (and written) before the run,
    // indexed by rtlat-core's linear layout; its min/max/sum are the thread's `Stats`, so no
    // second summary is kept.
    let linear = match plan.linear {
        Some((_, width)) => {
            Some(Linear::new(0, width).map_err(|e| format!("thread {}: {e}", plan.index))?)
        }
        None => None,
    };
    if shared.stop.load(Ordering::Acquire) {
        return Ok(state.finish(plan, &mut engine, linear, 0));
    }
    match plan.aligned_offset_ns {
        Some(offset) => {
            // The epoch is in the clock's nanoseconds; the engine counts the clock's ticks.
            let first = shared.epoch_ns.load(Ordering::Acquire) + offset + plan.interval_ns;
            engine.start_at(engine.scale().from_ns(first));
        }
        None => engine
            .start()
            .map_err(|e| format!("thread {}: {e}", plan.index))?,
    }
    // Per-second windows from this thread's start (its first deadline minus one interval).
    let origin = engine
        .next_deadline()
        .unwrap_or(0)
        .saturating_sub(engine.interval_ticks());
    let mut seconds = SecondWindows::new(origin, engine.scale().from_ns(SECOND_NS));
    // -D counts from the same start: with --secaligned, the full second the threads wait for.
    let stop_at = plan
        .duration_ns
        .map(|d| origin.saturating_add(engine.scale().from_ns(d)));

    // Counted around the whole loop, first cycle included; the only system calls in between
    // are the timer's sleeps and the clock reads.
    // The features a plain run has off (spike list, `-v` ring, per-second series, -D) cost
    // the loop one test of this flag per cycle, their own tests only when one is on.
    let extras =
        plan.spike_above_ns.is_some() || ring.is_some() || plan.seconds_series || stop_at.is_some();
    // Never resized while measuring: the length is read once, not every cycle.
    let linear_len = state.linear_counters.len();
    let publish_every = engine.scale().from_ns(PUBLISH_EVERY_NS);
    let mut publish_at = 0;
    let faults_start = PageFaults::current().map(|f| f.minor).unwrap_or(0);
    let allocations_start = crate::allocations::this_thread();
    let result = loop {
        if shared.stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        // One match on the step's result, so the sample stays in registers.
        let (sample, broke) = match engine.step(&mut *state.histogram) {
            Ok(Outcome::Sample(s)) => (s, false),
            Ok(Outcome::Break(s)) => (s, true),
            Ok(Outcome::Done) => break Ok(()),
            // The run ended while this thread slept (a signal, -D, another thread's end):
            // the interrupted cycle is not measured.
            Err(rtlat_core::Error::Timer(rtlat_linux::SleepError::Cancelled)) => break Ok(()),
            // Moved out whole (never borrowed in place), so the step's result can live in
            // registers on the common path.
            Err(e) => break Err(step_failed(plan.index, e)),
        };
        state.last_ns = sample.latency_ns;
        if let Some(layout) = &linear {
            let counters = &mut state.linear_counters;
            match layout.in_range_index(sample.latency_ns, linear_len) {
                Some(index) => counters[index] += 1,
                None => state.linear_guard(layout, sample.latency_ns, sample.cycle),
            }
        }
        // At most once a millisecond (and after the last cycle, below): what reads the
        // figures (the live lines, status requests, the fifo) is at most that much behind.
        if sample.wake_ticks >= publish_at {
            live.publish(&state.figures(sample.latency_ns, engine.overruns()));
            publish_at = sample.wake_ticks.saturating_add(publish_every);
        }
        if extras {
            if plan.seconds_series {
                // Two compares per cycle; once per second a push into the windows' ring.
                // A copy is lent, never `sample` itself: a sample whose address is taken
                // stays in memory on every cycle, not just those of this branch.
                let lent = sample;
                seconds.record(
                    &lent,
                    state.histogram.summary(),
                    engine.overruns(),
                    seconds_ring,
                );
            }
            if plan.spike_above_ns.is_some_and(|t| sample.latency_ns > t) {
                state.spikes_total += 1;
                if state.spikes.len() < state.spikes.capacity() {
                    state.spikes.push((sample.latency_ns, sample.wake_ticks));
                }
            }
            if let Some(ring) = ring {
                ring.push(sample.cycle, sample.latency_ns);
            }
            // -D: past the end (a cycle that also broke ends the run below, as a break).
            if !broke && stop_at.is_some_and(|at| sample.wake_ticks >= at) {
                break Ok(());
            }
        }
        if broke {
            state.broke = Some(sample);
            if shared
                .break_tid
                .compare_exchange(0, state.tid, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
                && let Some(ftrace) = &shared.ftrace
            {
                let unit = plan.display_unit_ns as i64;
                let threshold = plan.break_above_ns.map_or(0, |t| (t + 1) / unit - 1);
                let _ = ftrace.write_marker_fmt(format_args!(
                    "hit latency threshold ({} > {})",
                    sample.latency_ns / unit,
                    threshold
                ));
                let _ = ftrace.stop();
            }
            break Ok(());
        }
    };
    let allocations = crate::allocations::this_thread() - allocations_start;
    // The figures after the last cycle, whenever the loop last published.
    if state.histogram.summary().count() > 0 {
        live.publish(&state.figures(state.last_ns, engine.overruns()));
    }
    let faults = PageFaults::current()
        .map(|f| f.minor.saturating_sub(faults_start))
        .unwrap_or(0);
    if plan.seconds_series {
        seconds.finish(state.histogram.summary(), engine.overruns(), seconds_ring);
    }
    result?;
    let mut report = state.finish(plan, &mut engine, linear, faults);
    report.allocations = allocations;
    Ok(report)
}

/// How often (at most) a measurement thread publishes its live figures, ns.
const PUBLISH_EVERY_NS: u64 = 1_000_000;

/// The message for a step that failed. Out of line and taking the error by value: were it
/// formatted in place, the loop would keep every step's result in memory.
#[cold]
#[inline(never)]
fn step_failed<E: Display>(index: usize, e: E) -> String {
    format!("thread {index}: {e}")
}

/// Marks the thread finished and stops the run when dropped: the first thread to finish its
/// loops, break or fail ends the run (cyclictest's rule).
struct EndsTheRun<'a> {
    live: &'a LiveStatus,
    stop: &'a AtomicBool,
}

impl Drop for EndsTheRun<'_> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.live.set_finished();
    }
}

/// Everything a thread records into, allocated and touched before the first cycle.
struct ThreadState {
    tid: i32,
    histogram: Box<RunHistogram>,
    last_ns: i64,
    linear_counters: Vec<u64>,
    overflow_cycles: Vec<u64>,
    spikes: Vec<(i64, u64)>,
    spikes_total: u64,
    broke: Option<Sample>,
}

/// Sets up the calling thread and allocates its state.
fn prepare<C: CoreClock, T: Timer>(
    plan: &MeasurePlan,
    live: &LiveStatus,
    histogram: Box<RunHistogram>,
    make: impl FnOnce() -> Result<(C, T), String>,
) -> Result<(ThreadState, CycleEngine<C, T>), String> {
    let failed = |e: &dyn Display| format!("thread {}: {e}", plan.index);
    rtlat_linux::signals::block_run_signals().map_err(|e| failed(&e))?;
    let mut setup = ThreadSetup::new(plan.policy, plan.priority);
    setup.cpus = plan.cpu.into_iter().collect();
    setup.prefault_stack = plan.prefault_stack;
    let tid = setup.apply().map_err(|e| failed(&e))?;
    live.set_tid(tid);

    let buckets = plan.linear.map_or(0, |(buckets, _)| buckets);
    let mut linear_counters = vec![0u64; buckets + 2];
    touch(&mut linear_counters);
    // Written to the full capacity once, so pushes during the run touch mapped pages only.
    let mut overflow_cycles = vec![0u64; buckets];
    touch(&mut overflow_cycles);
    overflow_cycles.clear();
    let spike_capacity = if plan.spike_above_ns.is_some() {
        plan.spike_nodes
    } else {
        0
    };
    let mut spikes = Vec::with_capacity(spike_capacity);
    spikes.resize(spike_capacity, (0i64, 0u64));
    for s in spikes.iter_mut() {
        *s = black_box((0, 0));
    }
    spikes.clear();

    let (clock, timer) = make().map_err(|e| format!("thread {}: {e}", plan.index))?;
    let config = CycleConfig {
        interval_ns: plan.interval_ns,
        loops: plan.loops,
        break_above_ns: plan.break_above_ns,
    };
    let engine = CycleEngine::new(clock, timer, config)
        .map_err(|e| format!("thread {}: {e}", plan.index))?;
    let state = ThreadState {
        tid,
        histogram,
        last_ns: 0,
        linear_counters,
        overflow_cycles,
        spikes,
        spikes_total: 0,
        broke: None,
    };
    Ok((state, engine))
}

/// Writes every element so its pages are mapped before the measurement (a freshly zeroed
/// allocation is only mapped on first write).
fn touch(values: &mut [u64]) {
    for v in values.iter_mut() {
        *v = black_box(0);
    }
}

impl ThreadState {
    /// The live figures after a cycle with latency `act_ns` (so at least one value is
    /// recorded, and the extremes are those of the recorded values).
    #[inline]
    fn figures(&self, act_ns: i64, overruns: u64) -> LiveFigures {
        let s = self.histogram.summary();
        let (min_ns, max_ns) = s.extremes();
        LiveFigures {
            cycles: s.count(),
            min_ns,
            act_ns,
            max_ns,
            sum_ns: s.sum() as i64,
            overruns,
        }
    }

    /// A value of the fixed-width histogram that goes to a guard (underflow or overflow):
    /// counted there, and its cycle kept while the overflow list has room.
    #[cold]
    #[inline(never)]
    fn linear_guard(&mut self, layout: &Linear, latency_ns: i64, cycle: u64) {
        let counters = &mut self.linear_counters;
        let index = layout.index(latency_ns, counters.len());
        counters[index] += 1;
        if self.overflow_cycles.len() < self.overflow_cycles.capacity() {
            self.overflow_cycles.push(cycle);
        }
    }

    /// The fixed-width histogram's counts, taken after the run.
    fn linear_report(&mut self, layout: &Linear) -> LinearReport {
        let counters = std::mem::take(&mut self.linear_counters);
        let (underflows, overflows) = (counters[0], counters[counters.len() - 1]);
        LinearReport {
            width_ns: layout.width(),
            counts: counters[1..counters.len() - 1].to_vec(),
            overflows: overflows + underflows,
            underflows,
            overflow_cycles: std::mem::take(&mut self.overflow_cycles),
        }
    }

    fn finish<C: CoreClock, T: Timer + DeadlineTranslation>(
        mut self,
        plan: &MeasurePlan,
        engine: &mut CycleEngine<C, T>,
        linear: Option<Linear>,
        minor_faults: u64,
    ) -> ThreadReport {
        let linear = linear.map(|layout| self.linear_report(&layout));
        ThreadReport {
            index: plan.index,
            tid: self.tid,
            cpu: plan.cpu,
            priority: plan.priority,
            interval_us: plan.interval_ns / 1000,
            last_ns: self.last_ns,
            overruns: engine.overruns(),
            max_at: engine.max(),
            histogram: self.histogram,
            linear,
            broke: self.broke,
            minor_faults,
            allocations: 0,
            // Wake-up times leave in the clock's nanoseconds.
            spikes: {
                let scale = engine.scale();
                self.spikes
                    .iter()
                    .map(|&(latency, wake)| (latency, scale.to_ns(wake)))
                    .collect()
            },
            translation: engine.timer_mut().translation(),
            spikes_total: self.spikes_total,
            seconds: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::run::report::new_run_histogram;

    fn shared(threads: usize) -> RunShared {
        RunShared {
            stop: AtomicBool::new(false),
            live: (0..threads).map(|_| LiveStatus::default()).collect(),
            rings: (0..threads).map(|_| None).collect(),
            ready: Barrier::new(threads + 1),
            epoch_ns: AtomicU64::new(0),
            go: Barrier::new(threads + 1),
            break_tid: AtomicI32::new(0),
            ftrace: None,
            seconds: (0..threads).map(|_| WindowRing::default()).collect(),
        }
    }

    fn plan() -> MeasurePlan {
        MeasurePlan {
            index: 0,
            cpu: None,
            policy: Policy::Other,
            priority: 0,
            interval_ns: 100_000,
            loops: Some(50),
            duration_ns: None,
            break_above_ns: None,
            timer: TimerKind::Absolute,
            clock: Clock::Monotonic,
            linear: Some((100, 1000)),
            aligned_offset_ns: None,
            prefault_stack: 16 * 1024,
            display_unit_ns: 1000,
            spike_above_ns: None,
            spike_nodes: 0,
            seconds_series: true,
        }
    }

    #[test]
    fn a_thread_that_fails_set_up_still_ends_the_run() {
        let shared = shared(1);
        // Prefaulting more stack than the thread has fails in set-up.
        let plan = MeasurePlan {
            prefault_stack: 8 << 20,
            ..plan()
        };
        let result = std::thread::scope(|s| {
            let worker = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(s, || run_thread(&plan, &shared, new_run_histogram()))
                .unwrap();
            shared.ready.wait();
            shared.go.wait();
            worker.join().unwrap()
        });
        assert!(result.is_err());
        assert!(shared.live[0].finished(), "the supervisor is told");
        assert!(shared.stop.load(Ordering::Acquire), "the run stops");
    }

    /// Runs one measurement thread for `plan` as the main thread would, to its end.
    fn measure_one(plan: &MeasurePlan, shared: &RunShared) -> ThreadReport {
        std::thread::scope(|s| {
            let worker = s.spawn(|| run_thread(plan, shared, new_run_histogram()));
            shared.ready.wait();
            shared.go.wait();
            worker.join().unwrap()
        })
        .unwrap()
    }

    #[test]
    fn a_thread_measures_its_loops_and_reports_them() {
        let shared = shared(1);
        let report = measure_one(&plan(), &shared);
        assert_eq!(report.summary().count(), 50);
        assert_eq!(report.histogram.count(), 50);
        let linear = report.linear.unwrap();
        assert_eq!(linear.counts.iter().sum::<u64>() + linear.overflows, 50);
        assert_eq!(report.allocations, 0, "nothing allocated while measuring");
        assert!(shared.live[0].finished());
        assert_eq!(shared.live[0].read().cycles, 50);
        assert_eq!(
            report.translation, None,
            "a POSIX clock's timer translates nothing"
        );
    }

    /// On aarch64 (a board, or qemu-aarch64 in CI): the same thread on the generic-timer
    /// counter, with its counter timer; wake-ups never before the counter deadline.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn a_thread_measures_on_the_generic_timer() {
        let plan = MeasurePlan {
            clock: Clock::Cntvct,
            ..plan()
        };
        let report = measure_one(&plan, &shared(1));
        assert_eq!(report.summary().count(), 50);
        assert!(
            report.summary().min().unwrap() >= 0,
            "never before the deadline"
        );
        assert_eq!(report.allocations, 0, "nothing allocated while measuring");
        let translation = report.translation.expect("the counter timer reports");
        assert!(translation.calibrations >= 1, "calibrated before the run");
        assert_eq!(translation.refused, 0);
        assert!(translation.slew_ppm.abs() < 1_000);
    }
}
