//! The measuring threads of `rtlat run` and `rtlat monitor`: each thread's
//! [`MeasurePlan`] from the options and the plan ([`measure_plans`]), run by rtlat-engine with
//! this program's allocation count (its counting allocator), so every run shows that its
//! threads allocated nothing while measuring ([`run_thread`]).

use rtlat_engine::OnThread;
use rtlat_engine::run::{MeasurePlan, RunHistogram, RunShared, ThreadReport, new_run_histogram};
use rtlat_engine::setup::Setup;
use rtlat_engine::timers::ClockSource;
use rtlat_linux::ClockId;

use super::options::{Align, Clock, Plan, RunConfig, Unit};

/// Bytes of each measurement thread's stack written before the run.
const STACK_PREFAULT: usize = 32 * 1024;

/// Runs one measuring thread to the end of the run ([`rtlat_engine::run::run_thread`]).
pub fn run_thread(
    plan: &MeasurePlan,
    shared: &RunShared,
    histogram: Option<Box<RunHistogram>>,
) -> Result<ThreadReport, OnThread> {
    rtlat_engine::run::run_thread(plan, shared, histogram, crate::allocations::this_thread)
}

/// The log-linear histogram a thread keeps when the run's output reads it: the JSON file
/// (percentiles, the distribution) and `-h`/`-H`'s percentile lines. Without either the thread
/// keeps the exact count, minimum, maximum and sum alone, and its loop pays nothing for
/// buckets nobody reads.
pub fn kept_histogram(config: &RunConfig) -> Option<Box<RunHistogram>> {
    (config.json.is_some() || config.histogram.is_some()).then(new_run_histogram)
}

/// Each thread's plan for the engine: its CPU, policy and priority, interval, end, timer and
/// clock, histogram and spike settings, as the options and `plan` say.
pub fn measure_plans(
    config: &RunConfig,
    plan: &Plan,
    policy: rtlat_linux::Policy,
) -> Vec<MeasurePlan> {
    let unit_ns: u64 = if config.unit == Unit::Ns { 1 } else { 1000 };
    plan.threads
        .iter()
        .map(|t| MeasurePlan {
            index: t.index as usize,
            setup: Setup {
                cpu: Some(t.cpu),
                policy,
                priority: i32::from(t.priority),
                prefault_stack: STACK_PREFAULT,
            },
            interval_ns: t.interval_us * 1000,
            loops: (config.loops > 0).then_some(config.loops),
            duration_ns: config
                .duration
                .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            // cyclictest compares the latency truncated to the display unit: `> b` there is
            // `>= (b + 1) units` here.
            break_above_ns: config.breaktrace.map(|b| ((b + 1) * unit_ns - 1) as i64),
            timer: config.timer,
            // Only the JSON file has the per-second time series.
            seconds_series: config.json.is_some(),
            clock: config.backend.clock(
                match config.clock {
                    Clock::Monotonic => ClockSource::Posix(ClockId::Monotonic),
                    Clock::Realtime => ClockSource::Posix(ClockId::Realtime),
                    #[cfg(target_arch = "aarch64")]
                    Clock::Cntvct => ClockSource::Counter,
                },
                i32::from(t.priority),
                Some(t.cpu),
            ),
            linear: config.histogram.map(|h| (h.buckets as usize, unit_ns)),
            aligned_offset_ns: match config.align {
                Some(Align::Aligned { offset_us }) => Some(offset_us * 1000 * t.index as u64),
                Some(Align::SecAligned { offset_us }) => Some(offset_us * 1000),
                None => None,
            },
            display_unit_ns: unit_ns,
            spike_above_ns: config.spike.map(|s| ((s + 1) * unit_ns - 1) as i64),
            spike_nodes: config.spike_nodes as usize,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_engine::run::{MeasurePlan, RunShared, ThreadReport, new_run_histogram};
    use rtlat_engine::setup::Setup;
    use rtlat_engine::timers::ClockSource;
    use rtlat_linux::{ClockId, Policy, TimerKind};
    use std::sync::atomic::Ordering;

    fn shared(threads: usize) -> RunShared {
        RunShared::new(threads, false, rtlat_engine::rings::RING_CAPACITY)
    }

    fn plan() -> MeasurePlan {
        MeasurePlan {
            index: 0,
            setup: Setup {
                cpu: None,
                policy: Policy::Other,
                priority: 0,
                prefault_stack: 16 * 1024,
            },
            interval_ns: 100_000,
            loops: Some(50),
            duration_ns: None,
            break_above_ns: None,
            timer: TimerKind::Absolute,
            clock: ClockSource::Posix(ClockId::Monotonic),
            linear: Some((100, 1000)),
            aligned_offset_ns: None,
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
        let mut plan = plan();
        plan.setup.prefault_stack = 8 << 20;
        let result = std::thread::scope(|s| {
            let worker = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(s, || run_thread(&plan, &shared, Some(new_run_histogram())))
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
            let worker = s.spawn(|| run_thread(plan, shared, Some(new_run_histogram())));
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
        assert_eq!(report.histogram.as_ref().map(|h| h.count()), Some(50));
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
            clock: ClockSource::Counter,
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
