//! A histogram of the lateness beside the monitor, in time-source ticks (40 ns), sized by
//! rtlat-core at compile time for ±10 ms at ≤ 3 % error: log-linear, precision 5 (2^5
//! sub-buckets per octave, percentiles within 2^-6 = 1.6 % of the exact value, exact below 64
//! ticks), 893 16-bit counters, all zero when empty (`.bss`, no start-up code).
//!
//! Counters only (`SharedLogCounters`): the monitor already keeps the count, extremes and sum,
//! so the interrupt adds a bucket index and one counter increment, inside the monitor's tick;
//! the main loop ranks the counters as they are, without a copy, without masking interrupts
//! and without retrying (a counter only grows: values recorded during the walk may or may not
//! be counted), with the monitor's exact extremes.

use rtlat_core::histogram::{LogLinearSize, SharedLogCounters, log_linear_size};

/// ±10 ms in time-source ticks.
const RANGE_TICKS: u64 = 10_000_000 * crate::clock::RATE_HZ as u64 / 1_000_000_000;
/// Precision and counters for ±10 ms at ≤ 3 % (30 000 ppm): 5 and 893.
const SIZE: LogLinearSize = log_linear_size(RANGE_TICKS, 30_000);

/// The lateness histogram's type.
pub type LatenessCounters = SharedLogCounters<{ SIZE.precision }, { SIZE.counters }>;

static HISTOGRAM: LatenessCounters = LatenessCounters::new();

/// Records one lateness (ticks): called from the timer interrupt, inside the monitor's tick.
#[inline(always)]
pub fn record(lateness_ticks: i32) {
    HISTOGRAM.record(lateness_ticks);
}

/// The count and percentiles 50, 90, 99 and 99.9 of the lateness (ns), ranked in integers
/// (parts per million: no soft-float) and narrowed to the monitor's exact extremes (read just
/// before); `None` before the first tick.
pub fn percentiles() -> Option<(u64, [i64; 4])> {
    let extremes = crate::monitor::snapshot().lateness?;
    let ranked = HISTOGRAM.percentiles_ppm([500_000, 900_000, 990_000, 999_000], extremes);
    let count = HISTOGRAM.count();
    let mut ns = [0; 4];
    for (out, ticks) in ns.iter_mut().zip(ranked) {
        *out = crate::monitor::scale().to_ns_signed(ticks?);
    }
    Some((count, ns))
}

/// The histogram's size in bytes, for the start-up line.
pub const BYTES: usize = core::mem::size_of::<LatenessCounters>();
