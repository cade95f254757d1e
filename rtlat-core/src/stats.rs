//! Integer statistics for the recording side: count, min, max, sum and sum of squares.
//!
//! Recording uses integer arithmetic only, so it costs the same on an MCU without an FPU;
//! the mean and standard deviation are computed when a report is made.

/// Anything a latency (signed nanoseconds) can be recorded into.
///
/// Implemented by [`Summary`], [`Stats`], every [`crate::Histogram`], `()` (discards) and
/// pairs, so one call can feed a histogram and statistics together.
pub trait Record {
    /// Records one value. Must not allocate, lock or panic for any `i64`.
    fn record(&mut self, value: i64);
}

impl Record for () {
    #[inline(always)]
    fn record(&mut self, _value: i64) {}
}

impl<A: Record, B: Record> Record for (A, B) {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        self.0.record(value);
        self.1.record(value);
    }
}

impl<R: Record + ?Sized> Record for &mut R {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        (**self).record(value);
    }
}

/// Exact count, minimum, maximum and sum of recorded values.
///
/// The sum is an `i128`, so it cannot overflow for fewer than 2^64 samples of any `i64`.
///
/// The empty summary is all zero bytes (count 0; min and max are read only once a value is
/// recorded), so a `static` holding one, or a histogram, lands in `.bss`, not in flash. The
/// first value sets both extremes on the path that stores a new extreme, so recording costs
/// what it did with `i64::MAX`/`i64::MIN` sentinels: a compare per extreme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    count: u64,
    min: i64,
    max: i64,
    sum: i128,
    /// Whether `min` and `max` hold recorded values: written and read only when a value
    /// reaches an extreme, so the recording path never reads it (nor the count).
    extremes_set: bool,
}

impl Default for Summary {
    fn default() -> Self {
        Self::new()
    }
}

impl Summary {
    /// An empty summary: all zero bytes.
    pub const fn new() -> Self {
        Summary {
            count: 0,
            min: 0,
            max: 0,
            sum: 0,
            extremes_set: false,
        }
    }

    /// Number of values recorded.
    pub const fn count(&self) -> u64 {
        self.count
    }

    /// Smallest value, `None` when empty.
    pub const fn min(&self) -> Option<i64> {
        if self.count == 0 {
            None
        } else {
            Some(self.min)
        }
    }

    /// Largest value, `None` when empty.
    pub const fn max(&self) -> Option<i64> {
        if self.count == 0 {
            None
        } else {
            Some(self.max)
        }
    }

    /// `(min, max)` without the emptiness check: `(0, 0)` when empty. For a hot path that
    /// knows a value was recorded.
    #[inline(always)]
    pub const fn extremes(&self) -> (i64, i64) {
        (self.min, self.max)
    }

    /// Sum of all values, exact.
    pub const fn sum(&self) -> i128 {
        self.sum
    }

    /// Mean rounded toward zero (what cyclictest prints as `Avg:`), `None` when empty.
    /// Integer only: usable without an FPU.
    pub const fn mean_truncated(&self) -> Option<i64> {
        if self.count == 0 {
            return None;
        }
        // |sum / count| <= max |value| <= 2^63, so the quotient fits (clamped at the edge);
        // no 128-bit division routine (see `div_i128_by_u64`).
        Some(crate::div64::div_i128_by_u64(self.sum, self.count))
    }

