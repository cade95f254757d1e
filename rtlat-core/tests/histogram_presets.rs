//! Histograms for firmware: `const` empty state, the small-MCU preset, sizing by range and
//! error, `u16` counters, and several percentiles in one pass.

use proptest::prelude::*;
use rtlat_core::histogram::{
    LogLinearSize, SMALL_LOG_BUCKETS, SMALL_PRECISION, log_linear_counters, log_linear_precision,
    log_linear_size,
};
use rtlat_core::{
    DefaultHistogram, Histogram, Layout, LogHistogram, LogLinear, SmallHistogram, Stats, Summary,
    SymmetricLogHistogram, SymmetricLogLinear,
};

/// Percentile `p` the way `Histogram::percentile` computed it before the one-pass walk: the
/// total from the counters, then a second walk to the rank.
fn two_pass_percentile<L: Layout, S: rtlat_core::Storage>(
    h: &Histogram<L, S>,
    p: f64,
) -> Option<i64> {
    if !(0.0..=100.0).contains(&p) {
        return None;
    }
    let ppb = (p * 1e7 + 0.5) as u128;
    let total: u64 = h.buckets().map(|b| b.count).sum();
    if total == 0 {
        return None;
    }
    let rank = ((total as u128 * ppb).div_ceil(1_000_000_000)).max(1) as u64;
    h.value_at_rank(rank)
}

#[test]
fn empty_summary_and_histograms_are_zero_bytes_and_const() {
    const SUMMARY: Summary = Summary::new();
    const STATS: Stats = Stats::new();
    static SMALL: SmallHistogram = SmallHistogram::empty();
    static DEFAULT: DefaultHistogram = DefaultHistogram::empty();
    // The extremes of the empty state are zero (they were i64::MAX and i64::MIN sentinels).
    assert_eq!(SUMMARY.extremes(), (0, 0));
    assert_eq!((SUMMARY.count(), SUMMARY.sum()), (0, 0));
    assert_eq!(STATS.sum_of_squares(), 0);
    assert_eq!((SUMMARY.min(), SUMMARY.max()), (None, None));
    // The layout of the presets has no bytes at all.
    assert_eq!(core::mem::size_of::<SymmetricLogLinear<6>>(), 0);
    assert_eq!(SMALL.count(), 0);
    assert_eq!(DEFAULT.buckets().count(), 0);
    assert_eq!(DefaultHistogram::default(), DEFAULT);
}

#[test]
fn first_value_sets_both_extremes_whatever_its_sign() {
    for first in [-5, 0, 7, i64::MIN, i64::MAX] {
        let mut s = Summary::new();
        rtlat_core::Record::record(&mut s, first);
        assert_eq!((s.min(), s.max()), (Some(first), Some(first)), "{first}");
        assert_eq!(s.extremes(), (first, first));
    }
    let mut s = Summary::new();
    for v in [0, 0, -3, 4, 2] {
        rtlat_core::Record::record(&mut s, v);
    }
    assert_eq!(s.extremes(), (-3, 4));
    let mut empty = Summary::new();
    empty.merge(&s);
    assert_eq!(empty, s, "merging into an empty summary copies");
    s.merge(&Summary::new());
    assert_eq!(empty, s, "merging an empty summary changes nothing");
    let mut n = Summary::new();
    n.record_n(9, 3);
    assert_eq!(
        (n.min(), n.max(), n.count(), n.sum()),
        (Some(9), Some(9), 3, 27)
    );
}

#[test]
fn symmetric_layout_maps_values_as_log_linear_symmetric() {
    let mut a = DefaultHistogram::empty();
    let mut b: LogHistogram<6, 3840, u32> = Histogram::new(LogLinear::symmetric(3840)).unwrap();
    for v in [
        i64::MIN,
        -1 << 40,
        -123_456,
        -1,
        0,
        1,
        127,
        128,
        99_999,
        1 << 35,
        i64::MAX,
    ] {
        a.record(v);
        b.record(v);
    }
    assert!(a.buckets().eq(b.buckets()));
    assert_eq!(a.summary(), b.summary());
    assert_eq!(a.layout().at(3840), *b.layout());
    assert_eq!(a.layout().relative_error(), b.layout().relative_error());
}

#[test]
fn small_preset_covers_ten_ms_at_three_percent_in_two_and_a_half_kib() {
    assert_eq!(
        log_linear_size(10_000_000, 30_000),
        LogLinearSize {
            precision: SMALL_PRECISION,
            counters: SMALL_LOG_BUCKETS
        }
    );
    let size = core::mem::size_of::<SmallHistogram>();
    assert!(size <= 2560, "{size} bytes");
    let h = SmallHistogram::empty();
    let (first, last) = (
        h.bucket(0).unwrap(),
        h.bucket(h.bucket_count() - 1).unwrap(),
    );
    assert!(
        first.low <= -10_000_000 && last.high >= 10_000_000,
        "{first:?} {last:?}"
    );
    assert!(h.layout().relative_error() <= 0.03);
}

