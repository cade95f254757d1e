//! Xenomai `latency`'s sampling thread: set up once ([`prepare`]: CPU, SCHED_FIFO, stack
//! prefault; the histogram allocated and written), then a warm-up second and the
//! measurement loop ([`measure`]), each cycle a step of rtlat-core's engine (sleep to an
//! absolute deadline, read the clock), the totals and Xenomai's histogram recorded, and
//! Xenomai's "seconds" cut (rtlat-core's [`SampleWindows`]). Nothing else happens in the
//! loop: no allocation, no lock, no formatting, no system call but the sleep and the clock
//! read.

pub mod histogram;

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use rtlat_core::windows::{SampleWindows, samples_per_second};
use rtlat_core::{Clock, CycleConfig, CycleEngine, Record, Sample, Skip, Summary, Timer};
use rtlat_linux::{AbsoluteSleep, ClockId, TimerKind};

use self::histogram::XenomaiHistogram;
use crate::SECOND_NS;
use crate::error::{MeasureError, OnThread, ThreadName};
use crate::measure::{Flow, PerCycle, measure};
use crate::rings::{WindowRing, default_window_ring};
use crate::setup::{Setup, prepare};
use crate::timers::{
    ClockFailure, ClockSource, TimerFigures, WakeError, WithClockAndTimer, with_clock_and_timer,
};

/// Xenomai's first deadline: one millisecond after the sampling thread reads the clock.
const START_DELAY_NS: u64 = 1_000_000;

/// How the sampling thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// CPU, policy (SCHED_FIFO for the command; tests may use SCHED_OTHER), priority,
    /// stack prefault.
    pub setup: Setup,
    /// Sampling period, ns.
    pub period_ns: u64,
    /// Histogram cells.
    pub cells: usize,
    /// Histogram bucket width, ns.
    pub bucket_ns: u64,
    /// `-T N`: end the run `N + 1` seconds after the thread's start (warm-up included);
    /// `None` runs until `Shared::stop`.
    pub duration_s: Option<u64>,
    /// The clock and timer: CLOCK_MONOTONIC with absolute sleeps, as Xenomai's `latency`
    /// on Mercury, or (feature `xenomai`) Xenomai's own.
    pub clock: ClockSource,
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
            windows: default_window_ring(),
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
    /// Deadlines passed by late wake-ups, counted by the engine from its clock reads.
    pub overruns: u64,
    /// The overruns the timer's own system reported (Xenomai's), where it counts them.
    pub reported_overruns: Option<u64>,
}

/// Sets the thread's `finished` flag however the thread ends.
struct Finished<'a>(&'a AtomicBool);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Runs the sampling thread until `shared.stop`, or to the end of a `-T` run. Errors are
/// failures (the thread unnamed). `allocations` counts the calling thread's allocations.
///
/// As in Xenomai: the first deadline is one millisecond after the thread reads the clock
/// (`t0`); a "second" is [`samples_per_second`] wake-ups, the first of them the warm-up
/// second; a `-T N` run ends at `t0 + (N + 1) s` (Xenomai's `alarm(N + 1)`, set just
/// before), and a wake-up whose deadline is not before that end is not waited for. So the
/// last second is reported only if it completed by then (at periods above 1 ms), and
/// seconds stretched by overruns leave fewer reported seconds.
pub fn run_thread(
    plan: &Plan,
    shared: &Shared,
    allocations: fn() -> u64,
) -> Result<Report, OnThread> {
    let _finished = Finished(&shared.finished);
    let thread = Thread {
        plan,
        shared,
        allocations,
    };
    with_clock_and_timer(plan.clock, TimerKind::Absolute, plan.period_ns, thread).map_err(|error| {
        OnThread {
            thread: ThreadName::Only,
            error,
        }
    })
}

/// [`run_thread`] waiting for its clock and timer.
struct Thread<'a> {
    plan: &'a Plan,
    shared: &'a Shared,
    allocations: fn() -> u64,
}

