//! How values map to buckets: log-linear (HDR-style) or linear (fixed width).
//!
//! A histogram's counters are laid out as `[underflow, bucket 1, …, bucket len-2, overflow]`;
//! a layout maps every `i64` to one of those indices (clamping to the two guards) and gives
//! each in-range bucket its inclusive value bounds.

use super::Counter;
use crate::stats::{Record, Summary};
use crate::{Divider, Error};

/// Maps values to bucket indices. Implemented by [`LogLinear`] and [`Linear`].
pub trait Layout: Copy + PartialEq + core::fmt::Debug {
    /// Index in `0..len` for `value`: `0` is underflow, `len - 1` overflow. Never panics.
    fn index(&self, value: i64, len: usize) -> usize;
    /// Inclusive `(low, high)` value bounds of in-range bucket `index` (`1..=len-2`).
    fn bounds(&self, index: usize, len: usize) -> (i64, i64);
    /// Whether the layout fits `len` counters; the error says what does not fit.
    fn check(&self, len: usize) -> Result<(), Error>;
    /// The counter `value` goes to: `counters[self.index(value, counters.len())]`. A layout
    /// may compute it another way that shows the compiler its bounds better (so a recording
    /// loop keeps the histogram's summary in registers); it is the same counter.
    #[inline(always)]
    fn counter<'a, C>(&self, value: i64, counters: &'a mut [C]) -> &'a mut C {
        let index = self.index(value, counters.len());
        &mut counters[index]
    }
    /// Records `value`: one more in its counter ([`Layout::counter`]) and into `summary`,
    /// which is what [`crate::Histogram::record`] does. A layout may do it another way that
    /// costs less (its common path knowing the value's sign, say); the result is the same.
    #[inline(always)]
    fn record_into<C: Counter>(&self, value: i64, counters: &mut [C], summary: &mut Summary) {
        self.counter(value, counters).increment();
        summary.record(value);
    }
}

/// Log-linear buckets over signed values: exact below `2^(P+1)`, then `2^P` equal
/// sub-buckets per power of two, mirrored for negative values. `P` (the precision) is a
/// const generic so the hot path shifts by constants.
///
/// A value in a bucket of width `w` is known to `w/2`, so every reported percentile is within
/// a relative error of `2^-(P+1)` (0.78 % for `P = 6`) of the exact value.
/// `zero` is the counter index holding the value 0: indices above it hold positive values,
/// below it negative ones, so the split between early and late wake-ups is the user's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLinear<const P: u32> {
    zero: usize,
}

/// The largest precision accepted: 2^20 sub-buckets per octave is far past any use.
const MAX_PRECISION: u32 = 20;

impl<const P: u32> LogLinear<P> {
    /// A layout with value 0 at counter `zero`. Checked against the storage when the
    /// histogram is made.
    pub const fn new(zero: usize) -> Self {
        LogLinear { zero }
    }

    /// Value 0 in the middle of `len` counters: the same range for negative and positive
    /// values when `len` is odd, one bucket more on the positive side when it is even.
    pub const fn symmetric(len: usize) -> Self {
        LogLinear {
            zero: len.saturating_sub(1) / 2,
        }
    }

    /// Sub-buckets per octave, as a power of two.
    pub const fn precision(&self) -> u32 {
        P
    }

    /// The counter index holding value 0.
    pub const fn zero(&self) -> usize {
        self.zero
    }

    /// Bound on the relative error of a percentile, `1 / 2^(P+1)`.
    pub const fn relative_error(&self) -> f64 {
        1.0 / (1u64 << (P + 1)) as f64
    }

    /// Index of magnitude `m` counted from `zero`: the identity below `2^P`.
    #[inline(always)]
    const fn magnitude_index(m: u64) -> u64 {
        magnitude_index(P, m)
    }

    /// Whether the layout fits `len` counters, as [`Layout::check`], usable in a `const`.
    pub const fn check_len(&self, len: usize) -> Result<(), Error> {
        if P > MAX_PRECISION {
            return Err(Error::InvalidLayout("precision must be 0..=20 bits"));
        }
        if len < 3 {
            return Err(Error::InvalidLayout(
                "needs at least 3 counters (underflow, one bucket, overflow)",
            ));
        }
        if self.zero == 0 || self.zero > len - 2 {
            return Err(Error::InvalidLayout(
                "the zero bucket must lie in 1..=len-2",
            ));
        }
        let positive = (len - 2 - self.zero) as u64;
        let negative = (self.zero - 1) as u64;
        if positive > Self::magnitude_index(i64::MAX as u64)
            || negative > Self::magnitude_index(1 << 63)
        {
            return Err(Error::InvalidLayout(
                "more buckets than the i64 range needs at this precision",
            ));
        }
        Ok(())
    }

