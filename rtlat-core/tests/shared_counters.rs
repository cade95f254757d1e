//! The counters-only histogram: the same buckets and ranks as the histogram with a summary,
//! and exact counts past 16 bits.

use proptest::prelude::*;
use rtlat_core::histogram::{CARRY_SLOTS, SharedLogCounters, log_linear_size};
use rtlat_core::{Layout, SymmetricLogHistogram, SymmetricLogLinear};

const SIZE: rtlat_core::histogram::LogLinearSize = log_linear_size(250_000, 30_000);
type Counters = SharedLogCounters<{ SIZE.precision }, { SIZE.counters }>;
type Histogram = SymmetricLogHistogram<{ SIZE.precision }, { SIZE.counters }, u16>;

proptest! {
    #[test]
    fn same_buckets_and_percentiles_as_the_histogram(
        values in prop::collection::vec(
            prop_oneof![-300_000i32..300_000, -100i32..100, any::<i32>()], 1..400),
    ) {
        let counters = Counters::new();
        let mut histogram = Histogram::empty();
        for &v in &values {
            counters.record(v);
            histogram.record(i64::from(v));
            prop_assert_eq!(
                Counters::index(v),
                SymmetricLogLinear::<{ SIZE.precision }>::new().index(i64::from(v), SIZE.counters)
            );
        }
        prop_assert_eq!(counters.count(), values.len() as u64);
        // In-range buckets (the histogram numbers them from 0, after its underflow counter),
        // then the two guards.
        for i in 0..SIZE.counters - 2 {
            prop_assert_eq!(counters.bucket_count(i + 1), histogram.bucket(i).unwrap().count);
        }
        prop_assert_eq!(counters.bucket_count(0), histogram.underflow());
        prop_assert_eq!(counters.bucket_count(SIZE.counters - 1), histogram.overflow());
        let extremes = (histogram.min().unwrap(), histogram.max().unwrap());
        let ppm = [1, 250_000, 500_000, 900_000, 990_000, 999_000, 1_000_000];
        let expected = histogram.percentiles(ppm.map(|p| f64::from(p) / 10_000.0));
        prop_assert_eq!(counters.percentiles_ppm(ppm, extremes), expected);
    }
}

#[test]
fn wrapped_counters_stay_exact() {
    let counters = Counters::new();
    // 3·65 536 + 5 values of 7 (an exact bucket), and one of 1 000.
    for _ in 0..3 * 65_536 + 5 {
        counters.record(7);
    }
    counters.record(1_000);
    let seven = Counters::index(7);
    assert_eq!(counters.bucket_count(seven), 3 * 65_536 + 5);
    assert_eq!(counters.count(), 3 * 65_536 + 6);
    assert_eq!(counters.uncounted(), 0);
    // The last 7 is rank 196 613 of 196 614; the 1 000 is in bucket 992..=1 007, whose middle
    // within the extremes is 996.
    let ranks = counters.percentiles_ppm([500_000, 999_990, 1_000_000], (7, 1_000));
    assert_eq!(ranks, [Some(7), Some(7), Some(996)]);
    assert_eq!(
        counters.values_at_ranks([196_613, 196_614], (7, 1_000)),
        [Some(7), Some(996)]
    );
}

#[test]
fn wraps_past_the_carry_slots_are_counted_apart() {
    let counters = Counters::new();
    // One wrap in each of CARRY_SLOTS + 1 exact buckets: the last has no slot.
    for v in 0..=CARRY_SLOTS as i32 {
        for _ in 0..65_536 {
            counters.record(v);
        }
    }
    let buckets = CARRY_SLOTS as u64 + 1;
    assert_eq!(counters.count(), buckets * 65_536, "every value counted");
    assert_eq!(counters.uncounted(), 65_536);
    let last = Counters::index(CARRY_SLOTS as i32);
    assert_eq!(counters.bucket_count(last), 0);
    // Ranks past the bucketed values report the maximum, a bound.
    let [p100] = counters.percentiles_ppm([1_000_000], (0, CARRY_SLOTS as i64));
    assert_eq!(p100, Some(CARRY_SLOTS as i64));
}

#[test]
fn empty_and_out_of_range_ranks() {
    let counters = Counters::new();
    assert_eq!(counters.percentiles_ppm([500_000], (0, 0)), [None]);
    counters.record(-5);
    assert_eq!(
        counters.values_at_ranks([0, 1, 2], (-5, -5)),
        [None, Some(-5), None]
    );
    assert_eq!(counters.percentiles_ppm([1_000_001], (-5, -5)), [None]);
}
