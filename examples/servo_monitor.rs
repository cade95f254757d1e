//! A servo thread with the jitter monitor embedded, as LinuxCNC's latency-test reports it:
//! SCHED_FIFO, memory locked, absolute sleeps through the core's cycle engine. The main thread
//! prints the servo's figures while it runs, read through a sequence lock: the servo never
//! waits for it. Needs root; without it says so in one line and exits 1.
//!
//! `sudo cargo run --release --example servo_monitor -- [PERIODS [PERIOD_US]]` (default 2000 1000)

use rtlat::exit_status::BAD_INPUT;
use rtlat_core::{CycleConfig, CycleEngine, DefaultHistogram as Histogram, JitterMonitor, Outcome};
use rtlat_linux::{AbsoluteSleep, ClockId, Policy, PosixClock, ThreadSetup, lock_memory};
use std::sync::atomic::{AtomicU64, Ordering::*, fence};
use std::{error::Error, fmt::Display, num::NonZeroU64, process::ExitCode};
use std::{sync::Arc, thread, time::Duration};

/// `[ticks, max jitter ns, overruns]` behind a sequence lock: the one writer makes `seq` odd
/// while it stores, and a reader retries until it sees the same even `seq` before and after.
#[derive(Default)]
struct Snapshot {
    seq: AtomicU64,
    words: [AtomicU64; 3],
}

impl Snapshot {
    fn publish(&self, words: [u64; 3]) {
        let s = self.seq.load(Relaxed);
        self.seq.store(s + 1, Relaxed);
        fence(Release);
        (0..3).for_each(|i| self.words[i].store(words[i], Relaxed));
        self.seq.store(s + 2, Release);
    }
    fn read(&self) -> [u64; 3] {
        loop {
            let before = self.seq.load(Acquire);
            let words = [0, 1, 2].map(|i| self.words[i].load(Relaxed));
            fence(Acquire);
            if before.is_multiple_of(2) && self.seq.load(Relaxed) == before {
                return words;
            }
            std::hint::spin_loop();
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<u64> = Vec::from_iter(
        std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .map(|a| a.parse().unwrap_or(0)),
    );
    let periods = *args.first().unwrap_or(&2000);
    let period_us = *args.get(1).unwrap_or(&1000);
    if args.len() > 2 || periods == 0 || !(1..=1_000_000).contains(&period_us) {
        let given: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        eprintln!("servo_monitor: bad arguments {given:?}: PERIODS ≥ 1 and 1 ≤ PERIOD_US ≤ 10⁶");
        return ExitCode::from(BAD_INPUT);
    }
    // Process-wide, before the servo thread starts, so its stack is locked too.
    if let Err(e) = lock_memory() {
        return fail(e);
    }
    let period = NonZeroU64::new(period_us * 1_000).expect("checked above");
    let snapshot = Arc::new(Snapshot::default());
    let out = Arc::clone(&snapshot);
    let servo = thread::spawn(move || servo(periods, period, &out));
    loop {
        thread::sleep(Duration::from_millis(200));
        if servo.is_finished() {
            break;
        }
        let [ticks, jitter, overruns] = snapshot.read(); // never makes the servo wait
        println!("live: {ticks} ticks, max jitter {jitter} ns, {overruns} overruns");
    }
    let (monitor, lateness) = match servo.join().expect("the servo thread does not panic") {
        Ok(done) => done,
        Err(e) => return fail(e),
    };
    let (r, p) = (monitor.report(), |q| lateness.percentile(q).unwrap_or(0));
    let (period, ticks, overruns) = (r.period_ns, r.ticks, r.overruns);
    println!("servo thread: period {period} ns, {ticks} ticks, {overruns} overruns");
    let (interval, jitter) = (r.max_interval_ns.unwrap_or(0), r.max_jitter_ns.unwrap_or(0));
    println!("max interval {interval} ns, max jitter {jitter} ns");
    let (p50, p99, max) = (p(50.0), p(99.0), lateness.max().unwrap_or(0));
    println!("lateness p50 {p50} ns, p99 {p99} ns, max {max} ns");
    ExitCode::SUCCESS
}

type Done = Result<(JitterMonitor, Histogram), Box<dyn Error + Send + Sync>>;

/// The servo thread: SCHED_FIFO 90, then one monitored wake-up per period.
fn servo(periods: u64, period: NonZeroU64, out: &Snapshot) -> Done {
    ThreadSetup::new(Policy::Fifo, 90).apply()?;
    let (clock, mut config) = (PosixClock::monotonic(), CycleConfig::new(period.get()));
    config.loops = Some(periods);
    let mut engine = CycleEngine::new(clock, AbsoluteSleep::new(ClockId::Monotonic), config)?;
    let (mut monitor, mut lateness) = (JitterMonitor::new(period), Histogram::default());
    while let Outcome::Sample(s) = engine.step(&mut ())? {
        // The servo's work would be here; the monitor only needs the time at the top.
        monitor.tick_into(s.wake_ticks, &mut lateness); // ticks are ns on a POSIX clock
        let r = monitor.report();
        out.publish([r.ticks, r.max_jitter_ns.unwrap_or(0), r.overruns]);
    }
    Ok((monitor, lateness))
}

fn fail(e: impl Display) -> ExitCode {
    eprintln!("servo_monitor: {e}");
    ExitCode::FAILURE
}