    /// Inclusive magnitude bounds of magnitude index `j`, in `u128` so nothing overflows.
    const fn magnitude_bounds(j: u64) -> (u128, u128) {
        if j < (1 << P) {
            return (j as u128, j as u128);
        }
        let octave = j >> P;
        let sub = j & ((1 << P) - 1);
        let shift = octave - 1;
        let low = ((1u128 << P) + sub as u128) << shift;
        (low, low + (1u128 << shift) - 1)
    }
}

impl<const P: u32> Layout for LogLinear<P> {
    #[inline(always)]
    fn index(&self, value: i64, len: usize) -> usize {
        // Latencies are almost always positive: one well-predicted branch is cheaper than
        // branch-free sign handling. The final clamp also proves the index in bounds, so the
        // caller's counter access has no panic path (which keeps the loop's state in registers).
        let index = if value >= 0 {
            // Cannot wrap: zero < len and a magnitude index is below 2^27.
            self.zero
                .wrapping_add(Self::magnitude_index(value as u64) as usize)
        } else {
            self.zero
                .saturating_sub(Self::magnitude_index(value.unsigned_abs()) as usize)
        };
        index.min(len - 1)
    }

    /// As the default, with the sign branch of [`LogLinear::index`] kept for the whole
    /// record: a non-negative value's counter is checked against the number of counters (one
    /// compare, no clamp: overflow is off that path) and the summary is told the value is not
    /// negative (its sum then needs no sign extension).
    #[inline(always)]
    fn record_into<C: Counter>(&self, value: i64, counters: &mut [C], summary: &mut Summary) {
        let len = counters.len();
        let (index, sign) = if value >= 0 {
            // Cannot wrap: a magnitude index is below 2^13.
            let index = self
                .zero
                .wrapping_add(Self::magnitude_index(value as u64) as usize);
            if index < len {
                (index, 0)
            } else {
                crate::stats::rare();
                (len - 1, 0)
            }
        } else {
            (self.index(value, len), -1)
        };
        counters[index].increment();
        summary.record_with_sign(value, sign);
    }

    fn bounds(&self, index: usize, _len: usize) -> (i64, i64) {
        if index >= self.zero {
            let (low, high) = Self::magnitude_bounds((index - self.zero) as u64);
            (
                low.min(i64::MAX as u128) as i64,
                high.min(i64::MAX as u128) as i64,
            )
        } else {
            let (low, high) = Self::magnitude_bounds((self.zero - index) as u64);
            let most = 1u128 << 63;
            (
                -(high.min(most) as i128) as i64,
                -(low.min(most) as i128) as i64,
            )
        }
    }

    fn check(&self, len: usize) -> Result<(), Error> {
        self.check_len(len)
    }
}

/// Index of magnitude `m` at precision `p`, counted from the zero bucket: the identity below
/// `2^(p+1)`, then `2^p` buckets per power of two.
#[inline(always)]
const fn magnitude_index(p: u32, m: u64) -> u64 {
    // Or-ing in 2^p makes the exponent at least p, so small values shift by 0.
    let exponent = 63 - (m | (1 << p)).leading_zeros();
    let shift = exponent - p;
    ((shift as u64) << p) + (m >> shift)
}

/// [`LogLinear`] with value 0 in the middle of however many counters the histogram has, as
/// [`LogLinear::symmetric`] places it. It has no field: a histogram over it is all zero bytes
/// when empty, so a `static` one lands in `.bss` (RAM only) instead of `.data` (RAM and a copy
/// in flash), and the hot path adds a constant instead of loading the zero index.
///
/// It maps every value exactly as `LogLinear::<P>::symmetric(len)` does, and reports (JSON,
/// [`SymmetricLogLinear::at`]) as that layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SymmetricLogLinear<const P: u32>;

impl<const P: u32> SymmetricLogLinear<P> {
    /// The layout (it has no parameters but `P`).
    pub const fn new() -> Self {
        SymmetricLogLinear
    }