    /// Mean as a float, `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        if self.count == 0 {
            None
        } else {
            Some(self.sum as f64 / self.count as f64)
        }
    }

    /// Records `value` `n` times.
    pub fn record_n(&mut self, value: i64, n: u64) {
        if n == 0 {
            return;
        }
        self.merge(&Summary {
            count: n,
            min: value,
            max: value,
            sum: value as i128 * n as i128,
            extremes_set: true,
        });
    }

    /// Adds another summary, as if its values had been recorded here.
    pub fn merge(&mut self, other: &Summary) {
        if other.count == 0 {
            return;
        }
        if !self.extremes_set {
            self.min = other.min;
            self.max = other.max;
            self.extremes_set = true;
        } else {
            self.min = self.min.min(other.min);
            self.max = self.max.max(other.max);
        }
        self.count = self.count.saturating_add(other.count);
        self.sum = self.sum.wrapping_add(other.sum);
    }

    /// Stores `value` as the minimum (rare: the recording path only compares); the first
    /// value recorded is the maximum too.
    #[inline(always)]
    fn new_min(&mut self, value: i64) {
        rare();
        if !self.extremes_set {
            self.first(value);
        } else {
            self.min = value;
        }
    }

    /// Stores `value` as the maximum, as [`Summary::new_min`] does.
    #[inline(always)]
    fn new_max(&mut self, value: i64) {
        rare();
        if !self.extremes_set {
            self.first(value);
        } else {
            self.max = value;
        }
    }

    /// The first value recorded: both extremes.
    #[cold]
    fn first(&mut self, value: i64) {
        (self.min, self.max, self.extremes_set) = (value, value, true);
    }

    /// Forgets everything recorded.
    pub fn reset(&mut self) {
        *self = Summary::new();
    }
}

/// Marks the path that calls it as rare, so the compiler lays the common one out straight
/// (no taken jump) and keeps the rare one apart. Does nothing.
#[cold]
pub(crate) fn rare() {}

impl Summary {
    /// [`Record::record`] with the value's sign extension given: `value >> 63` (0 or -1),
    /// which a caller that knows the value is not negative gives as the constant 0 (its
    /// layout's common path only takes such values), so the sum does not compute it.
    #[inline(always)]
    pub(crate) fn record_with_sign(&mut self, value: i64, sign: i64) {
        debug_assert_eq!(sign, value >> 63);
        self.record_extremes(value);
        let wide = (((sign as u64 as u128) << 64) | value as u64 as u128) as i128;
        self.sum = self.sum.wrapping_add(wide);
    }

    /// The count and the extremes of [`Record::record`].
    #[inline(always)]
    fn record_extremes(&mut self, value: i64) {
        self.count = self.count.wrapping_add(1);
        // New extremes are rare: a compare each, and a store only then. The empty state holds
        // (0, 0), so the first value takes one of the two branches (a 0 the first, which also
        // sees a value equal to the minimum, harmlessly) and sets both extremes.
        if value <= self.min {
            self.new_min(value);
        }
        if value > self.max {
            self.new_max(value);
        }
    }
}

impl Record for Summary {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        self.record_extremes(value);
        self.sum = self.sum.wrapping_add(value as i128);
    }
}

/// [`Summary`] plus the sum of squares, for the standard deviation.
///
/// The sum of squares is a saturating `u128`: exact while it stays below 2^128, which holds
/// for 2^48 samples of up to ±2^40 ns (18 minutes). [`Stats::std_dev`] reports `None` if it
/// ever saturated rather than a wrong value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    summary: Summary,
    sum_of_squares: u128,
}

impl Stats {
    /// Empty statistics.
    pub const fn new() -> Self {
        Stats {
            summary: Summary::new(),
            sum_of_squares: 0,
        }
    }

    /// Count, min, max and sum.
    pub const fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Sum of the squared values, saturated at `u128::MAX`.
    pub const fn sum_of_squares(&self) -> u128 {
        self.sum_of_squares
    }

    /// Population standard deviation, `None` when empty or when the sum of squares saturated.
    pub fn std_dev(&self) -> Option<f64> {
        let n = self.summary.count();
        if n == 0 || self.sum_of_squares == u128::MAX {
            return None;
        }
        // n*Σx² - (Σx)² is exact in integers when it fits; fall back to floats otherwise.
        let sum = self.summary.sum();
        let exact = (n as u128)
            .checked_mul(self.sum_of_squares)
            .and_then(|a| {
                sum.unsigned_abs()
                    .checked_mul(sum.unsigned_abs())
                    .map(|b| (a, b))
            })
            .map(|(a, b)| a.saturating_sub(b));
        let variance = match exact {
            Some(num) => num as f64 / (n as f64 * n as f64),
            None => {
                let mean = sum as f64 / n as f64;
                (self.sum_of_squares as f64 / n as f64 - mean * mean).max(0.0)
            }
        };
        Some(sqrt(variance))
    }