#[test]
fn precision_is_the_smallest_within_the_error() {
    assert_eq!(log_linear_precision(500_000), 0); // 2^-1
    assert_eq!(log_linear_precision(30_000), 5); // 2^-6 = 1.56 %; 2^-5 = 3.125 % is too much
    assert_eq!(log_linear_precision(31_250), 4); // exactly 2^-5
    assert_eq!(log_linear_precision(7_813), 6); // 0.78 %: the default
    assert_eq!(log_linear_precision(1), 19);
}

/// Every value in ±range lands in a bucket (no guard) and every bucket's half width is within
/// the error bound of its values.
fn check_size<const P: u32, const N: usize>(range: u64, max_error_ppm: u32) {
    assert_eq!(
        log_linear_size(range, max_error_ppm),
        LogLinearSize {
            precision: P,
            counters: N
        }
    );
    let h: SymmetricLogHistogram<P, N, u16> = Histogram::empty();
    let (first, last) = (
        h.bucket(0).unwrap(),
        h.bucket(h.bucket_count() - 1).unwrap(),
    );
    assert!(
        first.low <= -(range as i64) && last.high >= range as i64,
        "{range}: {first:?} {last:?}"
    );
    for i in 0..h.bucket_count() {
        let b = h.bucket(i).unwrap();
        let magnitude = b.low.unsigned_abs().min(b.high.unsigned_abs()) as f64;
        let half_width = (b.high - b.low) as f64 / 2.0;
        assert!(
            half_width <= magnitude * max_error_ppm as f64 / 1e6,
            "{b:?}"
        );
    }
    // The outermost buckets are needed: they hold ±range itself.
    assert!(
        last.low <= range as i64 && first.high >= -(range as i64),
        "{range}"
    );
    assert_eq!(log_linear_counters(P, range), N);
}

#[test]
fn sizes_cover_the_range_at_the_error() {
    check_size::<5, 1231>(10_000_000, 30_000);
    check_size::<6, 1911>(1_000_000, 10_000);
    check_size::<3, 447>(1_000_000_000, 100_000);
    check_size::<0, 7>(3, 500_000);
    const SIZE: LogLinearSize = log_linear_size(50_000_000, 5_000);
    let h: SymmetricLogHistogram<{ SIZE.precision }, { SIZE.counters }> = Histogram::empty();
    assert!(h.layout().relative_error() <= 0.005);
}

#[test]
fn u16_counters_saturate() {
    let mut h: SymmetricLogHistogram<2, 15, u16> = Histogram::empty();
    h.record_n(3, u16::MAX as u64 - 1);
    assert!(!h.is_saturated());
    h.record(3);
    assert!(h.is_saturated());
    h.record(3);
    h.record_n(3, 10);
    assert_eq!(h.buckets().next().unwrap().count, u16::MAX as u64);
    assert_eq!(h.count(), u16::MAX as u64 + 11, "the exact count goes on");
    assert_eq!(h.percentile(50.0), Some(3));
}

const PERCENTILES: [f64; 13] = [
    0.0, 0.1, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0, 50.0,
];

fn sample() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -2_000_000i64..50_000_000,
        2 => any::<i64>(),
        1 => prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1), Just(1)],
        1 => -200i64..200,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn one_pass_percentiles_equal_the_two_pass_ones(values in proptest::collection::vec(sample(), 0..400)) {
        let mut h = DefaultHistogram::empty();
        let mut small = SmallHistogram::empty();
        let mut counters = [0u64; 300];
        let mut linear = Histogram::with_storage(rtlat_core::Linear::new(-1000, 777).unwrap(), &mut counters[..]).unwrap();
        for &v in &values { h.record(v); small.record(v); linear.record(v); }
        // A copy, as a firmware's main loop takes out of a critical section.
        let snapshot = h.clone();
        let all = snapshot.percentiles(PERCENTILES);
        let mut into = [Some(0); PERCENTILES.len()];
        small.percentiles_into(&PERCENTILES, &mut into);
        let lin = linear.percentiles(PERCENTILES);
        for (i, &p) in PERCENTILES.iter().enumerate() {
            prop_assert_eq!(all[i], two_pass_percentile(&h, p), "p{}", p);
            prop_assert_eq!(all[i], h.percentile(p));
            prop_assert_eq!(into[i], two_pass_percentile(&small, p), "small p{}", p);
            prop_assert_eq!(lin[i], two_pass_percentile(&linear, p), "linear p{}", p);
        }
        prop_assert_eq!(h.percentiles([-1.0, f64::NAN, 100.5]), [None, None, None]);
    }
}
