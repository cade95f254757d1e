//! Xenomai `latency` in small: a periodic Alchemy task (priority 99) measuring how late it
//! wakes, through rtlat-core's cycle engine on this crate's clock and periodic timer, into a
//! histogram, one `RTD|` line per second. Build with `XENO_CONFIG` (README).
//!
//! `cargo run --example xenomai_latency -- [SECONDS [PERIOD_US]]` (default 3 100). Exit 2
//! when Xenomai cannot run here (built without it, or Cobalt without the core), 1 on failure.

use rtlat_core::report::XenomaiLine;
use rtlat_core::{CycleConfig, CycleEngine, DefaultHistogram, Outcome, Summary};
use rtlat_xenomai_ffi::{AlchemyClock, Error, init, spawn};
use std::process::ExitCode;

fn main() -> ExitCode {
    let arg = |i: usize, default: u64| {
        std::env::args_os()
            .nth(i)
            .map_or(Some(default), |a| a.to_str()?.parse().ok())
    };
    let (Some(seconds @ 1..), Some(period_us @ 1..=1_000_000)) = (arg(1, 3), arg(2, 100)) else {
        eprintln!("xenomai_latency: usage: xenomai_latency [SECONDS ≥ 1 [PERIOD_US 1..10⁶]]");
        return ExitCode::from(2);
    };
    if let Err(e) = init() {
        eprintln!("xenomai_latency: {e}");
        return ExitCode::from(2);
    }
    let task = spawn("xenomai_latency", 99, None, move |task| {
        measure(task, seconds, period_us)
    });
    match task.map(|t| t.join()) {
        Ok(Ok(Ok(Ok(())))) => ExitCode::SUCCESS,
        Ok(Ok(Ok(Err(e)))) | Ok(Err(e)) | Err(e) => {
            eprintln!("xenomai_latency: {e}");
            ExitCode::from(1)
        }
        Ok(Ok(Err(_panic))) => ExitCode::from(1),
    }
}

/// Runs on the Alchemy task: `seconds` lines of `1e9 / period` samples each.
fn measure(task: &rtlat_xenomai_ffi::Task, seconds: u64, period_us: u64) -> Result<(), Error> {
    let period_ns = period_us * 1_000;
    let clock = AlchemyClock::new()?;
    let timer = task.periodic_timer(period_ns)?;
    let mut engine = CycleEngine::new(clock, timer, CycleConfig::new(period_ns))
        .expect("a period of at least 1 µs on a ns clock");
    let mut histogram = DefaultHistogram::default();
    println!("RTT|  00:00:00  (periodic user-mode task, {period_us} us period, priority 99)");
    println!("RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst");
    for _ in 0..seconds {
        let mut second = Summary::new();
        for _ in 0..1_000_000_000 / period_ns {
            match engine.step(&mut (&mut second, &mut histogram)) {
                Ok(Outcome::Sample(_) | Outcome::Break(_) | Outcome::Done) => {}
                Err(rtlat_core::Error::Timer(e)) => return Err(e),
                Err(e) => unreachable!("the Alchemy clock cannot fail: {e:?}"),
            }
        }
        let line = XenomaiLine {
            min_ns: second.min().unwrap_or(0),
            avg_ns: second.mean_truncated().unwrap_or(0),
            max_ns: second.max().unwrap_or(0),
            overruns: engine.overruns(),
            mode_switches: task.info()?.mode_switches.unwrap_or(0) as u32,
            best_ns: histogram.min().unwrap_or(0),
            worst_ns: histogram.max().unwrap_or(0),
        };
        println!("{line}");
    }
    let xenomai_overruns = engine.timer_mut().take_overruns();
    println!(
        "# {} samples, Xenomai reported {xenomai_overruns} overruns",
        histogram.count()
    );
    Ok(())
}
