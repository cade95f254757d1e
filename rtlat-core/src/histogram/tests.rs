use super::*;
use proptest::prelude::*;

/// Nearest-rank percentile on a sorted copy: the reference every estimate is checked against.
fn exact_percentile(sorted: &[i64], p: f64) -> i64 {
    let ppb = (p * 1e7 + 0.5) as u128;
    let rank = ((sorted.len() as u128 * ppb).div_ceil(1_000_000_000)).max(1) as usize;
    sorted[rank - 1]
}

fn small_log() -> LogHistogram<4, 512, u64> {
    LogHistogram::new(LogLinear::new(200)).unwrap()
}

#[test]
fn default_layout_has_the_documented_range_and_size() {
    let h = DefaultHistogram::default();
    assert!(h.layout().check(DEFAULT_LOG_BUCKETS).is_ok());
    let first = h.bucket(0).unwrap();
    let last = h.bucket(h.bucket_count() - 1).unwrap();
    assert_eq!(
        last.high,
        (1i64 << 35) - 1,
        "positive range ends at 2^35 - 1 ns"
    );
    assert_eq!(
        first.low,
        -((127i64 << 28) - 1),
        "negative range is one bucket shorter"
    );
    assert!(last.high >= 10_000_000_000, "covers at least 10 s");
    let size = core::mem::size_of::<DefaultHistogram>();
    assert!(size <= 16 * 1024, "{size} bytes");
    assert!(
        size - 3840 * 4 <= 64,
        "counters plus a small header: {size} bytes"
    );
    assert_eq!(h.layout().relative_error(), 1.0 / 128.0);
}

#[test]
fn values_below_two_to_precision_plus_one_are_exact() {
    let mut h = DefaultHistogram::default();
    for v in -127..=127 {
        h.record(v);
    }
    for b in h.buckets() {
        assert_eq!(b.low, b.high, "bucket {b:?} is one value wide");
        assert_eq!(b.count, 1);
    }
    assert_eq!(h.buckets().count(), 255);
}

#[test]
fn every_bucket_is_contiguous_with_the_next() {
    let h = small_log();
    let mut previous_high = h.bucket(0).unwrap().low - 1;
    for i in 0..h.bucket_count() {
        let b = h.bucket(i).unwrap();
        assert_eq!(b.low, previous_high + 1, "bucket {i}");
        assert!(b.high >= b.low);
        previous_high = b.high;
    }
}

#[test]
fn index_and_bounds_agree_at_every_bucket_edge() {
    let h = small_log();
    let layout = *h.layout();
    for i in 1..=510 {
        let (low, high) = layout.bounds(i, 512);
        assert_eq!(layout.index(low, 512), i, "low edge of {i}");
        assert_eq!(layout.index(high, 512), i, "high edge of {i}");
    }
    assert_eq!(layout.index(layout.bounds(1, 512).0 - 1, 512), 0);
    assert_eq!(layout.index(layout.bounds(510, 512).1 + 1, 512), 511);
}

#[test]
fn extremes_go_to_counted_guards() {
    let mut h = small_log();
    for v in [i64::MIN, i64::MIN + 1, -1 << 40, 1 << 40, i64::MAX, 0] {
        h.record(v);
    }
    assert_eq!(h.underflow(), 3);
    assert_eq!(h.overflow(), 2);
    assert_eq!(h.count(), 6);
    assert_eq!(h.min(), Some(i64::MIN));
    assert_eq!(h.max(), Some(i64::MAX));
    assert_eq!(
        h.percentile(0.0),
        Some(i64::MIN),
        "underflow rank reports the exact min"
    );
    assert_eq!(
        h.percentile(100.0),
        Some(i64::MAX),
        "overflow rank reports the exact max"
    );
    let guards: Vec<_> = h
        .buckets()
        .filter(|b| b.low == i64::MIN || b.high == i64::MAX)
        .collect();
    assert_eq!(guards.len(), 2);
}

#[test]
fn full_range_layout_never_uses_guards() {
    // Precision 2 with every bucket the i64 range needs on both sides.
    let layout = LogLinear::<2>::new(1 + 4 * 62);
    let mut h: LogHistogram<2, { 2 + 4 * 62 + 1 + 4 * 62 - 1 }, u64> =
        Histogram::new(layout).unwrap();
    for v in [i64::MIN, i64::MAX, 0, -1, 1] {
        h.record(v);
    }
    assert_eq!(h.underflow() + h.overflow(), 0);
}

