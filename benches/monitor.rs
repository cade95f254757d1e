//! The jitter monitor's cost per tick: the plain `JitterMonitor` against the lock-free
//! `SharedJitterMonitor` (criterion), then the writer's worst tick with no reader, with a
//! reader hammering `report()`, with one hammering `report_and_reset()`, and, for contrast,
//! the plain monitor behind a mutex with a reader hammering it (printed figures, not a
//! criterion measurement: a worst case is what a servo loop cares about).
//!
//! `cargo bench --bench monitor` (`-- --quick` for a short run).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group};
use rtlat_core::{JitterMonitor, SharedJitterMonitor};
use rtlat_linux::{Policy, ThreadSetup};
use std::num::NonZeroU64;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

const P: u64 = 1_000_000;
const TICKS: u64 = 1 << 12;

/// A loop's (start, deadline): 1 ms periods, 10–20 µs late.
fn runs() -> Vec<(u64, u64)> {
    (1..=TICKS)
        .map(|k| (k * P + 10_000 + (k * 7919) % 10_000, k * P))
        .collect()
}

fn per_tick(c: &mut Criterion) {
    let runs = runs();
    let period = NonZeroU64::new(P).unwrap();
    let mut group = c.benchmark_group("tick_at");
    group.throughput(Throughput::Elements(TICKS));
    group.bench_function(BenchmarkId::new("JitterMonitor", "plain"), |b| {
        b.iter(|| {
            let mut m = JitterMonitor::new(period);
            for &(now, deadline) in black_box(&runs) {
                black_box(m.tick_at(now, deadline));
            }
            m
        })
    });
    group.bench_function(BenchmarkId::new("SharedJitterMonitor", "lock-free"), |b| {
        b.iter(|| {
            let m = SharedJitterMonitor::new(period);
            for &(now, deadline) in black_box(&runs) {
                black_box(m.tick_at(now, deadline));
            }
            m
        })
    });
    group.finish();
}

criterion_group!(benches, per_tick);

/// A writer under test: the lock-free monitor, or the plain one behind a mutex (what the std
/// "shared" monitor was: a reader holding the lock delays the writer), each with a reader.
#[derive(Clone, Copy)]
enum Setup {
    /// The lock-free writer, no reader.
    Alone,
    /// The lock-free writer, a reader hammering `report()`.
    Report,
    /// The lock-free writer, a reader hammering `report_and_reset()`.
    ReportAndReset,
    /// The plain monitor behind `std::sync::Mutex`, a reader hammering `report()` under it.
    Mutex,
}

impl Setup {
    const ALL: [Setup; 4] = [
        Setup::Alone,
        Setup::Report,
        Setup::ReportAndReset,
        Setup::Mutex,
    ];

    fn name(self) -> &'static str {
        match self {
            Setup::Alone => "lock-free, no reader",
            Setup::Report => "lock-free, a reader hammering report()",
            Setup::ReportAndReset => "lock-free, a reader hammering report_and_reset()",
            Setup::Mutex => "mutex, a reader hammering report()",
        }
    }
}

/// Pins the calling thread to `cpu` when the machine has it (a writer and its reader on two
/// CPUs, as a servo thread and a reporting thread would be).
fn pin(cpu: usize) {
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpu < online {
        let _ = rtlat_linux::set_affinity(&[cpu]);
    }
}

/// The writer's tick times (ns, each timed with two clock reads) over `n` ticks with `setup`'s
/// reader running on another CPU until the writer ends: (worst, 99.99th percentile).
fn writer_round(n: usize, setup: Setup) -> (u128, u128) {
    let shared = SharedJitterMonitor::new(NonZeroU64::new(P).unwrap());
    let locked = Mutex::new(JitterMonitor::new(NonZeroU64::new(P).unwrap()));
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (shared, locked, done) = (&shared, &locked, &done);
        if !matches!(setup, Setup::Alone) {
            s.spawn(move || {
                // Readers are ordinary threads (spawned threads inherit the writer's policy).
                let _ = ThreadSetup::new(Policy::Other, 0).apply();
                pin(0);
                while !done.load(Ordering::Relaxed) {
                    match setup {
                        Setup::Report => _ = black_box(shared.report()),
                        Setup::ReportAndReset => _ = black_box(shared.report_and_reset()),
                        _ => _ = black_box(locked.lock().unwrap().report()),
                    }
                }
            });
        }
        let mut times = Vec::with_capacity(n);
        for k in 1..=n as u64 {
            let (now, deadline) = (k * P + k % 1000, k * P);
            let before = Instant::now();
            match setup {
                Setup::Mutex => _ = black_box(locked.lock().unwrap().tick_at(now, deadline)),
                _ => _ = black_box(shared.tick_at(now, deadline)),
            }
            times.push(before.elapsed().as_nanos());
        }
        done.store(true, Ordering::Relaxed);
        times.sort_unstable();
        (times[n - 1], times[n - 1 - n / 10_000])
    })
}

fn median(mut v: Vec<u128>) -> u128 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    let (rounds, n) = (9, 200_000);
    // The writer (this thread) runs SCHED_FIFO on CPU 1 where it may, as a servo thread would;
    // the reader runs SCHED_OTHER on CPU 0.
    if let Err(e) = ThreadSetup::new(Policy::Fifo, 90).apply() {
        println!("(the writer stays SCHED_OTHER: {e})");
    }
    pin(1);
    // Interleaved rounds, so that the machine's own noise (a shared VM) falls on every setup
    // alike; the worst tick of one round is mostly that noise, so the median over rounds is the
    // figure to compare, and the largest is shown beside it.
    let mut worst = vec![Vec::new(); Setup::ALL.len()];
    let mut p9999 = vec![Vec::new(); Setup::ALL.len()];
    for _ in 0..rounds {
        for (i, &setup) in Setup::ALL.iter().enumerate() {
            let (w, p) = writer_round(n, setup);
            worst[i].push(w);
            p9999[i].push(p);
        }
    }
    println!(
        "writer's tick, {rounds} interleaved rounds of {n} ticks each (ns, two clock reads included):"
    );
    println!(
        "  {:50} {:>12} {:>12} {:>14}",
        "", "worst (med)", "worst (max)", "p99.99 (med)"
    );
    let base = median(worst[0].clone()).max(1) as f64;
    for (i, setup) in Setup::ALL.iter().enumerate() {
        let med = median(worst[i].clone());
        println!(
            "  {:50} {:>12} {:>12} {:>14}   worst/alone {:.2}",
            setup.name(),
            med,
            worst[i].iter().max().unwrap(),
            median(p9999[i].clone()),
            med as f64 / base
        );
    }
}
