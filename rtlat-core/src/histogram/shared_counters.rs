//! Counters only: a symmetric log-linear histogram's 16-bit counters as atomics, for an
//! interrupt handler to record `i32` values into (ticks of a 32-bit counter) beside a
//! [`SharedJitterMonitor32`](crate::jitter::SharedJitterMonitor32), which already keeps the
//! count, extremes and sum: recording is the bucket index and one counter increment.
//!
//! The buckets are exactly [`SymmetricLogLinear`]'s (a
//! [`SymmetricLogHistogram<P, N, u16>`](crate::SymmetricLogHistogram) puts every value in the
//! same counter), so [`log_linear_size`](super::log_linear_size) sizes it.
//!
//! **Exact counts.** A 16-bit counter that wraps (65 536 values in one bucket: 65 s at 1 kHz)
//! is not saturated: the wrap is counted, out of line, in a small table of carries (bucket,
//! wraps), so every value stays counted in its bucket. Only when [`CARRY_SLOTS`] buckets
//! already carried does a further bucket's wrap go to [`uncounted`](SharedLogCounters::uncounted)
//! (65 536 values each, in no bucket), which percentiles then report as past the maximum.
//!
//! **Readers** never hold the writer up and never wait for it: a counter only grows, so a
//! walk over the counters while values are recorded sees each counter at some moment of the
//! walk, and a rank it finds is that of a state between the walk's start and end (values
//! recorded meanwhile may or may not be counted). Only a wrap (a carry) changes two places; the
//! writer counts every wrap before it stores the wrapped counter, and a walk that saw the wrap
//! count move walks again (rare: once per 65 536 values in one bucket), so no walk ever sees a
//! counter's 65 536 values missing or twice. Ranks are integers (parts per million): no
//! floating point, which a single-precision FPU would take from a soft-float library.

use super::SymmetricLogLinear;
use crate::div64::div_u64;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::sync::atomic::{AtomicU16, AtomicU32, fence};

/// Buckets whose counter may wrap and still be counted exactly.
pub const CARRY_SLOTS: usize = 8;

/// Values per counter wrap.
const WRAP: u64 = 1 << 16;

/// A symmetric log-linear histogram's counters (precision `P`, `N` counters: underflow,
/// buckets, overflow, value 0 in the middle) as 16-bit atomics: one writer records, any
/// number of readers rank them meanwhile (module docs). All zero when empty: a `static` lands in
/// `.bss`.
///
/// ```
/// use rtlat_core::histogram::{SharedLogCounters, log_linear_size};
/// use rtlat_core::jitter::SharedJitterMonitor32;
///
/// const SIZE: rtlat_core::histogram::LogLinearSize = log_linear_size(250_000, 30_000);
/// static LATENESS: SharedLogCounters<{ SIZE.precision }, { SIZE.counters }> =
///     SharedLogCounters::new();
/// static MONITOR: SharedJitterMonitor32<1_000> = SharedJitterMonitor32::new();
///
/// for k in 1..=50u32 {
///     MONITOR.tick_at_with(k * 1_000 + k, k * 1_000, |late| LATENESS.record(late));
/// }
/// let extremes = MONITOR.snapshot().lateness.unwrap();
/// let [p50, p99] = LATENESS.percentiles_ppm([500_000, 990_000], extremes);
/// assert_eq!((p50, p99), (Some(25), Some(50))); // exact below 2^(P+1) = 64
/// ```
#[derive(Debug)]
pub struct SharedLogCounters<const P: u32, const N: usize> {
    counters: [AtomicU16; N],
    /// Bucket index + 1 of each carry slot (0: free).
    carry_bucket: [AtomicU16; CARRY_SLOTS],
    /// Wraps of that bucket's counter.
    carries: [AtomicU32; CARRY_SLOTS],
    /// Wraps that found every carry slot taken: 65 536 values each, in no bucket.
    uncounted: AtomicU32,
    /// Wraps so far (a walk that saw it move walks again).
    wraps: AtomicU32,
}

