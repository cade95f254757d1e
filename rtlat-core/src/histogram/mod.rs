//! Fixed-size latency histograms: O(1), allocation-free recording of signed nanoseconds.
//!
//! # The default layout
//!
//! [`DefaultHistogram`] is log-linear with precision 6 (64 sub-buckets per octave) in
//! [`DEFAULT_LOG_BUCKETS`] = 3840 `u32` counters split evenly between negative and positive
//! values:
//!
//! | property | value |
//! | --- | --- |
//! | range | −34.09 s … +34.36 s (2^35 − 1 ns); beyond goes to counted underflow/overflow |
//! | exact | every value in (−128 ns, 128 ns) |
//! | percentile error | ≤ 0.78 % of the value (2^−7) |
//! | size | 15 408 bytes (on Cortex-M and x86-64) |
//! | per-bucket limit | 4 294 967 295 samples, then the bucket saturates (reported) |
//!
//! For longer runs use `u64` counters (`SymmetricLogHistogram<6, 3840, u64>`, 30.8 KiB).
//!
//! # Small MCUs
//!
//! [`SmallHistogram`] covers ±10 ms at ≤ 1.56 % error (precision 5) in [`SMALL_LOG_BUCKETS`]
//! = 1231 `u16` counters: 2.5 KiB of RAM. A `u16` bucket saturates at 65 535 values (65 s of
//! a 1 kHz loop that always lands in one bucket; [`Histogram::is_saturated`] says so), so read
//! and reset it per window, or use `u32` counters (4.9 KiB). Other ranges and error bounds:
//! [`log_linear_size`] computes precision and counter count as constants.
//!
//! # Recording cost
//!
//! A non-negative value in range costs one compare besides the bucket arithmetic: on x86-64,
//! 22 instructions for one value recorded on its own (counter and summary in memory, no taken
//! jump) and 26 per value in a loop; `cargo bench --bench histogram` measures it at 0.39–0.52×
//! hdrhistogram's time on a shared 2-CPU VM (figures in `benches/README.md`). Negative values
//! and overflow take a second, rarer path.
//!
//! # Statics
//!
//! [`Histogram::empty`] is a `const fn` and an empty histogram over [`SymmetricLogLinear`]
//! is all zero bytes, so a `static` histogram costs RAM (`.bss`) and no flash:
//!
//! ```
//! use core::cell::RefCell;
//! use critical_section::Mutex;
//! use rtlat_core::SmallHistogram;
//!
//! static LATENCY: Mutex<RefCell<SmallHistogram>> = Mutex::new(RefCell::new(SmallHistogram::empty()));
//!
//! // In the interrupt: record.
//! critical_section::with(|cs| LATENCY.borrow_ref_mut(cs).record(12_500));
//! // In the main loop: copy (a short critical section), then compute outside it, one pass.
//! let snapshot = critical_section::with(|cs| LATENCY.borrow_ref(cs).clone());
//! let [p50, p99, p999] = snapshot.percentiles([50.0, 99.0, 99.9]);
//! assert_eq!(p50, Some(12_500));
//! ```

mod counter;
mod layout;
mod shared_counters;

pub use counter::{Counter, Storage};
pub use layout::{
    Layout, Linear, LogLinear, LogLinearSize, SymmetricLogLinear, log_linear_counters,
    log_linear_precision, log_linear_size,
};
pub use shared_counters::{CARRY_SLOTS, SharedLogCounters};

use crate::Error;
use crate::stats::{Record, Summary};

/// Sub-bucket precision of the default layout: 2^6 = 64 per octave.
pub const DEFAULT_PRECISION: u32 = 6;
/// Counters of the default layout (underflow and overflow included).
pub const DEFAULT_LOG_BUCKETS: usize = 3840;
/// Sub-bucket precision of the small-MCU preset: 2^5 = 32 per octave, ≤ 1.56 % error.
pub const SMALL_PRECISION: u32 = 5;
/// Counters of the small-MCU preset: ±10 ms in buckets (`log_linear_counters(5, 10_000_000)`).
pub const SMALL_LOG_BUCKETS: usize = 1231;

/// A histogram of signed `i64` values (nanoseconds, by convention) with layout `L` over
/// counters `S`, plus the exact count, min, max and sum.
///
/// Recording is O(1), never allocates and never panics for any `i64`: values outside the
/// layout land in the underflow or overflow counter.
#[derive(Debug, Clone, PartialEq)]
#[repr(C)]
pub struct Histogram<L: Layout, S: Storage> {
    summary: Summary,
    layout: L,
    counters: S,
}

