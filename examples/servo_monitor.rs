//! A servo loop with the jitter monitor embedded: what LinuxCNC's latency-test reports for
//! its servo thread, from inside your own loop. Runs 1 ms periods for two seconds.
//!
//! `cargo run --release --example servo_monitor`

use rtlat_core::{DefaultHistogram, JitterMonitor};
use std::num::NonZeroU64;
use std::time::{Duration, Instant};

fn main() {
    let period = Duration::from_millis(1);
    let mut monitor =
        JitterMonitor::new(NonZeroU64::new(period.as_nanos() as u64).expect("non-zero period"));
    let mut lateness = DefaultHistogram::default();
    let origin = Instant::now();
    let mut next = origin;
    for _ in 0..2000 {
        // The servo loop's work would be here; the monitor only needs the time at the top.
        monitor.tick_into(origin.elapsed().as_nanos() as u64, &mut lateness);
        next += period;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let r = monitor.report();
    println!(
        "servo thread: period {} ns, {} ticks, {} overruns",
        r.period_ns, r.ticks, r.overruns
    );
    println!(
        "max interval {} ns, max jitter {} ns",
        r.max_interval_ns.unwrap_or(0),
        r.max_jitter_ns.unwrap_or(0)
    );
    println!(
        "lateness p50 {} ns, p99 {} ns, max {} ns",
        lateness.percentile(50.0).unwrap_or(0),
        lateness.percentile(99.0).unwrap_or(0),
        lateness.max().unwrap_or(0)
    );
}