impl<const P: u32, const N: usize> Default for SharedLogCounters<P, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const P: u32, const N: usize> SharedLogCounters<P, N> {
    /// The index of value 0.
    const ZERO: usize = {
        assert!(
            SymmetricLogLinear::<P>::new().check_len(N).is_ok(),
            "a layout SymmetricLogLinear accepts"
        );
        assert!(N < u16::MAX as usize, "fewer than 65 535 counters");
        (N - 1) / 2
    };

    /// Empty (usable in a `static`; all zero).
    pub const fn new() -> Self {
        let _ = Self::ZERO; // checks the layout at compile time
        SharedLogCounters {
            counters: [const { AtomicU16::new(0) }; N],
            carry_bucket: [const { AtomicU16::new(0) }; CARRY_SLOTS],
            carries: [const { AtomicU32::new(0) }; CARRY_SLOTS],
            uncounted: AtomicU32::new(0),
            wraps: AtomicU32::new(0),
        }
    }

    /// The counter index of `value`: [`SymmetricLogLinear`]'s, in 32-bit arithmetic.
    #[inline(always)]
    pub fn index(value: i32) -> usize {
        let magnitude = magnitude_index(P, value.unsigned_abs()) as usize;
        if value >= 0 {
            (Self::ZERO + magnitude).min(N - 1)
        } else {
            Self::ZERO.saturating_sub(magnitude)
        }
    }

    /// Counts `value` (one writer only: an interrupt handler, or the monitor's tick).
    #[inline(always)]
    pub fn record(&self, value: i32) {
        let index = Self::index(value);
        let counter = &self.counters[index];
        let count = counter.load(Relaxed).wrapping_add(1);
        if count == 0 {
            // Before the wrapped counter is stored, so a walk that sees it sees the carry.
            self.carry(index);
        }
        counter.store(count, Relaxed);
    }

    /// Counter `index` wrapped: count the wrap in its carry slot (or a free one), else in
    /// `uncounted`.
    #[cold]
    #[inline(never)]
    fn carry(&self, index: usize) {
        self.wraps
            .store(self.wraps.load(Relaxed).wrapping_add(1), Relaxed);
        // The wrap count before the carry and the counter (a reader checks it after).
        fence(Release);
        let tag = index as u16 + 1;
        for (bucket, carries) in self.carry_bucket.iter().zip(&self.carries) {
            let held = bucket.load(Relaxed);
            if held == tag || held == 0 {
                bucket.store(tag, Relaxed);
                carries.store(carries.load(Relaxed).wrapping_add(1), Relaxed);
                return;
            }
        }
        self.uncounted
            .store(self.uncounted.load(Relaxed).wrapping_add(1), Relaxed);
    }

    /// Values counted in counter `index` (with its carries).
    pub fn bucket_count(&self, index: usize) -> u64 {
        self.counters.get(index).map_or(0, |counter| {
            u64::from(counter.load(Relaxed)) + self.carried(index)
        })
    }

    /// The values counter `index` holds past its 16 bits (its carries).
    fn carried(&self, index: usize) -> u64 {
        let tag = index as u16 + 1;
        self.carry_bucket
            .iter()
            .zip(&self.carries)
            .find(|(bucket, _)| bucket.load(Relaxed) == tag)
            .map_or(0, |(_, carries)| u64::from(carries.load(Relaxed)) * WRAP)
    }

    /// Values recorded whose bucket is unknown (a wrap with every carry slot taken).
    pub fn uncounted(&self) -> u64 {
        u64::from(self.uncounted.load(Relaxed)) * WRAP
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        let counters: u64 = self
            .counters
            .iter()
            .map(|c| u64::from(c.load(Relaxed)))
            .sum();
        let carried: u64 = self
            .carries
            .iter()
            .map(|c| u64::from(c.load(Relaxed)))
            .sum();
        counters + carried * WRAP + self.uncounted()
    }

