//! The base and servo threads: each set up once (CPU, SCHED_FIFO, stack prefault), then a
//! loop of rtlat-core's [`Periodic`] schedule (LinuxCNC's: sleep to the next deadline, the
//! previous one plus the period; a deadline already passed is run at once, so missed periods
//! run back to back and none is skipped) and [`JitterMonitor::tick`] with the start of each
//! run; its figures leave through [`LiveStatus`], a sequence lock the thread never waits on.
//! No allocation, lock, formatting or system call but the sleep and the clock reads inside
//! the loop.

use std::num::NonZeroU64;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

use rtlat_core::{JitterMonitor, JitterReport, Periodic, Record, Summary};
use rtlat_linux::{AbsoluteSleep, ClockId, PageFaults, Policy, PosixClock, ThreadSetup};

use crate::cli::run::live::{LiveFigures, LiveStatus};

/// How one thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `base` or `servo`.
    pub name: &'static str,
    /// Period, ns.
    pub period_ns: u64,
    /// CPU to pin to.
    pub cpu: Option<usize>,
    /// Policy (SCHED_FIFO for the command).
    pub policy: Policy,
    /// Priority.
    pub priority: i32,
    /// Stack bytes to prefault.
    pub prefault_stack: usize,
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
}

impl Shared {
    /// State for `threads` threads.
    pub fn new(threads: usize) -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            ready: Barrier::new(threads + 1),
            live: (0..threads).map(|_| LiveStatus::default()).collect(),
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
pub fn run_thread(plan: &Plan, index: usize, shared: &Shared) -> Result<Report, String> {
    let live = &shared.live[index];
    let _ending = Ending {
        stop: &shared.stop,
        live,
    };
    let failed = |e: String| format!("{} thread: {e}", plan.name);
    let prepared = prepare(plan, live).map_err(failed);
    shared.ready.wait();
    let mut schedule = prepared?;
    let period = NonZeroU64::new(plan.period_ns).ok_or_else(|| failed("zero period".into()))?;
    let mut monitor = JitterMonitor::new(period);
    let scale = schedule.scale();
    let mut last_interval = 0u64;
    let mut cumulative_error = 0i64;
    let mut lateness = Summary::new();
    let mut first_lateness = None;
    let mut last_lateness = None;

    let faults_start = PageFaults::current().map(|f| f.minor).unwrap_or(0);
    let allocations_start = crate::allocations::this_thread();
    let result = loop {
        if shared.stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        let run = match schedule.wait() {
            Ok(run) => run,
            // The run ended while the thread slept: the interrupted tick is not seen.
            Err(rtlat_core::Error::Timer(rtlat_linux::SleepError::Cancelled)) => break Ok(()),
            Err(e) => break Err(failed(e.to_string())),
        };
        let tick = monitor.tick(scale.to_ns(run.start_ticks));
        if let Some(interval) = tick.interval_ns {
            last_interval = interval;
            cumulative_error = cumulative_error.saturating_add(tick.jitter_ns.unwrap_or(0));
        }
        lateness.record(run.lateness_ns);
        first_lateness.get_or_insert(run.lateness_ns);
        last_lateness = Some(run.lateness_ns);
        let report = monitor.report();
        live.publish(&LiveFigures {
            cycles: report.ticks,
            min_ns: report.min_interval_ns.unwrap_or(0) as i64,
            act_ns: last_interval as i64,
            max_ns: report.max_interval_ns.unwrap_or(0) as i64,
            sum_ns: 0,
            overruns: schedule.overruns(),
        });
    };
    let allocations = crate::allocations::this_thread() - allocations_start;
    let minor_faults = PageFaults::current()
        .map(|f| f.minor.saturating_sub(faults_start))
        .unwrap_or(0);
    result?;
    let jitter = monitor.report();
    Ok(Report {
        last_interval_ns: (jitter.ticks > 1).then_some(last_interval),
        jitter,
        overruns: schedule.overruns(),
        cumulative_error_ns: cumulative_error,
        last_lateness_ns: last_lateness,
        lateness,
        first_lateness_ns: first_lateness,
        allocations,
        minor_faults,
    })
}

type Schedule = Periodic<PosixClock, AbsoluteSleep>;

fn prepare(plan: &Plan, live: &LiveStatus) -> Result<Schedule, String> {
    rtlat_linux::signals::block_run_signals().map_err(|e| e.to_string())?;
    let mut setup = ThreadSetup::new(plan.policy, plan.priority);
    setup.cpus = plan.cpu.into_iter().collect();
    setup.prefault_stack = plan.prefault_stack;
    live.set_tid(setup.apply().map_err(|e| e.to_string())?);
    Periodic::new(
        PosixClock::new(ClockId::Monotonic),
        AbsoluteSleep::new(ClockId::Monotonic),
        plan.period_ns,
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_threads_measure_intervals_and_allocate_nothing() {
        let shared = Shared::new(2);
        let plans = [
            Plan {
                name: "base",
                period_ns: 200_000,
                cpu: None,
                policy: Policy::Other,
                priority: 0,
                prefault_stack: 16 * 1024,
            },
            Plan {
                name: "servo",
                period_ns: 1_000_000,
                cpu: None,
                policy: Policy::Other,
                priority: 0,
                prefault_stack: 16 * 1024,
            },
        ];
        let reports: Vec<Report> = std::thread::scope(|s| {
            let workers: Vec<_> = plans
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let shared = &shared;
                    std::thread::Builder::new()
                        .stack_size(256 * 1024)
                        .spawn_scoped(s, move || run_thread(p, i, shared))
                        .unwrap()
                })
                .collect();
            shared.ready.wait();
            std::thread::sleep(std::time::Duration::from_millis(300));
            shared.stop.store(true, Ordering::Release);
            workers
                .into_iter()
                .map(|w| w.join().unwrap().unwrap())
                .collect()
        });
        for (plan, (r, live)) in plans.iter().zip(reports.iter().zip(&shared.live)) {
            assert_eq!(
                r.allocations, 0,
                "{}: nothing allocated while measuring",
                plan.name
            );
            assert!(r.jitter.ticks > 10, "{}: {r:?}", plan.name);
            let (min, max) = (
                r.jitter.min_interval_ns.unwrap(),
                r.jitter.max_interval_ns.unwrap(),
            );
            assert!(min <= max);
            let p = plan.period_ns;
            assert_eq!(
                r.jitter.max_jitter_ns,
                Some(max.saturating_sub(p).max(p.saturating_sub(min)))
            );
            // Every period run: the intervals add up to the periods plus the difference
            // between the last and the first run's lateness.
            assert_eq!(
                Some(r.cumulative_error_ns),
                r.last_lateness_ns
                    .zip(r.first_lateness_ns)
                    .map(|(last, first)| last - first),
                "{}: {r:?}",
                plan.name
            );
            assert_eq!(r.lateness.count(), r.jitter.ticks);
            // The last published figures are the final ones.
            let f = Figures::from_live(&live.read(), p);
            assert_eq!(f, Figures::from_report(r));
            assert!(live.finished());
        }
    }
}