/// A log-linear histogram with `N` counters held inline.
pub type LogHistogram<const P: u32, const N: usize, C = u32> = Histogram<LogLinear<P>, [C; N]>;
/// A log-linear histogram with `N` counters held inline and value 0 in their middle: all
/// zero bytes when empty ([`Histogram::empty`], a `const fn`).
pub type SymmetricLogHistogram<const P: u32, const N: usize, C = u32> =
    Histogram<SymmetricLogLinear<P>, [C; N]>;
/// A linear histogram with `N` counters held inline.
pub type LinearHistogram<const N: usize, C = u32> = Histogram<Linear, [C; N]>;
/// The default layout: see the [module documentation](self).
pub type DefaultHistogram = SymmetricLogHistogram<DEFAULT_PRECISION, DEFAULT_LOG_BUCKETS, u32>;
/// The small-MCU preset: ±10 ms at ≤ 1.56 % error in 2.5 KiB; see the
/// [module documentation](self#small-mcus).
pub type SmallHistogram = SymmetricLogHistogram<SMALL_PRECISION, SMALL_LOG_BUCKETS, u16>;

/// One bucket: the inclusive range of values it holds and how many were recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    /// Smallest value the bucket holds.
    pub low: i64,
    /// Largest value the bucket holds.
    pub high: i64,
    /// Values recorded in it.
    pub count: u64,
}

impl<L: Layout, C: Counter, const N: usize> Histogram<L, [C; N]> {
    /// An empty histogram; error if `layout` does not fit `N` counters.
    pub fn new(layout: L) -> Result<Self, Error> {
        layout.check(N)?;
        Ok(Histogram {
            layout,
            counters: [C::default(); N],
            summary: Summary::new(),
        })
    }
}

impl<const P: u32, C: Counter, const N: usize> Histogram<SymmetricLogLinear<P>, [C; N]> {
    /// An empty histogram, usable in a `const` or `static`: all zero bytes, so a `static` lands
    /// in `.bss`. A precision and counter count that do not fit fail to compile.
    pub const fn empty() -> Self {
        const {
            assert!(
                SymmetricLogLinear::<P>::new().check_len(N).is_ok(),
                "this precision does not fit this many counters (see LogLinear::check_len)"
            )
        };
        Histogram {
            layout: SymmetricLogLinear::new(),
            counters: [C::ZERO; N],
            summary: Summary::new(),
        }
    }
}

impl<const P: u32, C: Counter, const N: usize> Default
    for Histogram<SymmetricLogLinear<P>, [C; N]>
{
    fn default() -> Self {
        Self::empty()
    }
}

impl<const P: u32, C: Counter, const N: usize> Histogram<LogLinear<P>, [C; N]> {
    /// An empty histogram, usable in a `const` or `static`; error if `layout` does not fit
    /// `N` counters. (Its layout field is not zero, so a `static` lands in `.data`: for `.bss`
    /// use [`SymmetricLogHistogram`].)
    pub const fn new_const(layout: LogLinear<P>) -> Result<Self, Error> {
        if let Err(e) = layout.check_len(N) {
            return Err(e);
        }
        Ok(Histogram {
            layout,
            counters: [C::ZERO; N],
            summary: Summary::new(),
        })
    }
}

impl<C: Counter, const N: usize> Histogram<Linear, [C; N]> {
    /// An empty histogram, usable in a `const` or `static`; error if `layout` does not fit
    /// `N` counters.
    pub const fn new_const(layout: Linear) -> Result<Self, Error> {
        if let Err(e) = layout.check_len(N) {
            return Err(e);
        }
        Ok(Histogram {
            layout,
            counters: [C::ZERO; N],
            summary: Summary::new(),
        })
    }
}

impl<L: Layout, S: Storage> Histogram<L, S> {
    /// An empty histogram over caller-provided counters (e.g. a slice sized at run time);
    /// the counters are zeroed.
    pub fn with_storage(layout: L, mut counters: S) -> Result<Self, Error> {
        layout.check(counters.counters().len())?;
        counters.counters_mut().fill(Default::default());
        Ok(Histogram {
            layout,
            counters,
            summary: Summary::new(),
        })
    }

    /// Records one value.
    #[inline(always)]
    pub fn record(&mut self, value: i64) {
        let counters = self.counters.counters_mut();
        self.layout.record_into(value, counters, &mut self.summary);
    }

