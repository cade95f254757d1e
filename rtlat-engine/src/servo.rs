//! LinuxCNC's base and servo threads: each set up once ([`prepare`]: CPU, SCHED_FIFO, stack
//! prefault), then the engine's loop ([`measure`]) on rtlat-core's [`Periodic`] schedule
//! (the cycle engine's back-to-back policy, as LinuxCNC runs its threads: sleep to the next
//! deadline, the previous one plus the period; a deadline already passed is run at once, so
//! missed periods run back to back and none is skipped) and [`JitterMonitor::tick`] with
//! the start of each run; its figures leave through [`LiveStatus`], a sequence lock the
//! thread never waits on. No allocation, lock, formatting or system call but the sleep and
//! the clock reads inside the loop.

use std::num::NonZeroU64;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

use rtlat_core::{
    BackToBack, Clock, CycleConfig, CycleEngine, JitterMonitor, JitterReport, Periodic, Sample,
    Summary, TickScale, Timer,
};
use rtlat_linux::{AbsoluteSleep, ClockId, PosixClock};

use crate::error::{MeasureError, OnThread, ThreadName};
use crate::measure::{Flow, PerCycle, measure};
use crate::rings::{SampleRing, sample_ring};
use crate::setup::{Setup, prepare};
use crate::{LiveFigures, LiveStatus};

/// How one thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `base` or `servo`.
    pub name: &'static str,
    /// Period, ns.
    pub period_ns: u64,
    /// CPU, policy (SCHED_FIFO for the command), priority, stack prefault.
    pub setup: Setup,
}

/// What the threads and the main thread share.
#[derive(Debug)]
pub struct Shared {
    /// Set to end the run (by the main thread, or by a thread that fails).
    pub stop: AtomicBool,
    /// Everyone meets here once set up.
    pub ready: Barrier,
    /// Each thread's live figures, in the order of the plans: `cycles` = ticks, `min_ns` /
    /// `max_ns` = shortest / longest interval, `act_ns` = the last interval, `overruns` =
    /// runs whose deadline had passed before the thread came to wait for it (`sum_ns` unused).
    pub live: Vec<LiveStatus>,
    /// Each thread's worst runs, in the order of the plans: each time its max jitter grows,
    /// the run whose late wake-up made it (the one ending the longest interval, or the one
    /// starting the shortest) as (tick from 0, its lateness ns, its wake-up ns on
    /// `CLOCK_MONOTONIC`) (`rtlat servo --explain`). A few pushes a run, most at its start.
    pub worst: Vec<SampleRing>,
}

/// Worst runs a [`Shared::worst`] ring holds until the main thread drains them.
pub const WORST_RING: usize = 64;

impl Shared {
    /// State for `threads` threads.
    pub fn new(threads: usize) -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            ready: Barrier::new(threads + 1),
            live: (0..threads).map(|_| LiveStatus::default()).collect(),
            worst: (0..threads).map(|_| sample_ring(WORST_RING)).collect(),
        }
    }
}

/// What a thread hands back.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The intervals between runs (its lateness and overrun figures, which assume a
    /// schedule that skips missed periods, are not used: see the fields below).
    pub jitter: JitterReport,
    /// The last interval, ns.
    pub last_interval_ns: Option<u64>,
    /// Runs whose deadline had passed before the thread came to wait for it, so that they
    /// ran at once, back to back (LinuxCNC's "Unexpected realtime delay").
    pub overruns: u64,
    /// Σ (interval − period), ns: LinuxCNC timedelta's `err`. Every period is run, so it
    /// equals the last run's lateness minus the first's.
    pub cumulative_error_ns: i64,
    /// Each run's start minus its deadline, ns.
    pub lateness: Summary,
    /// The first run's lateness, ns.
    pub first_lateness_ns: Option<i64>,
    /// The last run's lateness, ns.
    pub last_lateness_ns: Option<i64>,
    /// Allocations made while measuring.
    pub allocations: u64,
    /// Minor page faults taken while measuring.
    pub minor_faults: u64,
}

/// What the main thread shows from a [`LiveStatus`] of a thread of period `period_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figures {
    /// Ticks seen.
    pub ticks: u64,
    /// Longest interval, ns (`None` before two ticks).
    pub max_interval_ns: Option<u64>,
    /// LinuxCNC's max jitter, ns.
    pub max_jitter_ns: Option<u64>,
    /// Last interval, ns.
    pub last_interval_ns: Option<u64>,
    /// Runs that started at once, their deadline already passed.
    pub overruns: u64,
}

impl Figures {
    /// From the live figures.
    pub fn from_live(f: &LiveFigures, period_ns: u64) -> Figures {
        let seen = f.cycles > 1;
        let (min, max) = (f.min_ns as u64, f.max_ns as u64);
        Figures {
            ticks: f.cycles,
            max_interval_ns: seen.then_some(max),
            max_jitter_ns: seen.then(|| {
                max.saturating_sub(period_ns)
                    .max(period_ns.saturating_sub(min))
            }),
            last_interval_ns: seen.then_some(f.act_ns as u64),
            overruns: f.overruns,
        }
    }

