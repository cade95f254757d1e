//! A histogram of the lateness beside the monitor, in time-source ticks (40 ns): log-linear,
//! 2^5 sub-buckets per octave (percentiles within 2^-6 = 1.6 % of the exact value, exact below
//! 64 ticks), covering ±10 ms, with 16-bit counters.
//!
//! Today's rtlat-core has no `u16` counter and no `const` histogram constructor: the counter is a
//! local newtype (`Count16`), and the `static` holds an `Option` filled at start-up.

use core::cell::RefCell;
use critical_section::Mutex;
use rtlat_core::histogram::{Counter, LogHistogram, LogLinear};

/// Sub-bucket precision: 2^5 per octave, a percentile error of at most 1/64 = 1.6 %.
const PRECISION: u32 = 5;
/// Counters: 445 magnitude buckets on each side of zero reach 253 951 ticks (10.16 ms at
/// 25 MHz), past 10 ms; plus the zero bucket and the two guards (underflow, overflow).
const COUNTERS: usize = 2 * 445 + 1 + 2;

/// A 16-bit bucket counter, saturating at 65 535.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Count16(u16);

impl Counter for Count16 {
    const MAX: u64 = u16::MAX as u64;
    #[inline(always)]
    fn increment(&mut self) {
        self.0 = self.0.saturating_add(1);
    }
    fn add(&mut self, n: u64) {
        self.0 = u16::try_from(n).map_or(u16::MAX, |n| self.0.saturating_add(n));
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self.0 as u64
    }
}

/// The lateness histogram's type.
pub type LatenessHistogram = LogHistogram<PRECISION, COUNTERS, Count16>;

static HISTOGRAM: Mutex<RefCell<Option<LatenessHistogram>>> = Mutex::new(RefCell::new(None));

/// Makes the empty histogram; before the timer interrupt starts.
pub fn init() {
    let histogram = LatenessHistogram::new(LogLinear::symmetric(COUNTERS)).ok();
    critical_section::with(|cs| *HISTOGRAM.borrow_ref_mut(cs) = histogram);
}

/// Records one lateness (ticks): called from the timer interrupt.
#[inline(always)]
pub fn record(lateness_ns: i64) {
    critical_section::with(|cs| {
        if let Some(histogram) = HISTOGRAM.borrow_ref_mut(cs).as_mut() {
            histogram.record(lateness_ns);
        }
    });
}

/// The count and percentiles 50, 90, 99 and 99.9 of the lateness (ns), computed on a copy
/// taken with interrupts masked; `None` before the first tick.
pub fn percentiles() -> Option<(u64, [i64; 4])> {
    let copy = critical_section::with(|cs| HISTOGRAM.borrow_ref(cs).clone())?;
    let count = copy.count();
    // Rank ⌈count · p⌉ in integer arithmetic (no soft-float on the reader's path either).
    let rank = |per_mille: u64| (count * per_mille).div_ceil(1000).max(1);
    let ns = |ticks: i64| crate::monitor::SCALE.to_ns_signed(ticks);
    Some((
        count,
        [
            ns(copy.value_at_rank(rank(500))?),
            ns(copy.value_at_rank(rank(900))?),
            ns(copy.value_at_rank(rank(990))?),
            ns(copy.value_at_rank(rank(999))?),
        ],
    ))
}

/// The histogram's size in bytes, for the start-up line.
pub const BYTES: usize = core::mem::size_of::<LatenessHistogram>();