    /// Records `value` `n` times (for rebuilding a histogram from another tool's buckets).
    pub fn record_n(&mut self, value: i64, n: u64) {
        if n == 0 {
            return;
        }
        let counters = self.counters.counters_mut();
        let index = self.layout.index(value, counters.len());
        counters[index].add(n);
        self.summary.record_n(value, n);
    }

    /// The layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// Count, min, max and sum of everything recorded, exact.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.summary.count()
    }

    /// Smallest value recorded, `None` when empty.
    pub fn min(&self) -> Option<i64> {
        self.summary.min()
    }

    /// Largest value recorded, `None` when empty.
    pub fn max(&self) -> Option<i64> {
        self.summary.max()
    }

    /// Values below the first bucket.
    pub fn underflow(&self) -> u64 {
        self.counters.counters()[0].get()
    }

    /// Values above the last bucket.
    pub fn overflow(&self) -> u64 {
        let c = self.counters.counters();
        c[c.len() - 1].get()
    }

    /// Number of in-range buckets (counters less the two guards).
    pub fn bucket_count(&self) -> usize {
        self.counters.counters().len() - 2
    }

    /// In-range bucket `i` (`0..bucket_count()`, lowest values first), empty or not.
    pub fn bucket(&self, i: usize) -> Option<Bucket> {
        if i >= self.bucket_count() {
            return None;
        }
        Some(self.bucket_at(i + 1))
    }

    /// Bucket at counter index `index`, guards included.
    fn bucket_at(&self, index: usize) -> Bucket {
        let c = self.counters.counters();
        let len = c.len();
        let (low, high) = if index == 0 {
            (i64::MIN, self.layout.bounds(1, len).0.saturating_sub(1))
        } else if index == len - 1 {
            (
                self.layout.bounds(len - 2, len).1.saturating_add(1),
                i64::MAX,
            )
        } else {
            self.layout.bounds(index, len)
        };
        Bucket {
            low,
            high,
            count: c[index].get(),
        }
    }

    /// Non-empty buckets, lowest values first, underflow and overflow included (their
    /// bounds run to `i64::MIN` and `i64::MAX`).
    pub fn buckets(&self) -> impl Iterator<Item = Bucket> + '_ {
        let c = self.counters.counters();
        (0..c.len())
            .filter(move |&i| c[i].get() != 0)
            .map(move |i| self.bucket_at(i))
    }

    /// True if a bucket counter hit its maximum, so bucket counts no longer add up to
    /// [`Histogram::count`]. Use `u64` counters for runs that long.
    pub fn is_saturated(&self) -> bool {
        self.counters
            .counters()
            .iter()
            .any(|c| c.get() == <S::Counter as Counter>::MAX)
    }

    /// The value at percentile `p` (0 ..= 100) by the nearest-rank definition: the smallest
    /// recorded value with at least `p` % of all values at or below it.
    ///
    /// # Error bound
    ///
    /// The exact value lies in a known bucket; the result is the middle of that bucket's
    /// range narrowed to `[min, max]`, so it is off by at most half the bucket width:
    /// for [`LogLinear`] at most `2^-(P+1)` of the exact value (exact for
    /// |value| < `2^(P+1)`), for [`Linear`] at most `width/2`. When the rank falls in
    /// the underflow (overflow) counter, the exact [`min`](Histogram::min)
    /// ([`max`](Histogram::max)) is returned: a bound, not an estimate.
    ///
    /// `None` when empty or when `p` is not within 0 ..= 100. One pass over the counters at
    /// most; for several percentiles use [`Histogram::percentiles`] (one pass for all).
    pub fn percentile(&self, p: f64) -> Option<i64> {
        self.percentiles([p])[0]
    }

    /// Several percentiles at once, each as [`Histogram::percentile`], in one pass over the
    /// counters when `ps` is in ascending order (another pass for each step down). Read it on
    /// a copy (`clone()`) taken in a short critical section, not inside one.
    ///
    /// ```
    /// let mut h = rtlat_core::DefaultHistogram::default();
    /// for v in 1..=100 {
    ///     h.record(v); // exact below 128 ns at the default precision
    /// }
    /// let [p50, p99, max] = h.percentiles([50.0, 99.0, 100.0]);
    /// assert_eq!((p50, p99, max), (Some(50), Some(99), Some(100)));
    /// ```
    pub fn percentiles<const K: usize>(&self, ps: [f64; K]) -> [Option<i64>; K] {
        let mut out = [None; K];
        self.percentiles_into(&ps, &mut out);
        out
    }

    /// [`Histogram::percentiles`] into a caller's slice: `out[i]` gets percentile `ps[i]`
    /// (as many as the shorter of the two holds).
    pub fn percentiles_into(&self, ps: &[f64], out: &mut [Option<i64>]) {
        let (Some(min), Some(max)) = (self.min(), self.max()) else {
            out.fill(None);
            return;
        };
        // The exact count: it equals the counters' sum unless a counter saturated, and then
        // ranks past the counted values report the exact max.
        let total = self.count();
        let c = self.counters.counters();
        // The walk: `seen` values lie in counters `..index`.
        let (mut index, mut seen, mut last_rank) = (0, 0u64, 0u64);
        for (&p, slot) in ps.iter().zip(out.iter_mut()) {
            if !(0.0..=100.0).contains(&p) {
                *slot = None;
                continue;
            }
            // Parts per billion, so the rank is integer arithmetic on the exact count.
            let ppb = (p * 1e7 + 0.5) as u128;
            let rank = ((total as u128 * ppb).div_ceil(1_000_000_000)).max(1) as u64;
            if rank < last_rank {
                (index, seen) = (0, 0);
            }
            last_rank = rank;
            while index < c.len() {
                let through = seen.saturating_add(c[index].get());
                if through >= rank {
                    break;
                }
                seen = through;
                index += 1;
            }
            *slot = Some(self.estimate(index, min, max));
        }
    }

    /// The value reported for a rank that falls in counter `index` (`len` when past them all):
    /// the middle of the bucket narrowed to `[min, max]`; `min` for underflow, `max` for
    /// overflow.
    fn estimate(&self, index: usize, min: i64, max: i64) -> i64 {
        let len = self.counters.counters().len();
        if index == 0 {
            return min;
        }
        if index >= len - 1 {
            return max;
        }
        let (low, high) = self.layout.bounds(index, len);
        let (a, b) = (low.max(min) as i128, high.min(max) as i128);
        (a + (b - a) / 2) as i64
    }

    /// The value of rank `rank` (1-based, in sorted order), estimated as for
    /// [`Histogram::percentile`]. `None` when empty or `rank` is 0 or past the count.
    pub fn value_at_rank(&self, rank: u64) -> Option<i64> {
        let (min, max) = (self.min()?, self.max()?);
        if rank == 0 {
            return None;
        }
        let c = self.counters.counters();
        let mut seen = 0u64;
        for (index, counter) in c.iter().enumerate() {
            seen = seen.saturating_add(counter.get());
            if seen >= rank {
                return Some(self.estimate(index, min, max));
            }
        }
        None
    }

    /// Population standard deviation estimated from the buckets: each value is taken at the
    /// middle of its bucket (narrowed to `[min, max]`; underflow at `min`, overflow at `max`)
    /// around the exact mean. Every value is then off by at most half its bucket width (0.78 %
    /// of it at the default precision), and so is the deviation. `None` when empty. For an
    /// exact figure record into [`crate::Stats`] as well.
    pub fn std_dev(&self) -> Option<f64> {
        let n = self.count();
        let (min, max, mean) = (self.min()?, self.max()?, self.summary.mean()?);
        let c = self.counters.counters();
        let mut sum = 0.0;
        for (index, counter) in c.iter().enumerate().filter(|(_, k)| k.get() != 0) {
            let value = if index == 0 {
                min as f64
            } else if index == c.len() - 1 {
                max as f64
            } else {
                let (low, high) = self.layout.bounds(index, c.len());
                let (a, b) = (low.max(min) as f64, high.min(max) as f64);
                (a + b) / 2.0
            };
            sum += counter.get() as f64 * (value - mean) * (value - mean);
        }
        Some(crate::stats::sqrt(sum / n as f64))
    }

    /// Adds `other`'s values, exactly as if they had been recorded here. Error if the two
    /// differ in layout or capacity.
    pub fn merge<S2: Storage>(&mut self, other: &Histogram<L, S2>) -> Result<(), Error> {
        let theirs = other.counters.counters();
        let ours = self.counters.counters_mut();
        if self.layout != other.layout || ours.len() != theirs.len() {
            return Err(Error::LayoutMismatch);
        }
        for (a, b) in ours.iter_mut().zip(theirs) {
            a.add(b.get());
        }
        self.summary.merge(&other.summary);
        Ok(())
    }

    /// Forgets everything recorded; the layout stays.
    pub fn reset(&mut self) {
        self.counters.counters_mut().fill(Default::default());
        self.summary.reset();
    }
}

impl<L: Layout, S: Storage> Record for Histogram<L, S> {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        Histogram::record(self, value);
    }
}

#[cfg(test)]
mod tests;