    /// From a finished thread's report.
    pub fn from_report(r: &Report) -> Figures {
        Figures {
            ticks: r.jitter.ticks,
            max_interval_ns: r.jitter.max_interval_ns,
            max_jitter_ns: r.jitter.max_jitter_ns,
            last_interval_ns: r.last_interval_ns,
            overruns: r.overruns,
        }
    }
}

/// Stops the run and marks the thread finished however it ends.
struct Ending<'a> {
    stop: &'a AtomicBool,
    live: &'a LiveStatus,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.live.set_finished();
    }
}

/// Runs one thread until `shared.stop`; `index` is its place in `shared.live`.
/// `allocations` counts the calling thread's allocations.
pub fn run_thread(
    plan: &Plan,
    index: usize,
    shared: &Shared,
    allocations: fn() -> u64,
) -> Result<Report, OnThread> {
    let live = &shared.live[index];
    let _ending = Ending {
        stop: &shared.stop,
        live,
    };
    let failed = |error: MeasureError| OnThread {
        thread: ThreadName::Named(plan.name.to_string()),
        error,
    };
    let id = ClockId::Monotonic;
    let prepared = prepare::<_, _, BackToBack>(
        &plan.setup,
        |tid| live.set_tid(tid),
        || Ok((PosixClock::new(id), AbsoluteSleep::new(id))),
        CycleConfig::new(plan.period_ns),
    )
    .map_err(failed);
    shared.ready.wait();
    let (_, mut schedule): (_, Periodic<PosixClock, AbsoluteSleep>) = prepared?;
    let period = NonZeroU64::new(plan.period_ns).ok_or_else(|| {
        failed(MeasureError::Config(rtlat_core::Error::ZeroInterval(
            "the period",
        )))
    })?;
    let mut work = Servo {
        monitor: JitterMonitor::new(period),
        scale: schedule.scale(),
        last_interval: 0,
        cumulative_error: 0,
        lateness: Summary::new(),
        first_lateness: None,
        last_lateness: None,
        live,
        worst: &shared.worst[index],
        max_jitter: None,
        previous: (0, 0, 0),
        pushed: None,
    };
    let (result, measured) = measure(&mut schedule, &shared.stop, &mut work, allocations);
    result.map_err(failed)?;
    let jitter = work.monitor.report();
    Ok(Report {
        last_interval_ns: (jitter.ticks > 1).then_some(work.last_interval),
        jitter,
        overruns: schedule.overruns(),
        cumulative_error_ns: work.cumulative_error,
        last_lateness_ns: work.last_lateness,
        lateness: work.lateness,
        first_lateness_ns: work.first_lateness,
        allocations: measured.allocations,
        minor_faults: measured.minor_faults,
    })
}

/// This mode's per-cycle work (per run of the thread).
struct Servo<'a> {
    monitor: JitterMonitor,
    scale: TickScale,
    last_interval: u64,
    cumulative_error: i64,
    lateness: Summary,
    first_lateness: Option<i64>,
    last_lateness: Option<i64>,
    live: &'a LiveStatus,
    worst: &'a SampleRing,
    /// The max jitter before this run.
    max_jitter: Option<u64>,
    /// The previous run's (tick, lateness, wake-up ns).
    previous: (u64, i64, u64),
    /// The tick last pushed into `worst`.
    pushed: Option<u64>,
}

impl<C: Clock, T: Timer> PerCycle<C, T, BackToBack> for Servo<'_> {
    /// The engine records each run's lateness (its start minus its deadline).
    type Recorder = Summary;

    #[inline(always)]
    fn recorder(&mut self) -> &mut Summary {
        &mut self.lateness
    }

    #[inline(always)]
    fn after(&mut self, run: Sample, _: bool, schedule: &CycleEngine<C, T, BackToBack>) -> Flow {
        let wake_ns = self.scale.to_ns(run.wake_ticks);
        let tick = self.monitor.tick(wake_ns);
        if let Some(interval) = tick.interval {
            self.last_interval = interval;
            self.cumulative_error = self
                .cumulative_error
                .saturating_add(tick.jitter.unwrap_or(0));
        }
        self.first_lateness.get_or_insert(run.latency_ns);
        self.last_lateness = Some(run.latency_ns);
        let report = self.monitor.report();
        let this = (report.ticks.saturating_sub(1), run.latency_ns, wake_ns);
        if report.max_jitter_ns > self.max_jitter {
            // A long interval ends with the late wake-up; a short one starts with it.
            let late = if tick.jitter.is_some_and(|j| j < 0) {
                self.previous
            } else {
                this
            };
            // A late wake-up ends a long interval and starts a short one: pushed once.
            if self.pushed != Some(late.0) {
                self.worst.push(late.0, late.1, late.2);
                self.pushed = Some(late.0);
            }
            self.max_jitter = report.max_jitter_ns;
        }
        self.previous = this;
        self.live.publish(&LiveFigures {
            cycles: report.ticks,
            min_ns: report.min_interval_ns.unwrap_or(0) as i64,
            act_ns: self.last_interval as i64,
            max_ns: report.max_interval_ns.unwrap_or(0) as i64,
            sum_ns: 0,
            overruns: schedule.overruns(),
            smis: 0,
        });
        Flow::Go
    }
}
