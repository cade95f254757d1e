//! The cycle loop on the ARM64 generic-timer counter (`CNTVCT_EL0`): the core's cycle engine
//! with rtlat-arm64's `GenericTimer` clock and `GenericTimerSleep` (absolute
//! `clock_nanosleep`, deadlines translated from counter ticks), on a SCHED_FIFO thread with
//! memory locked. aarch64 Linux only; elsewhere it says so and exits 1. Needs root.
//!
//! On a board: `sudo ./counter_clock_loop [LOOPS [INTERVAL_US]]` (default 10000 1000). From an
//! x86_64 host: `cargo build -p rtlat-examples --example counter_clock_loop --target
//! aarch64-unknown-linux-gnu`, then `QEMU_LD_PREFIX=/usr/aarch64-linux-gnu qemu-aarch64
//! target/aarch64-unknown-linux-gnu/debug/examples/counter_clock_loop 500`.

use std::process::ExitCode;

/// Exit status 2, bad input refused before anything ran: rtlat's own
/// (`rtlat::exit_status::BAD_INPUT`), defined here as this package depends on the core and
/// the backends only.
#[cfg(all(target_arch = "aarch64", target_os = "linux"))]
const BAD_INPUT: u8 = 2;

#[cfg(all(target_arch = "aarch64", target_os = "linux"))]
fn main() -> ExitCode {
    let given: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let arg = |i: usize, default: u64| given.get(i).map_or(Some(default), |a| a.parse().ok());
    match (arg(0, 10_000), arg(1, 1_000)) {
        (Some(loops @ 1..), Some(interval_us @ 1..=1_000_000)) if given.len() <= 2 => {
            match measure(loops, interval_us) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(e),
            }
        }
        _ => {
            eprintln!(
                "counter_clock_loop: bad arguments {given:?}: LOOPS ≥ 1, 1 ≤ INTERVAL_US ≤ 10⁶"
            );
            ExitCode::from(BAD_INPUT)
        }
    }
}

#[cfg(all(target_arch = "aarch64", target_os = "linux"))]
fn measure(loops: u64, interval_us: u64) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rtlat_arm64::{GenericTimer, GenericTimerSleep};
    use rtlat_core::{CycleConfig, CycleEngine, DefaultHistogram};
    use rtlat_linux::{Policy, ThreadSetup, lock_memory};

    lock_memory()?;
    ThreadSetup::new(Policy::Fifo, 80).apply()?;
    let clock = GenericTimer::new()?;
    let mut timer = GenericTimerSleep::new(&clock)?;
    // Measure CLOCK_MONOTONIC against the counter once; a counter off its stated rate is refused.
    timer.calibrate(std::time::Duration::from_millis(100))??;
    let mut config = CycleConfig::new(interval_us * 1_000);
    config.loops = Some(loops);
    let mut engine = CycleEngine::new(clock, timer, config)?;
    let mut histogram = DefaultHistogram::default();
    engine.run(&mut histogram)?;
    let s = histogram.summary();
    let (min, avg, max) = (
        s.min().unwrap_or(0),
        s.mean_truncated().unwrap_or(0),
        s.max().unwrap_or(0),
    );
    println!(
        "counter at {} Hz, {} cycles of {interval_us} µs",
        clock.rate_hz(),
        engine.cycles()
    );
    println!(
        "min {min} ns, avg {avg} ns, max {max} ns, {} overruns",
        engine.overruns()
    );
    let early = engine.timer_mut().early_wakeups();
    println!("{early} wake-ups before the counter deadline, finished on the counter");
    Ok(())
}

#[cfg(all(target_arch = "aarch64", target_os = "linux"))]
fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("counter_clock_loop: {e}");
    ExitCode::FAILURE
}

#[cfg(not(all(target_arch = "aarch64", target_os = "linux")))]
fn main() -> ExitCode {
    let arch = rtlat_arm64::TARGET_ARCH;
    eprintln!(
        "counter_clock_loop: needs aarch64 Linux (the generic-timer counter); this is {arch}"
    );
    ExitCode::FAILURE
}