#[test]
fn invalid_layouts_are_refused() {
    assert!(LogHistogram::<6, 2, u32>::new(LogLinear::new(1)).is_err());
    assert!(LogHistogram::<6, 100, u32>::new(LogLinear::new(0)).is_err());
    assert!(LogHistogram::<6, 100, u32>::new(LogLinear::new(99)).is_err());
    assert!(LogHistogram::<21, 100, u32>::new(LogLinear::new(50)).is_err());
    assert!(LogHistogram::<0, 100_000, u32>::new(LogLinear::new(50)).is_err());
    assert!(Linear::new(0, 0).is_err());
    assert!(LinearHistogram::<10, u32>::new(Linear::new(i64::MAX - 3, 1).unwrap()).is_err());
}

#[test]
fn linear_microsecond_buckets_match_cyclictest() {
    // cyclictest -h 400: bucket b counts samples whose truncated µs value is b.
    let mut counters = [0u64; 402];
    let mut h = Histogram::with_storage(Linear::new(0, 1000).unwrap(), &mut counters[..]).unwrap();
    for ns in [0, 999, 1000, 12_345, 399_999, 400_000, 5_000_000, -1] {
        h.record(ns);
    }
    assert_eq!(
        h.bucket(0).unwrap(),
        Bucket {
            low: 0,
            high: 999,
            count: 2
        }
    );
    assert_eq!(h.bucket(1).unwrap().count, 1);
    assert_eq!(h.bucket(12).unwrap().count, 1);
    assert_eq!(
        h.bucket(399).unwrap(),
        Bucket {
            low: 399_000,
            high: 399_999,
            count: 1
        }
    );
    assert_eq!(h.overflow(), 2);
    assert_eq!(h.underflow(), 1);
    assert_eq!(h.bucket(400), None);
}

#[test]
fn saturation_is_reported_not_wrapped() {
    let mut h: LogHistogram<2, 16, u32> = Histogram::new(LogLinear::new(8)).unwrap();
    h.record_n(3, u32::MAX as u64 - 1);
    assert!(!h.is_saturated());
    h.record(3);
    assert!(h.is_saturated());
    h.record(3);
    let bucket = h.buckets().next().unwrap();
    assert_eq!(
        bucket.count,
        u32::MAX as u64,
        "the bucket stays at its maximum, never wraps"
    );
    assert_eq!(h.count(), u32::MAX as u64 + 1, "the exact count goes on");
    assert_eq!(h.percentile(50.0), Some(3));
}

#[test]
fn merge_refuses_other_layouts() {
    let mut a = small_log();
    let b: LogHistogram<4, 512, u64> = Histogram::new(LogLinear::new(300)).unwrap();
    assert_eq!(a.merge(&b), Err(Error::LayoutMismatch));
}

#[test]
fn percentile_rejects_out_of_range() {
    let mut h = small_log();
    assert_eq!(h.percentile(50.0), None, "empty");
    h.record(5);
    assert_eq!(h.percentile(-0.1), None);
    assert_eq!(h.percentile(100.1), None);
    assert_eq!(h.percentile(f64::NAN), None);
    assert_eq!(h.percentile(0.0), Some(5));
}

#[test]
fn reset_forgets_everything() {
    let mut h = small_log();
    h.record(1234);
    h.reset();
    assert_eq!(h.count(), 0);
    assert_eq!(h.buckets().count(), 0);
    assert_eq!(h, small_log());
}

fn sample() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -2_000_000i64..50_000_000,
        2 => any::<i64>(),
        1 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1), Just(1)],
        1 => -200i64..200,
    ]
}

/// Checks one percentile against the exact value: within `bound` inside the layout's range,
/// a lower (upper) bound when the exact value lies below (above) it.
fn check_bound<L: Layout, S: Storage>(
    h: &Histogram<L, S>,
    sorted: &[i64],
    p: f64,
    bound: impl Fn(i64) -> f64,
) -> Result<(), TestCaseError> {
    let estimate = h.percentile(p).unwrap();
    let exact = exact_percentile(sorted, p);
    let lowest = h.bucket(0).unwrap().low;
    let highest = h.bucket(h.bucket_count() - 1).unwrap().high;
    if (lowest..=highest).contains(&exact) {
        let err = (estimate as i128 - exact as i128).unsigned_abs() as f64;
        prop_assert!(
            err <= bound(exact),
            "p{p}: estimate {estimate} exact {exact} err {err} bound {}",
            bound(exact)
        );
    } else if exact < lowest {
        prop_assert!(
            estimate <= exact,
            "underflow rank must report a lower bound"
        );
    } else {
        prop_assert!(
            estimate >= exact,
            "overflow rank must report an upper bound"
        );
    }
    Ok(())
}

