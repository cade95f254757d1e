//! A histogram of the lateness beside the monitor, in time-source ticks (40 ns), sized by
//! rtlat-core at compile time for ±10 ms at ≤ 3 % error: log-linear, precision 5 (2^5
//! sub-buckets per octave, percentiles within 2^-6 = 1.6 % of the exact value, exact below 64
//! ticks), 893 16-bit counters, all zero when empty (`.bss`, no start-up code).

use core::cell::RefCell;
use critical_section::Mutex;
use rtlat_core::SymmetricLogHistogram;
use rtlat_core::histogram::{LogLinearSize, log_linear_size};

/// ±10 ms in time-source ticks.
const RANGE_TICKS: u64 = 10_000_000 * crate::clock::RATE_HZ as u64 / 1_000_000_000;
/// Precision and counters for ±10 ms at ≤ 3 % (30 000 ppm): 5 and 893.
const SIZE: LogLinearSize = log_linear_size(RANGE_TICKS, 30_000);

/// The lateness histogram's type.
pub type LatenessHistogram = SymmetricLogHistogram<{ SIZE.precision }, { SIZE.counters }, u16>;

static HISTOGRAM: Mutex<RefCell<LatenessHistogram>> =
    Mutex::new(RefCell::new(LatenessHistogram::empty()));

/// Records one lateness (ticks): called from the timer interrupt.
#[inline(always)]
pub fn record(lateness_ticks: i64) {
    critical_section::with(|cs| HISTOGRAM.borrow_ref_mut(cs).record(lateness_ticks));
}

/// The count and percentiles 50, 90, 99 and 99.9 of the lateness (ns), computed on a copy
/// taken with interrupts masked (1.8 KiB: a few µs at 25 MHz); `None` before the first tick.
///
/// By integer rank (`value_at_rank`, nearest-rank ⌈count · p⌉): rtlat-core's one-pass
/// `percentiles` takes `f64` percentiles, which on a Cortex-M4F (single-precision FPU only)
/// links 2.6 KiB of soft-float; four walks over 893 counters cost less here than that flash.
pub fn percentiles() -> Option<(u64, [i64; 4])> {
    let copy = critical_section::with(|cs| HISTOGRAM.borrow_ref(cs).clone());
    let count = copy.count();
    let at = |per_mille: u64| {
        let rank = (count * per_mille).div_ceil(1000).max(1);
        copy.value_at_rank(rank)
            .map(|ticks| crate::monitor::SCALE.to_ns_signed(ticks))
    };
    Some((count, [at(500)?, at(900)?, at(990)?, at(999)?]))
}

/// The histogram's size in bytes, for the start-up line.
pub const BYTES: usize = core::mem::size_of::<LatenessHistogram>();
