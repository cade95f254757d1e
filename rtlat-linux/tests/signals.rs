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
