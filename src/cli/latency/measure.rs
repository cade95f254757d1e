//! `rtlat latency`'s sampling thread: rtlat-engine's, with this program's allocation count
//! (its counting allocator).

use rtlat_engine::OnThread;
use rtlat_engine::latency::{Plan, Report, Shared};

/// Runs the sampling thread ([`rtlat_engine::latency::run_thread`]).
pub fn run_thread(plan: &Plan, shared: &Shared) -> Result<Report, OnThread> {
    rtlat_engine::latency::run_thread(plan, shared, crate::allocations::this_thread)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_engine::Window;
    use rtlat_engine::latency::{Plan, Shared};
    use rtlat_engine::setup::Setup;
    use rtlat_engine::timers::ClockSource;
    use rtlat_linux::{ClockId, Policy};
    use std::sync::atomic::Ordering;

    #[test]
    fn the_thread_warms_up_measures_and_allocates_nothing_while_measuring() {
        let shared = Shared::new();
        let plan = Plan {
            setup: Setup {
                cpu: None,
                policy: Policy::Other,
                priority: 0,
                prefault_stack: 16 * 1024,
            },
            period_ns: 1_000_000,
            cells: 100,
            bucket_ns: 1000,
            duration_s: None,
            clock: ClockSource::Posix(ClockId::Monotonic),
        };
        let (report, windows) = std::thread::scope(|s| {
            let worker = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(s, || run_thread(&plan, &shared))
                .unwrap();
            shared.ready.wait();
            // The warm-up second, one full second, and part of the next: until two seconds
            // (of 1000 wake-ups each, however long a loaded machine takes) are complete.
            let mut windows: Vec<Window> = Vec::new();
            let started = std::time::Instant::now();
            while windows.iter().filter(|w| w.complete).count() < 2
                && started.elapsed() < std::time::Duration::from_secs(60)
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
                shared.windows.drain(|w| windows.push(w));
            }
            std::thread::sleep(std::time::Duration::from_millis(300));
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
            setup: Setup {
                cpu: None,
                policy: Policy::Other,
                priority: 0,
                prefault_stack: 16 * 1024,
            },
            period_ns: 100_000_000,
            cells: 100,
            bucket_ns: 1000,
            duration_s: Some(1),
            clock: ClockSource::Posix(ClockId::Monotonic),
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