    /// The values at ranks `ranks` (1-based, ascending for one pass), each estimated as
    /// [`Histogram::percentile`](crate::Histogram::percentile) does: the middle of its bucket
    /// narrowed to `extremes` (the recorded values' exact minimum and maximum, e.g. the
    /// monitor's lateness), `extremes.0` in the underflow counter, `extremes.1` in the
    /// overflow counter or past the counted values. `None` for rank 0 or past the count.
    pub fn values_at_ranks<const K: usize>(
        &self,
        ranks: [u64; K],
        extremes: (i64, i64),
    ) -> [Option<i64>; K] {
        loop {
            let wraps = self.wraps.load(Acquire);
            let values = self.walk(ranks, extremes);
            // The counters read before the wrap count is read again.
            fence(Acquire);
            if self.wraps.load(Relaxed) == wraps {
                return values;
            }
        }
    }

    /// One walk of [`values_at_ranks`](Self::values_at_ranks).
    fn walk<const K: usize>(&self, ranks: [u64; K], extremes: (i64, i64)) -> [Option<i64>; K] {
        let count = self.count();
        // Carries are rare: without any, the walk reads the counters alone.
        let carried = self.carry_bucket.iter().any(|b| b.load(Relaxed) != 0);
        let mut out = [None; K];
        let (mut index, mut seen) = (0, 0u64);
        for (&rank, slot) in ranks.iter().zip(out.iter_mut()) {
            if rank == 0 || rank > count {
                continue;
            }
            if rank <= seen {
                (index, seen) = (0, 0);
            }
            while index < N {
                let mut here = u64::from(self.counters[index].load(Relaxed));
                if carried {
                    here += self.carried(index);
                }
                let through = seen + here;
                if through >= rank {
                    break;
                }
                seen = through;
                index += 1;
            }
            *slot = Some(estimate::<P, N>(index, extremes));
        }
        out
    }

    /// Percentiles in parts per million (500 000 is the median), nearest rank
    /// (`⌈count · ppm / 10^6⌉`, at least 1), ascending for one pass, as
    /// [`values_at_ranks`](Self::values_at_ranks); `None` when empty or past 10^6 ppm.
    pub fn percentiles_ppm<const K: usize>(
        &self,
        ppm: [u32; K],
        extremes: (i64, i64),
    ) -> [Option<i64>; K] {
        let count = self.count();
        let ranks = ppm.map(|ppm| {
            if ppm > 1_000_000 {
                return 0;
            }
            // ⌈count · ppm / 10^6⌉ without overflow: whole millions, then the rest.
            let millions = div_u64(count, 1_000_000);
            let rest = count - millions * 1_000_000;
            let ppm = u64::from(ppm);
            (millions * ppm + div_u64(rest * ppm + 999_999, 1_000_000)).max(1)
        });
        self.values_at_ranks(ranks, extremes)
    }
}

/// Index of magnitude `m` at precision `p`, counted from the zero bucket: the identity below
/// `2^(p+1)`, then `2^p` buckets per power of two (as the 64-bit layout, in 32 bits).
#[inline(always)]
const fn magnitude_index(p: u32, m: u32) -> u32 {
    let exponent = 31 - (m | (1 << p)).leading_zeros();
    let shift = exponent - p;
    (shift << p) + (m >> shift)
}

/// The value reported for a rank in counter `index` (`N` when past them all).
fn estimate<const P: u32, const N: usize>(index: usize, (min, max): (i64, i64)) -> i64 {
    let zero = (N - 1) / 2;
    if index == 0 {
        return min;
    }
    if index >= N - 1 {
        return max;
    }
    let (low, high) = if index >= zero {
        let (low, high) = magnitude_bounds(P, (index - zero) as u64);
        (low as i64, high as i64)
    } else {
        let (low, high) = magnitude_bounds(P, (zero - index) as u64);
        (-(high as i64), -(low as i64))
    };
    let (a, b) = (low.max(min), high.min(max));
    a + (b - a) / 2
}

/// Inclusive magnitude bounds of magnitude index `j` (`j` from an `i32` value: below 2^32).
fn magnitude_bounds(p: u32, j: u64) -> (u64, u64) {
    if j < (1 << p) {
        return (j, j);
    }
    let shift = ((j >> p) - 1).min(32) as u32;
    let low = ((1 << p) + (j & ((1 << p) - 1))) << shift;
    (low, low + (1 << shift) - 1)
}