    /// The equivalent [`LogLinear`] layout over `len` counters.
    #[inline(always)]
    pub const fn at(&self, len: usize) -> LogLinear<P> {
        LogLinear::symmetric(len)
    }

    /// Sub-buckets per octave, as a power of two.
    pub const fn precision(&self) -> u32 {
        P
    }

    /// Bound on the relative error of a percentile, `1 / 2^(P+1)`.
    pub const fn relative_error(&self) -> f64 {
        1.0 / (1u64 << (P + 1)) as f64
    }

    /// Whether the layout fits `len` counters, as [`Layout::check`], usable in a `const`.
    pub const fn check_len(&self, len: usize) -> Result<(), Error> {
        self.at(len).check_len(len)
    }
}

impl<const P: u32> Layout for SymmetricLogLinear<P> {
    #[inline(always)]
    fn index(&self, value: i64, len: usize) -> usize {
        self.at(len).index(value, len)
    }

    fn bounds(&self, index: usize, len: usize) -> (i64, i64) {
        self.at(len).bounds(index, len)
    }

    fn check(&self, len: usize) -> Result<(), Error> {
        self.check_len(len)
    }

    /// The counter of `value`, found with one compare on the common path: see
    /// [`SymmetricLogLinear::record_into`].
    #[inline(always)]
    fn counter<'a, C>(&self, value: i64, counters: &'a mut [C]) -> &'a mut C {
        match in_range_counter(P, value, counters) {
            Ok(counter) => counter,
            Err((below, from_zero)) => off_common_path(P, value, below, from_zero),
        }
    }

    /// Records `value` with one compare on the common path. The magnitude index of
    /// `value as u64` is taken from the zero bucket up: a non-negative value in range lands
    /// below the number of counters there (the last of which is overflow), while a negative
    /// one, read as a `u64` of 2^63 or more, gets an index past every positive bucket
    /// (`check_len` allows at most `magnitude_index(i64::MAX)` of them), as does a value past
    /// the overflow counter. So one bounds check sends negative values and far overflows off
    /// the common path, proves the access in bounds (no sign branch, no clamp, no panic
    /// path: a recording loop keeps the summary in registers), and tells the summary the
    /// value is not negative (its sum needs no sign extension).
    #[inline(always)]
    fn record_into<C: Counter>(&self, value: i64, counters: &mut [C], summary: &mut Summary) {
        let len = counters.len();
        let zero = len.saturating_sub(1) / 2;
        let from_zero = len - zero;
        // Constant for an array. Past it (positive buckets up to i64::MAX, a layout no preset
        // has) a negative value's index could reach the overflow counter: not this path.
        let negative_start = magnitude_index(P, 1 << 63) as usize;
        let j = magnitude_index(P, value as u64) as usize;
        let (index, sign) = if j < from_zero && from_zero <= negative_start {
            (zero + j, 0)
        } else {
            crate::stats::rare();
            (self.index(value, len), value >> 63)
        };
        counters[index].increment();
        summary.record_with_sign(value, sign);
    }
}

/// The counters below the zero bucket and those from it up (overflow last).
type Halves<'a, C> = (&'a mut [C], &'a mut [C]);

/// The counter of `value` when it is non-negative and at most one past the last positive
/// bucket (the overflow counter), over counters with value 0 in their middle; the two halves
/// of the counters otherwise. A value given a counter is never negative.
#[inline(always)]
fn in_range_counter<C>(p: u32, value: i64, counters: &mut [C]) -> Result<&mut C, Halves<'_, C>> {
    let zero = counters.len().saturating_sub(1) / 2;
    let (below, from_zero) = counters.split_at_mut(zero);
    // Constant for an array. Past it (positive buckets up to i64::MAX, a layout no preset
    // has) a negative value's index could reach the overflow counter: take the sign first.
    let negative_start = magnitude_index(p, 1 << 63) as usize;
    let j = magnitude_index(p, value as u64) as usize;
    if j < from_zero.len() && from_zero.len() <= negative_start {
        Ok(&mut from_zero[j])
    } else {
        Err((below, from_zero))
    }
}

