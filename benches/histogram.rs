//! Recording cost: rtlat-core's histogram against hdrhistogram, the crate users would pick
//! instead, on the same stream of realistic latencies in one run.
//!
//! `cargo bench --bench histogram`. The stream mimics a cyclictest run on a tuned box: most
//! wake-ups 10–20 µs, a log-normal-ish tail to hundreds of µs, rare spikes to ms.

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use rtlat_core::{DefaultHistogram, Histogram, Linear, Record, SmallHistogram, Stats};

/// Deterministic latencies in ns (xorshift64*; no external RNG so the stream never changes).
fn latency_stream(n: usize) -> Vec<i64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    (0..n)
        .map(|_| {
            let r = next();
            let base = 10_000 + (r % 10_000) as i64; // 10–20 µs
            match (r >> 32) % 1000 {
                0 => base + ((r >> 40) % 2_000_000) as i64, // spike up to 2 ms
                1..=20 => base + ((r >> 40) % 200_000) as i64, // tail up to 200 µs
                _ => base,
            }
        })
        .collect()
}

fn record(c: &mut Criterion) {
    let values = latency_stream(1 << 16);
    let mut group = c.benchmark_group("record");
    group.throughput(Throughput::Elements(values.len() as u64));

    let mut rtlat = DefaultHistogram::default();
    group.bench_function(BenchmarkId::new("rtlat-core", "log-linear p6"), |b| {
        b.iter(|| {
            for &v in black_box(&values) {
                rtlat.record(v);
            }
        })
    });

    let mut small = SmallHistogram::empty();
    group.bench_function(BenchmarkId::new("rtlat-core", "small u16 p5"), |b| {
        b.iter(|| {
            for &v in black_box(&values) {
                small.record(v);
            }
        })
    });

    let mut counters = vec![0u64; 10_002];
    let mut linear =
        Histogram::with_storage(Linear::new(0, 1000).unwrap(), &mut counters[..]).unwrap();
    group.bench_function(BenchmarkId::new("rtlat-core", "linear 1us"), |b| {
        b.iter(|| {
            for &v in black_box(&values) {
                linear.record(v);
            }
        })
    });

    let mut stats = Stats::new();
    group.bench_function(BenchmarkId::new("rtlat-core", "stats"), |b| {
        b.iter(|| {
            for &v in black_box(&values) {
                stats.record(v);
            }
        })
    });

    // hdrhistogram at 2 significant digits (≤ 1 % error), 1 ns .. 60 s: the same job.
    let mut hdr = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 2).unwrap();
    group.bench_function(BenchmarkId::new("hdrhistogram", "2 sigfig"), |b| {
        b.iter(|| {
            for &v in black_box(&values) {
                hdr.saturating_record(v as u64);
            }
        })
    });
    group.finish();

    // Reading p50, p99 and p99.9: one pass over the counters for all three, against three
    // calls of `percentile` (one pass each).
    let mut group = c.benchmark_group("percentiles");
    group.bench_function("one pass, three percentiles", |b| {
        b.iter(|| black_box(&rtlat).percentiles([50.0, 99.0, 99.9]))
    });
    group.bench_function("three percentile calls", |b| {
        b.iter(|| {
            let h = black_box(&rtlat);
            [h.percentile(50.0), h.percentile(99.0), h.percentile(99.9)]
        })
    });
    group.finish();
    black_box((
        small.count(),
        rtlat.count(),
        linear.count(),
        stats.summary().count(),
        hdr.len(),
    ));
}

criterion_group!(benches, record);
criterion_main!(benches);