const PERCENTILES: [f64; 12] = [
    0.0, 0.1, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn log_linear_percentiles_within_stated_bound(values in proptest::collection::vec(sample(), 1..400)) {
        let mut h = DefaultHistogram::default();
        for &v in &values { h.record(v); }
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let rel = h.layout().relative_error();
        for p in PERCENTILES {
            check_bound(&h, &sorted, p, |v| (v.unsigned_abs() as f64 * rel).floor())?;
        }
    }

    #[test]
    fn linear_percentiles_within_half_width(values in proptest::collection::vec(sample(), 1..400), width in 1u64..5000, low in -100_000i64..100_000) {
        let mut counters = vec![0u32; 2000];
        let mut h = Histogram::with_storage(Linear::new(low, width).unwrap(), &mut counters[..]).unwrap();
        for &v in &values { h.record(v); }
        let mut sorted = values.clone();
        sorted.sort_unstable();
        for p in PERCENTILES {
            check_bound(&h, &sorted, p, |_| (width / 2) as f64)?;
        }
    }

    #[test]
    fn near_bucket_is_the_bucket_of_every_value_in_its_span(
        value in any::<i64>(),
        near in -3_000_000_000i64..3_000_000_000,
        width in 1u64..=1 << 33,
        low in prop_oneof![-100_000i64..100_000, any::<i64>(), i64::MAX - (1 << 32)..=i64::MAX, Just(i64::MIN)],
        buckets in 1u64..1 << 40,
    ) {
        let linear = Linear::new(low, width).unwrap();
        let span = linear.near_span(buckets);
        prop_assert!(span <= buckets.saturating_mul(width));
        // Values spread over the whole i64 range, near `low` (either side), and near i64::MIN
        // (a `low` near i64::MAX would wrap them into the span).
        let bottom = i64::MIN + near.rem_euclid(1 << 32);
        for v in [value, low.wrapping_add(near), low.saturating_add(span as i64), low.wrapping_add(span as i64 - 1), bottom] {
            let inside = v >= low && ((v as i128 - low as i128) as u128) < span as u128;
            match linear.near_bucket(v, span) {
                Some(q) => {
                    prop_assert!(inside, "{} placed, outside {}..+{}", v, low, span);
                    prop_assert_eq!(Some(q), linear.bucket(v), "{} width {} low {}", v, width, low);
                }
                None => prop_assert!(!inside, "{} inside {}..+{} not placed", v, low, span),
            }
        }
    }

    #[test]
    fn counts_are_conserved(values in proptest::collection::vec(sample(), 0..400)) {
        let mut h = small_log();
        for &v in &values { h.record(v); }
        let in_buckets: u64 = h.buckets().map(|b| b.count).sum();
        prop_assert_eq!(in_buckets, values.len() as u64);
        prop_assert_eq!(h.count(), values.len() as u64);
        let inside: u64 = (0..h.bucket_count()).map(|i| h.bucket(i).unwrap().count).sum();
        prop_assert_eq!(inside + h.underflow() + h.overflow(), h.count());
        prop_assert_eq!(h.min(), values.iter().copied().min());
        prop_assert_eq!(h.max(), values.iter().copied().max());
        prop_assert_eq!(h.summary().sum(), values.iter().map(|&v| v as i128).sum::<i128>());
        for b in h.buckets() {
            let expected = values.iter().filter(|&&v| v >= b.low && v <= b.high).count() as u64;
            prop_assert_eq!(b.count, expected, "bucket {:?}", b);
        }
    }

    #[test]
    fn merge_equals_recording_the_union(a in proptest::collection::vec(sample(), 0..200), b in proptest::collection::vec(sample(), 0..200)) {
        let (mut ha, mut hb, mut union) = (small_log(), small_log(), small_log());
        for &v in &a { ha.record(v); union.record(v); }
        for &v in &b { hb.record(v); union.record(v); }
        ha.merge(&hb).unwrap();
        prop_assert_eq!(ha, union);
    }

    #[test]
    fn std_dev_estimate_is_within_the_bucket_error(values in proptest::collection::vec(-10_000_000i64..10_000_000, 2..300)) {
        let mut h = DefaultHistogram::default();
        let mut exact = crate::Stats::new();
        for &v in &values { h.record(v); crate::Record::record(&mut exact, v); }
        let (estimate, exact) = (h.std_dev().unwrap(), exact.std_dev().unwrap());
        // Each value moves by at most 1/128 of its magnitude (or not at all below 128 ns).
        let largest = values.iter().map(|v| v.unsigned_abs()).max().unwrap() as f64;
        prop_assert!((estimate - exact).abs() <= largest / 128.0 + 1e-6, "{} vs {}", estimate, exact);
    }

    #[test]
    fn record_n_equals_repeated_record(v in sample(), n in 0u64..50) {
        let (mut a, mut b) = (small_log(), small_log());
        a.record_n(v, n);
        for _ in 0..n { b.record(v); }
        prop_assert_eq!(a, b);
    }

    #[test]
    fn any_value_any_layout_never_panics(v in any::<i64>(), zero in 1usize..=1022) {
        fn one<const P: u32>(v: i64, zero: usize) -> Result<(), TestCaseError> {
            if let Ok(mut h) = LogHistogram::<P, 1024, u32>::new(LogLinear::new(zero)) {
                h.record(v);
                let b = h.buckets().next().unwrap();
                prop_assert!(b.low <= v && v <= b.high, "P={} {:?} holds {}", P, b, v);
                prop_assert_eq!(h.percentile(50.0), Some(v));
            }
            Ok(())
        }
        one::<0>(v, zero)?;
        one::<1>(v, zero)?;
        one::<3>(v, zero)?;
        one::<6>(v, zero)?;
        one::<9>(v, zero)?;
        one::<20>(v, zero)?;
    }
}