impl WithClockAndTimer for Thread<'_> {
    type Output = Result<Report, MeasureError>;

    fn run<C, T>(self, make: impl FnOnce() -> Result<(C, T), MeasureError>) -> Self::Output
    where
        C: Clock,
        C::Error: ClockFailure,
        T: Timer + TimerFigures,
        T::Error: WakeError,
    {
        let Thread {
            plan,
            shared,
            allocations,
        } = self;
        let prepared = XenomaiHistogram::new(plan.cells, plan.bucket_ns)
            .ok_or(MeasureError::EmptyHistogram)
            .and_then(|histogram| {
                let (_, engine) = prepare::<C, T, Skip>(
                    &plan.setup,
                    |tid| shared.tid.store(tid, Ordering::Release),
                    make,
                    CycleConfig::new(plan.period_ns),
                )?;
                Ok((engine, histogram))
            });
        // Meet the main thread even after a failure, so that it never waits forever.
        shared.ready.wait();
        let (mut engine, histogram) = prepared?;

        let scale = engine.scale();
        let t0 = engine
            .clock_mut()
            .now()
            .map_err(|e| MeasureError::step(rtlat_core::Error::<_, T::Error>::Clock(e)))?;
        let t0 = scale.to_ns(t0);
        engine.start_at(scale.from_ns(t0.saturating_add(START_DELAY_NS)));
        let end_ns = plan
            .duration_s
            .map(|n| t0.saturating_add(n.saturating_add(1).saturating_mul(SECOND_NS)));
        let mut work = Sampling {
            totals: Summary::new(),
            histogram,
            seconds: SampleWindows::new(samples_per_second(plan.period_ns)),
            ring: &shared.windows,
            end: end_ns.map_or(u64::MAX, |ns| scale.from_ns(ns)),
            reached_end: false,
        };
        let (result, measured) = measure(&mut engine, &shared.stop, &mut work, allocations);
        work.seconds.finish(work.ring);
        result?;
        if let (true, Some(end_ns)) = (work.reached_end, end_ns) {
            // The run lasts until its end, as Xenomai's does until its alarm (a period of up
            // to a second may leave the last deadline well before it); a stop signal cuts
            // this. The clocks agree: Xenomai's Alchemy clock is CLOCK_MONOTONIC's time.
            let mut sleep = AbsoluteSleep::new(ClockId::Monotonic);
            match sleep.sleep_until(end_ns) {
                Ok(()) | Err(rtlat_linux::SleepError::Cancelled) => {}
                Err(e) => return Err(MeasureError::Sleep(e)),
            }
        }
        Ok(Report {
            histogram: work.histogram,
            cycles: work.totals.count(),
            allocations: measured.allocations,
            minor_faults: measured.minor_faults,
            overruns: engine.overruns(),
            reported_overruns: engine.timer_mut().reported_overruns(),
        })
    }
}

/// This mode's per-cycle work.
struct Sampling<'a> {
    totals: Summary,
    /// Every latency after the warm-up second.
    histogram: XenomaiHistogram,
    seconds: SampleWindows,
    ring: &'a WindowRing,
    /// The `-T` end, clock ticks (`u64::MAX`: none).
    end: u64,
    /// Whether the run reached its `-T` end (then the thread waits for it before leaving).
    reached_end: bool,
}

impl<C: Clock, T: Timer> PerCycle<C, T, Skip> for Sampling<'_> {
    type Recorder = Summary;

    #[inline(always)]
    fn recorder(&mut self) -> &mut Summary {
        &mut self.totals
    }

    #[inline(always)]
    fn before(&mut self, engine: &CycleEngine<C, T, Skip>) -> Flow {
        if engine.next_deadline().unwrap_or(0) >= self.end {
            self.reached_end = true;
            return Flow::Stop;
        }
        Flow::Go
    }

    #[inline(always)]
    fn after(&mut self, sample: Sample, _: bool, _: &CycleEngine<C, T, Skip>) -> Flow {
        // The warm-up second is measured (it is Xenomai's first, unreported second) but
        // kept out of the histogram.
        if self.seconds.index() > 0 {
            self.histogram.record(sample.latency_ns);
        }
        self.seconds.record(&sample, self.ring);
        Flow::Go
    }
}
