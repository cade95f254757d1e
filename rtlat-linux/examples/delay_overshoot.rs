//! How late does `DelayNs::delay_us` wake on this Linux? rtlat-core's `DelayProbe` calls an
//! rtlat-linux timer's embedded-hal 1.0 `delay_us` again and again, timed on
//! CLOCK_MONOTONIC, and prints the summary of the overshoots (elapsed − requested) from a
//! histogram. No privileges needed: it runs with the scheduling it was started with (try it
//! under `chrt -f 80` to see what a real-time thread gets).
//!
//! `cargo run --release -p rtlat-linux --example delay_overshoot -- [DELAY_US [COUNT [TIMER]]]`
//! (default 100 1000 absolute; TIMER: absolute, relative, nanosleep, posix, timerfd)

use std::process::ExitCode;

use rtlat_core::DefaultHistogram;
use rtlat_core::delay::{DelayProbe, DelayRequest};
use rtlat_linux::{AnyTimer, ClockId, PosixClock, TimerKind};

fn main() -> ExitCode {
    // Arguments that are not UTF-8 are bad input too (shown lossily), never a panic.
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_str().map_or_else(|| format!("{a:?}"), str::to_owned))
        .collect();
    let number = |i: usize, default: u32| args.get(i).map_or(Some(default), |a| a.parse().ok());
    let kind = args
        .get(2)
        .map_or(Ok(TimerKind::Absolute), |a| a.parse::<TimerKind>());
    let (Some(delay_us @ 1..), Some(count @ 1..), Ok(kind), ..=3) =
        (number(0, 100), number(1, 1_000), kind, args.len())
    else {
        eprintln!(
            "delay_overshoot: bad arguments {args:?}: [DELAY_US ≥ 1 [COUNT ≥ 1 [TIMER]]], \
             TIMER one of absolute, relative, nanosleep, posix, timerfd"
        );
        return ExitCode::from(2);
    };
    match measure(delay_us, count, kind) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delay_overshoot: {e}");
            ExitCode::FAILURE
        }
    }
}

fn measure(delay_us: u32, count: u32, kind: TimerKind) -> Result<(), Box<dyn std::error::Error>> {
    let mut delay = AnyTimer::new(kind, ClockId::Monotonic, u64::from(delay_us) * 1_000)?;
    let mut probe = DelayProbe::new(PosixClock::monotonic())?;
    // ±34 s at 0.78 % error, 15 KiB: no overshoot falls outside it.
    let mut histogram = DefaultHistogram::empty();
    probe.measure(
        &mut delay,
        DelayRequest::Us(delay_us),
        u64::from(count),
        &mut histogram,
    )?;
    let [p50, p99, p999] = histogram.percentiles([50.0, 99.0, 99.9]);
    let ns = |v: Option<i64>| v.map_or_else(|| "-".to_owned(), |v| v.to_string());
    println!("# delay_us({delay_us}) × {count} on the {kind} timer, overshoot in ns");
    println!(
        "count {} min {} p50 {} p99 {} p99.9 {} max {} mean {}",
        histogram.count(),
        ns(histogram.min()),
        ns(p50),
        ns(p99),
        ns(p999),
        ns(histogram.max()),
        ns(histogram.summary().mean_truncated()),
    );
    Ok(())
}