/// The counter of a value [`in_range_counter`] did not give one: a negative value (in
/// `below`, the counters under the zero bucket, or the underflow counter, the first) or one
/// past the overflow counter (the last of `from_zero`). Any other value too, as
/// [`LogLinear::index`] places it.
#[inline(always)]
fn off_common_path<'a, C>(
    p: u32,
    value: i64,
    below: &'a mut [C],
    from_zero: &'a mut [C],
) -> &'a mut C {
    crate::stats::rare();
    if value < 0 && !below.is_empty() {
        // Magnitude index `j >= 1` counted down from the zero bucket, down to underflow.
        let j = magnitude_index(p, value.unsigned_abs()) as usize;
        let i = below.len().saturating_sub(j);
        return &mut below[i.min(below.len() - 1)];
    }
    // A negative value with no counters below zero goes to the first (as `index` puts it).
    let j = if value < 0 {
        0
    } else {
        magnitude_index(p, value as u64) as usize
    };
    match from_zero.len().checked_sub(1) {
        Some(last) => &mut from_zero[j.min(last)],
        // No counters at all (a layout never checked against them): there is none to give.
        None => no_counters(),
    }
}

/// A layout used on no counters at all (never checked against them): there is no counter to
/// give. A histogram checks its layout when made, so it never gets here.
#[cold]
#[inline(never)]
fn no_counters() -> ! {
    panic!("a histogram layout needs at least 3 counters")
}

/// The precision and number of counters of a symmetric log-linear histogram sized by
/// [`log_linear_size`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogLinearSize {
    /// The precision `P` (sub-buckets per octave, as a power of two).
    pub precision: u32,
    /// The number of counters `N`, underflow and overflow included.
    pub counters: usize,
}

/// The smallest precision whose percentile error bound, `2^-(P+1)`, is at most
/// `max_error_ppm` parts per million (30 000 for 3 %). Panics (at compile time, in a `const`)
/// below 1 ppm, which would need more than the largest precision, 20.
pub const fn log_linear_precision(max_error_ppm: u32) -> u32 {
    let mut p = 0;
    while p <= MAX_PRECISION {
        // 2^-(p+1) <= ppm / 10^6  <=>  10^6 <= ppm * 2^(p+1)
        if 1_000_000 <= (max_error_ppm as u64) << (p + 1) {
            return p;
        }
        p += 1;
    }
    panic!("an error bound below 1 ppm needs a precision above 20")
}

/// Counters a symmetric log-linear histogram of precision `precision` needs so that every
/// value in `-range_ns ..= range_ns` lands in a bucket (not in underflow or overflow): twice
/// the buckets one side needs, the zero bucket and the two guards.
pub const fn log_linear_counters(precision: u32, range_ns: u64) -> usize {
    assert!(precision <= MAX_PRECISION, "precision must be 0..=20 bits");
    2 * magnitude_index(precision, range_ns) as usize + 3
}

/// Sizes a symmetric log-linear histogram ([`SymmetricLogLinear`]) for values in
/// `-range_ns ..= range_ns` with a percentile error of at most `max_error_ppm` parts per
/// million: both results are usable as const generics.
///
/// ```
/// use rtlat_core::histogram::{log_linear_size, LogLinearSize, SymmetricLogHistogram};
///
/// // ±10 ms at ≤ 3 %: precision 5 (1.56 %), 1231 counters.
/// const SIZE: LogLinearSize = log_linear_size(10_000_000, 30_000);
/// type Loop = SymmetricLogHistogram<{ SIZE.precision }, { SIZE.counters }, u16>;
/// static _H: Loop = Loop::empty();
/// assert_eq!(SIZE, LogLinearSize { precision: 5, counters: 1231 });
/// ```
pub const fn log_linear_size(range_ns: u64, max_error_ppm: u32) -> LogLinearSize {
    let precision = log_linear_precision(max_error_ppm);
    LogLinearSize {
        precision,
        counters: log_linear_counters(precision, range_ns),
    }
}

/// Fixed-width buckets: bucket `i` (1-based) holds `[low + (i-1)·width, low + i·width - 1]`.
/// `Linear::new(0, 1000)` gives cyclictest's 1 µs histogram over nanosecond values;
/// `Linear::new(0, 1)` its `-N` 1 ns one. The bucket is found by multiply-shift, not division.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Linear {
    low: i64,
    width: Divider,
}

impl Linear {
    /// Buckets of `width` starting at `low`; error for a zero width.
    pub const fn new(low: i64, width: u64) -> Result<Self, Error> {
        match Divider::new(width) {
            Some(width) => Ok(Linear { low, width }),
            None => Err(Error::ZeroInterval("linear histogram bucket width")),
        }
    }

