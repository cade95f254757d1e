//! A LinuxCNC-style servo thread with the lock-free jitter monitor embedded: SCHED_FIFO,
//! memory locked, absolute sleeps on the core's periodic schedule (a late run makes the
//! missed periods run back to back, as LinuxCNC does), each run ticking the monitor with
//! its own deadline. The main thread prints the window of the last second as cyclictest's
//! `T:` line and the `J:` interval line; the servo never waits for it. Needs root; without
//! it says so in one line and exits 1.
//!
//! `sudo cargo run --release -p rtlat-examples --example servo_monitor -- [LOOPS [INTERVAL_US]]` (default 2000 1000)

use rtlat_core::report::{CyclictestLine, JitterLine};
use rtlat_core::{CycleConfig, DefaultHistogram, Periodic, SharedJitterMonitor};
use rtlat_linux::{AbsoluteSleep, ClockId, Policy, PosixClock, ThreadSetup, lock_memory};
use std::time::{Duration, Instant};
use std::{error::Error, fmt::Display, num::NonZeroU64, process::ExitCode, sync::Arc, thread};

/// Exit status 2, bad input refused before anything ran: rtlat's own
/// (`rtlat::exit_status::BAD_INPUT`), defined here as this package depends on the core and
/// the backends only.
const BAD_INPUT: u8 = 2;

type Done = Result<(DefaultHistogram, Duration), Box<dyn Error + Send + Sync>>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let number = |i: usize, default| args.get(i).map_or(Some(default), |a| a.parse().ok());
    let (loops, interval_us) = match (number(0, 2000), number(1, 1000)) {
        (Some(l), Some(i)) if args.len() <= 2 && l > 0 && (1..=1_000_000).contains(&i) => (l, i),
        _ => {
            eprintln!("servo_monitor: bad arguments {args:?}: LOOPS ≥ 1 and 1 ≤ INTERVAL_US ≤ 10⁶");
            return ExitCode::from(BAD_INPUT);
        }
    };
    // Process-wide, before the servo thread starts, so its stack is locked too.
    if let Err(e) = lock_memory() {
        return fail(e);
    }
    let sleep = AbsoluteSleep::new(ClockId::Monotonic);
    let config = CycleConfig::new(interval_us * 1000);
    let schedule = match Periodic::with_policy(PosixClock::monotonic(), sleep, config) {
        Ok(schedule) => schedule,
        Err(e) => return fail(e),
    };
    // The monitor counts the clock's ticks and converts to ns only when a report is made.
    let period = NonZeroU64::new(schedule.interval_ticks()).expect("checked by the engine");
    let monitor = Arc::new(SharedJitterMonitor::with_scale(period, schedule.scale()));
    let servo = {
        let monitor = Arc::clone(&monitor);
        thread::spawn(move || servo(schedule, loops, &monitor))
    };
    let (mut ticks, mut overruns, mut max_jitter, mut second) = (0, 0, 0, Instant::now());
    let mut print = |window: rtlat_core::JitterReport| {
        println!("{}", CyclictestLine::from_jitter(0, &window));
        println!("{}", JitterLine::from_report(0, &window));
        (ticks, overruns) = (ticks + window.ticks, overruns + window.overruns);
        max_jitter = max_jitter.max(window.max_jitter_ns.unwrap_or(0));
    };
    while !servo.is_finished() {
        thread::sleep(Duration::from_millis(50));
        if second.elapsed() >= Duration::from_secs(1) {
            second += Duration::from_secs(1);
            print(monitor.report_and_reset()); // never makes the servo wait
        }
    }
    let (lateness, worst_tick) = match servo.join().expect("the servo thread does not panic") {
        Ok(done) => done,
        Err(e) => return fail(e),
    };
    print(monitor.report_and_reset());
    let p = |q| lateness.percentile(q).unwrap_or(0);
    let period = monitor.period_ns();
    println!("servo thread: period {period} ns, {ticks} ticks, {overruns} overruns");
    println!(
        "max jitter {max_jitter} ns, worst tick_at {} ns",
        worst_tick.as_nanos()
    );
    let (p50, p99, max) = (p(50.0), p(99.0), lateness.max().unwrap_or(0));
    println!("lateness p50 {p50} ns, p99 {p99} ns, max {max} ns");
    ExitCode::SUCCESS
}

type Schedule = Periodic<PosixClock, AbsoluteSleep>;

/// The servo thread: SCHED_FIFO 90, one monitored run per period (and, for the summary, a
/// lateness histogram and the worst `tick_at` time).
fn servo(mut schedule: Schedule, loops: u64, m: &SharedJitterMonitor) -> Done {
    ThreadSetup::new(Policy::Fifo, 90).apply()?;
    let (mut lateness, mut worst) = (DefaultHistogram::default(), Duration::ZERO);
    for _ in 0..loops {
        let run = schedule.wait()?;
        // The servo's work would be here; the monitor needs the run's start and deadline.
        let before = Instant::now();
        let tick = m.tick_at(run.start_ticks, run.deadline_ticks);
        worst = worst.max(before.elapsed());
        lateness.record(schedule.scale().to_ns_signed(tick.lateness.unwrap_or(0)));
    }
    Ok((lateness, worst))
}

fn fail(e: impl Display) -> ExitCode {
    eprintln!("servo_monitor: {e}");
    ExitCode::FAILURE
}
