//! rtlat-engine's measuring loop with a front's own per-cycle work: `measure` sleeps to each
//! deadline, reads the clock and records into the recorder the work hands it; the work (a
//! `PerCycle`) then sees each sample and says whether the loop goes on. Here it counts the
//! wake-ups later than 100 µs and stops after LOOPS cycles. On a SCHED_FIFO thread with
//! memory locked, CLOCK_MONOTONIC and absolute sleeps (rtlat-linux). Needs root (or
//! CAP_SYS_NICE and CAP_IPC_LOCK); without it says so in one line and exits 1.
//!
//! `sudo cargo run --release -p rtlat-examples --example engine_measure -- [LOOPS [INTERVAL_US]]`
//! (default 10000 1000)

use rtlat_core::{Clock, CycleConfig, CycleEngine, DefaultHistogram, Missed, Sample, Timer};
use rtlat_engine::measure::{Flow, PerCycle, measure};
use rtlat_linux::{AbsoluteSleep, ClockId, Policy, PosixClock, ThreadSetup, lock_memory};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

/// Exit status 2, bad input refused before anything ran: rtlat's own
/// (`rtlat::exit_status::BAD_INPUT`), defined here as this package depends on the core and
/// the backends only.
const BAD_INPUT: u8 = 2;

const PRIORITY: i32 = 80;

/// A wake-up later than this is counted as late, ns.
const LATE_NS: i64 = 100_000;

/// The work per cycle: the histogram the engine records into, the late wake-ups counted.
struct CountLate {
    histogram: DefaultHistogram,
    late: u64,
    loops: u64,
}

impl<C: Clock, T: Timer, M: Missed> PerCycle<C, T, M> for CountLate {
    type Recorder = DefaultHistogram;

    fn recorder(&mut self) -> &mut DefaultHistogram {
        &mut self.histogram
    }

    fn after(&mut self, sample: Sample, _broke: bool, engine: &CycleEngine<C, T, M>) -> Flow {
        self.late += u64::from(sample.latency_ns > LATE_NS);
        if engine.cycles() >= self.loops {
            Flow::Stop
        } else {
            Flow::Go
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let number = |i: usize, default| args.get(i).map_or(Some(default), |a| a.parse().ok());
    let (loops, interval_us) = match (number(0, 10_000), number(1, 1_000)) {
        (Some(l), Some(i)) if args.len() <= 2 && l > 0 && (1..=1_000_000).contains(&i) => (l, i),
        _ => {
            eprintln!("engine_measure: bad arguments {args:?}: LOOPS ≥ 1, 1 ≤ INTERVAL_US ≤ 10⁶");
            return ExitCode::from(BAD_INPUT);
        }
    };
    match run(loops, interval_us) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("engine_measure: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(loops: u64, interval_us: u64) -> Result<(), Box<dyn std::error::Error>> {
    // Before the loop: lock memory, then make this thread SCHED_FIFO (stack prefaulted).
    lock_memory()?;
    ThreadSetup::new(Policy::Fifo, PRIORITY).apply()?;
    let clock = PosixClock::new(ClockId::Monotonic);
    let timer = AbsoluteSleep::new(ClockId::Monotonic);
    let config = CycleConfig::new(interval_us * 1_000);
    let mut engine = CycleEngine::new(clock, timer, config)?;
    let mut work = CountLate {
        histogram: DefaultHistogram::default(),
        late: 0,
        loops,
    };
    // Nothing sets `stop` here; a program would from a signal handler or another thread.
    // No counting allocator in this program: its allocations are reported as 0.
    let (result, measured) = measure(&mut engine, &AtomicBool::new(false), &mut work, || 0);
    result?;
    let summary = work.histogram.summary();
    println!(
        "{} cycles: min {} ns, avg {} ns, max {} ns, {} later than {} µs, {} overruns, \
         {} minor page faults while measuring",
        engine.cycles(),
        summary.min().unwrap_or(0),
        summary.mean_truncated().unwrap_or(0),
        summary.max().unwrap_or(0),
        work.late,
        LATE_NS / 1_000,
        engine.overruns(),
        measured.minor_faults
    );
    Ok(())
}
