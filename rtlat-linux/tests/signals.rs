//! The run's signal handling, in its own test binary (own process): handlers are process-wide
//! and would disturb the timer tests' own SIGUSR1 barrage.

use rtlat_linux::signals::{
    block_run_signals, install_run_handlers, request_stop, stop_requested, take_status_request,
};
use std::time::{Duration, Instant};

fn kill(signal: &str) {
    let pid = std::process::id().to_string();
    let status = std::process::Command::new("kill")
        .args([signal, &pid])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits up to 5 s for the status flag; returns whether it came (and clears it).
fn wait_for_status() -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if take_status_request() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    false
}

#[test]
fn sigusr1_asks_for_status_and_sigterm_stops_while_measurement_threads_block_them() {
    install_run_handlers().unwrap();
    // A "measurement thread" blocks the run's signals and must run through them untouched.
    let worker = std::thread::spawn(|| {
        block_run_signals().unwrap();
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(200));
        start.elapsed()
    });
    std::thread::sleep(Duration::from_millis(20));

    assert!(!take_status_request());
    kill("-USR1");
    assert!(wait_for_status(), "SIGUSR1 sets the status flag");
    assert!(!take_status_request(), "reading clears it");
    assert!(!stop_requested(), "SIGUSR1 does not stop the run");

    kill("-TERM");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !stop_requested() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        stop_requested(),
        "SIGTERM stops the run instead of killing the process"
    );
    assert!(
        worker.join().unwrap() >= Duration::from_millis(200),
        "the blocked thread's sleep was not cut short"
    );
    request_stop();
    assert!(stop_requested());
}

/// Issue 10, item 5: a measurement thread sleeping to a deadline an hour away (an interval
/// of an hour, or `--secaligned` far ahead) ends as soon as the run is cancelled, with every
/// kind of timer, and the interrupted cycle is not measured.
#[test]
fn cancel_measurement_ends_every_timer_s_sleep_at_once() {
    use rtlat_core::{CycleConfig, CycleEngine, Outcome};
    use rtlat_linux::signals::{cancel_measurement, measurement_cancelled};
    use rtlat_linux::{AnyTimer, ClockId, PosixClock, SleepError, TimerKind, gettid};
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

    const HOUR_NS: u64 = 3_600_000_000_000;
    install_run_handlers().unwrap();
    let tids: Vec<AtomicI32> = TimerKind::ALL.iter().map(|_| AtomicI32::new(0)).collect();
    let done: Vec<AtomicBool> = TimerKind::ALL
        .iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    let results = std::thread::scope(|scope| {
        let workers: Vec<_> = TimerKind::ALL
            .iter()
            .zip(tids.iter().zip(&done))
            .map(|(&kind, (tid, done))| {
                scope.spawn(move || {
                    block_run_signals().unwrap();
                    let timer = AnyTimer::new(kind, ClockId::Monotonic, HOUR_NS).unwrap();
                    let clock = PosixClock::new(ClockId::Monotonic);
                    let mut engine =
                        CycleEngine::new(clock, timer, CycleConfig::new(HOUR_NS)).unwrap();
                    tid.store(gettid(), Ordering::Release);
                    let result = engine.step(&mut ());
                    done.store(true, Ordering::Release);
                    (
                        kind,
                        result.map(|o| matches!(o, Outcome::Done)),
                        engine.cycles(),
                    )
                })
            })
            .collect();
        while tids.iter().any(|t| t.load(Ordering::Acquire) == 0) {
            std::thread::sleep(Duration::from_millis(1));
        }
        // Let them reach their sleeps; nothing ends them but the cancel.
        std::thread::sleep(Duration::from_millis(100));
        assert!(done.iter().all(|d| !d.load(Ordering::Acquire)));
        assert!(!measurement_cancelled());
        let deadline = Instant::now() + Duration::from_secs(10);
        while done.iter().any(|d| !d.load(Ordering::Acquire)) {
            assert!(Instant::now() < deadline, "a sleep was not cancelled");
            cancel_measurement(
                tids.iter()
                    .zip(&done)
                    .filter(|(_, d)| !d.load(Ordering::Acquire))
                    .map(|(t, _)| t.load(Ordering::Acquire)),
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        workers
            .into_iter()
            .map(|w| w.join().unwrap())
            .collect::<Vec<_>>()
    });
    assert!(measurement_cancelled());
    for (kind, result, cycles) in results {
        assert_eq!(
            result,
            Err(rtlat_core::Error::Timer(SleepError::Cancelled)),
            "{kind}"
        );
        assert_eq!(cycles, 0, "{kind}: the interrupted cycle is not measured");
    }
}