    /// Lowest value of the first bucket.
    pub const fn low(&self) -> i64 {
        self.low
    }

    /// Bucket width.
    pub const fn width(&self) -> u64 {
        self.width.divisor()
    }

    /// The counter index (`1..=len-2`) of the bucket `value` falls in, the same as
    /// [`Layout::index`] gives; `None` when it goes to a guard instead (below `low`, or past
    /// the last bucket). One compare decides, so a recorder that treats the guards apart
    /// (cyclictest's overflow list) keeps them off its common path.
    #[inline(always)]
    pub const fn in_range_index(&self, value: i64, len: usize) -> Option<usize> {
        match self.bucket(value) {
            Some(q) if q < len.saturating_sub(2) as u64 => Some(q as usize + 1),
            _ => None,
        }
    }

    /// The 0-based bucket `value` falls in, unbounded above (`None` below `low`): a recorder
    /// that keeps its buckets apart from the guards checks the result against their number
    /// itself (one compare, e.g. a slice's `get_mut`).
    #[inline(always)]
    pub const fn bucket(&self, value: i64) -> Option<u64> {
        if value < self.low {
            return None;
        }
        Some(self.width.divide(value.wrapping_sub(self.low) as u64))
    }

    /// How many values from `low` up [`Linear::near_bucket`] places, over `buckets` buckets
    /// (guards apart): those of the buckets, up to 2^31 of them; none for a width over 2^32
    /// or a `low` within 2^31 of `i64::MAX` (there the range test would wrap).
    pub const fn near_span(&self, buckets: u64) -> u64 {
        if !self.width.divides_small() || self.low > i64::MAX - Divider::SMALL_DIVIDENDS as i64 {
            return 0;
        }
        let span = buckets.saturating_mul(self.width.divisor());
        if span < Divider::SMALL_DIVIDENDS {
            span
        } else {
            Divider::SMALL_DIVIDENDS
        }
    }

    /// The 0-based bucket of `value` when it is one of the `span` values from `low` up (one
    /// compare, one multiply: no sign test, no division), `span` being
    /// [`Linear::near_span`]'s; `None` otherwise (below `low` or past the span: the caller's
    /// rare path, [`Linear::bucket`]). A recorder whose values are nearly all in the first
    /// buckets (cyclictest's 1 µs histogram of latencies) pays the least this way.
    #[inline(always)]
    pub const fn near_bucket(&self, value: i64, span: u64) -> Option<u64> {
        // A value below `low` wraps to 2^63 or more (`low` is at most 2^63 - 2^31 when the
        // span is not 0, and a span is at most 2^31): past the span.
        let offset = value.wrapping_sub(self.low) as u64;
        if offset < span {
            Some(self.width.divide_small(offset))
        } else {
            None
        }
    }
}

impl Layout for Linear {
    #[inline(always)]
    fn index(&self, value: i64, len: usize) -> usize {
        if value < self.low {
            return 0;
        }
        let offset = value.wrapping_sub(self.low) as u64; // exact: value >= low
        // Bucket `q + 1`, or the overflow guard `len - 1` from `q = len - 2` on (no
        // saturating add needed: `q + 1` is only formed below `len - 1`).
        let q = self.width.divide(offset);
        let last = len - 1;
        if q >= last as u64 {
            last
        } else {
            q as usize + 1
        }
    }

    fn bounds(&self, index: usize, _len: usize) -> (i64, i64) {
        let w = self.width() as i128;
        let low = self.low as i128 + (index as i128 - 1) * w;
        let high = low + w - 1;
        (
            low.min(i64::MAX as i128) as i64,
            high.min(i64::MAX as i128) as i64,
        )
    }

    fn check(&self, len: usize) -> Result<(), Error> {
        self.check_len(len)
    }
}

impl Linear {
    /// Whether the layout fits `len` counters, as [`Layout::check`], usable in a `const`.
    pub const fn check_len(&self, len: usize) -> Result<(), Error> {
        if len < 3 {
            return Err(Error::InvalidLayout(
                "needs at least 3 counters (underflow, one bucket, overflow)",
            ));
        }
        let top = self.low as i128 + (len as i128 - 2) * self.width() as i128 - 1;
        if top > i64::MAX as i128 {
            return Err(Error::InvalidLayout("linear buckets reach beyond i64::MAX"));
        }
        Ok(())
    }
}
