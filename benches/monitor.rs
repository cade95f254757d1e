//! The jitter monitor's cost per tick: the plain `JitterMonitor` against the lock-free
//! `SharedJitterMonitor` (criterion), then the shared writer's worst tick with no reader,
//! with a reader hammering `report()`, and with one hammering `report_and_reset()` (printed
//! figures, not a criterion measurement: a worst case is what a servo loop cares about).
//!
//! `cargo bench --bench monitor` (`-- --quick` for a short run).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group};
use rtlat_core::{JitterMonitor, SharedJitterMonitor};
use rtlat_linux::{Policy, ThreadSetup};
use std::num::NonZeroU64;
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

/// What a reader thread does, over and over.
type Reader = fn(&SharedJitterMonitor);

/// The shared writer's slowest tick over `n` ticks (ns, each timed with two clock reads),
/// and the 99.99th percentile, while `reader` runs in another thread until the writer ends.
fn writer_worst(n: usize, reader: Option<Reader>) -> (u128, u128) {
    let monitor = SharedJitterMonitor::new(NonZeroU64::new(P).unwrap());
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        if let Some(read) = reader {
            let (monitor, done) = (&monitor, &done);
            s.spawn(move || {
                // Readers are ordinary threads (spawned threads inherit the writer's policy).
                let _ = ThreadSetup::new(Policy::Other, 0).apply();
                while !done.load(Ordering::Relaxed) {
                    read(monitor);
                }
            });
        }
        let mut times = Vec::with_capacity(n);
        for k in 1..=n as u64 {
            let before = Instant::now();
            black_box(monitor.tick_at(k * P + k % 1000, k * P));
            times.push(before.elapsed().as_nanos());
        }
        done.store(true, Ordering::Relaxed);
        times.sort_unstable();
        (times[n - 1], times[n - 1 - n / 10_000])
    })
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    let n = 2_000_000;
    // The writer (this thread) runs SCHED_FIFO where it may, as a servo thread would.
    if let Err(e) = ThreadSetup::new(Policy::Fifo, 90).apply() {
        println!("(the writer stays SCHED_OTHER: {e})");
    }
    println!(
        "shared writer, {n} ticks each, worst / 99.99th percentile (ns, two clock reads included):"
    );
    let readers: [(&str, Option<Reader>); 3] = [
        ("no reader", None),
        (
            "a reader hammering report()",
            Some(|m| _ = black_box(m.report())),
        ),
        (
            "a reader hammering report_and_reset()",
            Some(|m| _ = black_box(m.report_and_reset())),
        ),
    ];
    for (what, reader) in readers {
        let (worst, p9999) = writer_worst(n, reader);
        println!("  {what:40} worst {worst:>7} ns, p99.99 {p9999:>5} ns");
    }
}
