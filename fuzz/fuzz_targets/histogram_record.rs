//! Any stream of i64 values into log-linear and linear histograms: no panic, counts
//! conserved, every value inside the bucket that counted it, percentiles inside [min, max].
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtlat_core::{DefaultHistogram, Histogram, Linear};

fuzz_target!(|data: &[u8]| {
    let mut log = DefaultHistogram::default();
    let mut counters = [0u64; 66];
    let Ok(mut lin) = Histogram::with_storage(Linear::new(-1000, 37).unwrap(), &mut counters[..])
    else {
        return;
    };
    let values: Vec<i64> = data
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for &v in &values {
        log.record(v);
        lin.record(v);
    }
    for total in [
        log.buckets().map(|b| b.count).sum::<u64>(),
        lin.buckets().map(|b| b.count).sum::<u64>(),
    ] {
        assert_eq!(total, values.len() as u64);
    }
    for &v in &values {
        assert!(log.buckets().any(|b| b.low <= v && v <= b.high));
    }
    for p in [0.0, 50.0, 99.9, 100.0] {
        if let Some(x) = log.percentile(p) {
            assert!(log.min().unwrap() <= x && x <= log.max().unwrap());
        }
    }
});
