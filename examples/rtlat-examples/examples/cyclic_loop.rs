//! A minimal cyclictest: one SCHED_FIFO thread sleeping to absolute deadlines on
//! CLOCK_MONOTONIC through the core's cycle engine, memory locked, latencies into a histogram,
//! then cyclictest's `T:` line and the min/avg/max. Needs root (or CAP_SYS_NICE and
//! CAP_IPC_LOCK); without it says so in one line and exits 1.
//!
//! `sudo cargo run --release -p rtlat-examples --example cyclic_loop -- [LOOPS [INTERVAL_US]]` (default 10000 1000)

use rtlat_core::report::CyclictestLine;
use rtlat_core::{CycleConfig, CycleEngine, DefaultHistogram, Outcome};
use rtlat_linux::{AbsoluteSleep, ClockId, Policy, PosixClock, ThreadSetup, lock_memory};
use std::process::ExitCode;

/// Exit status 2, bad input refused before anything ran: rtlat's own
/// (`rtlat::exit_status::BAD_INPUT`), defined here as this package depends on the core and
/// the backends only.
const BAD_INPUT: u8 = 2;

const PRIORITY: i32 = 80;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let parsed = match args.len() {
        0..=2 => positive(&args, 0, "LOOPS", 10_000)
            .and_then(|loops| Ok((loops, positive(&args, 1, "INTERVAL_US", 1_000)?))),
        _ => Err("too many arguments: [LOOPS [INTERVAL_US]] are accepted".into()),
    };
    let (loops, interval_us) = match parsed {
        Ok(v) => v,
        Err(msg) => return fail(msg, BAD_INPUT),
    };
    match measure(loops, interval_us) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => fail(msg, 1),
    }
}

fn measure(loops: u64, interval_us: u64) -> Result<(), String> {
    // Before the loop: lock memory, then make this thread SCHED_FIFO (stack prefaulted).
    lock_memory().map_err(|e| e.to_string())?;
    let tid = ThreadSetup::new(Policy::Fifo, PRIORITY)
        .apply()
        .map_err(|e| e.to_string())?;
    let clock = PosixClock::new(ClockId::Monotonic);
    let timer = AbsoluteSleep::new(ClockId::Monotonic);
    let config = CycleConfig {
        loops: Some(loops),
        ..CycleConfig::new(interval_us * 1_000)
    };
    let mut engine = CycleEngine::new(clock, timer, config).map_err(|e| e.to_string())?;
    let mut histogram = DefaultHistogram::default();
    let mut act_ns = 0;
    // The loop: sleep to the deadline, read the clock, record. Nothing else.
    while let Outcome::Sample(s) | Outcome::Break(s) =
        engine.step(&mut histogram).map_err(|e| e.to_string())?
    {
        act_ns = s.latency_ns;
    }
    let summary = histogram.summary();
    let (min_ns, max_ns) = (summary.min().unwrap_or(0), summary.max().unwrap_or(0));
    let avg_ns = summary.mean_truncated().unwrap_or(0);
    let line = CyclictestLine {
        thread: 0,
        tid,
        priority: PRIORITY,
        interval_us,
        cycles: engine.cycles(),
        min_ns,
        act_ns,
        avg_ns,
        max_ns,
        nanoseconds: false,
    };
    println!("{line}");
    println!(
        "min {min_ns} ns, avg {avg_ns} ns, max {max_ns} ns, p99 {} ns, {} overruns",
        histogram.percentile(99.0).unwrap_or(0),
        engine.overruns()
    );
    Ok(())
}

/// Argument `i` as a positive integer, `default` when absent.
fn positive(args: &[String], i: usize, name: &str, default: u64) -> Result<u64, String> {
    match args.get(i) {
        None => Ok(default),
        Some(s) => match s.parse::<u64>() {
            Ok(v) if v > 0 && v <= u64::MAX / 1_000 => Ok(v),
            _ => Err(format!("bad {name} '{s}': a positive integer is accepted")),
        },
    }
}

fn fail(msg: String, status: u8) -> ExitCode {
    eprintln!("cyclic_loop: {msg}");
    ExitCode::from(status)
}