    /// Adds other statistics, as if their values had been recorded here.
    pub fn merge(&mut self, other: &Stats) {
        self.summary.merge(&other.summary);
        self.sum_of_squares = self.sum_of_squares.saturating_add(other.sum_of_squares);
    }

    /// Forgets everything recorded.
    pub fn reset(&mut self) {
        *self = Stats::new();
    }
}

impl Record for Stats {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        self.summary.record(value);
        let m = value.unsigned_abs() as u128;
        self.sum_of_squares = self.sum_of_squares.saturating_add(m * m);
    }
}

/// Square root by Newton's method: `f64::sqrt` needs std, and this runs only for reports.
pub(crate) fn sqrt(x: f64) -> f64 {
    if x <= 0.0 || x.is_nan() {
        return 0.0;
    }
    let mut r = if x > 1.0 { x / 2.0 } else { 1.0 };
    for _ in 0..128 {
        let next = 0.5 * (r + x / r);
        if next >= r {
            break;
        }
        r = next;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_has_no_extremes() {
        let s = Stats::new();
        assert_eq!(s.summary().min(), None);
        assert_eq!(s.summary().max(), None);
        assert_eq!(s.summary().mean_truncated(), None);
        assert_eq!(s.std_dev(), None);
    }

    #[test]
    fn known_values() {
        let mut s = Stats::new();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.record(v);
        }
        assert_eq!(s.summary().count(), 8);
        assert_eq!(s.summary().min(), Some(2));
        assert_eq!(s.summary().max(), Some(9));
        assert_eq!(s.summary().sum(), 40);
        assert_eq!(s.summary().mean_truncated(), Some(5));
        assert_eq!(s.std_dev(), Some(2.0));
    }

    #[test]
    fn mean_truncates_toward_zero() {
        let mut s = Summary::new();
        s.record(-3);
        s.record(-4);
        assert_eq!(s.mean_truncated(), Some(-3));
    }

    #[test]
    fn extremes_do_not_overflow() {
        let mut s = Stats::new();
        for v in [i64::MIN, i64::MAX, i64::MIN, i64::MIN, i64::MIN, i64::MIN] {
            s.record(v);
        }
        assert_eq!(s.summary().min(), Some(i64::MIN));
        assert_eq!(s.summary().max(), Some(i64::MAX));
        assert_eq!(s.summary().sum(), 5 * i64::MIN as i128 + i64::MAX as i128);
        assert_eq!(
            s.sum_of_squares(),
            u128::MAX,
            "six squares of 2^63 saturate"
        );
        assert_eq!(
            s.std_dev(),
            None,
            "a saturated sum of squares gives no std dev"
        );
    }

    proptest! {
        #[test]
        fn matches_float_reference(values in proptest::collection::vec(-1_000_000_000i64..1_000_000_000, 1..500)) {
            let mut s = Stats::new();
            let mut halves = (Stats::new(), Stats::new());
            for (i, &v) in values.iter().enumerate() {
                s.record(v);
                if i % 2 == 0 { halves.0.record(v) } else { halves.1.record(v) }
            }
            halves.0.merge(&halves.1);
            prop_assert_eq!(halves.0, s);
            let n = values.len() as f64;
            let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
            let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
            let sd = s.std_dev().unwrap();
            prop_assert!((sd - var.sqrt()).abs() <= 1e-6 * var.sqrt().max(1.0), "{} vs {}", sd, var.sqrt());
            prop_assert_eq!(s.summary().min(), values.iter().copied().min());
            prop_assert_eq!(s.summary().max(), values.iter().copied().max());
        }
    }
}