/// Values at every edge the symmetric layout's one-compare path cares about: bucket edges
/// either side of zero, the guards, the sign boundary and the ends of i64.
fn edge_values(layout: LogLinear<6>, len: usize) -> Vec<i64> {
    let mut v = vec![
        i64::MIN,
        i64::MIN + 1,
        -1,
        0,
        1,
        127,
        128,
        i64::MAX - 1,
        i64::MAX,
    ];
    for i in [1, 2, layout.zero() - 1, layout.zero() + 1, len - 3, len - 2] {
        let (low, high) = layout.bounds(i, len);
        v.extend([low.saturating_sub(1), low, high, high.saturating_add(1)]);
    }
    v
}

/// The symmetric layout's own counter lookup, and both log-linear layouts' recording (one
/// compare on the common path, the sign told to the summary), give the counter `index` gives
/// and the summary `Summary::record` gives, for
/// the default size, a tiny one and one whose positive buckets run to i64::MAX (where a
/// negative value's unsigned index would reach the overflow counter).
#[test]
fn symmetric_counter_and_record_match_index() {
    fn check<const N: usize>() {
        let general = LogLinear::<6>::symmetric(N);
        let symmetric = SymmetricLogLinear::<6>::new();
        let mut values = edge_values(general, N);
        values.extend((-300..300).map(|k| k * 1_234_567));
        for &v in &values {
            let index = general.index(v, N);
            let mut counters = [0u8; N];
            let at = symmetric.counter(v, &mut counters) as *mut u8 as usize
                - counters.as_ptr() as usize;
            assert_eq!(at, index, "counter of {v} over {N}");
            let mut summary = Summary::new();
            summary.record(v);
            let mut symmetric_h: SymmetricLogHistogram<6, N, u64> = Histogram::empty();
            let mut general_h = LogHistogram::<6, N, u64>::new(general).unwrap();
            symmetric_h.record(v);
            general_h.record(v);
            for (name, counters, got) in [
                (
                    "symmetric",
                    &symmetric_h.counters[..],
                    symmetric_h.summary(),
                ),
                ("general", &general_h.counters[..], general_h.summary()),
            ] {
                let hit: Vec<usize> = (0..N).filter(|&i| counters[i] != 0).collect();
                assert_eq!(hit, [index], "{name}: recording {v} over {N}");
                assert_eq!(counters[index], 1, "{name}: {v}");
                assert_eq!(got, &summary, "{name}: summary of {v}");
                assert_eq!(got.sum(), v as i128, "{name}: sum of {v}");
            }
        }
    }
    check::<DEFAULT_LOG_BUCKETS>();
    check::<5>();
    // Positive buckets up to magnitude_index(i64::MAX) = 3711: 3711 + 2 + zero counters.
    check::<7425>();
    assert!(SymmetricLogLinear::<6>::new().check_len(7425).is_ok());
    assert_eq!(
        LogLinear::<6>::symmetric(7425).bounds(7423, 7425).1,
        i64::MAX
    );
}
