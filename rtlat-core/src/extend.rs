//! Extending a wrapping hardware counter (a 24-bit SysTick, a 32-bit timer or cycle
//! counter) to 64 bits, so a monitor can take its ticks directly.

use crate::word::Word;

/// Extends a free-running `BITS`-bit counter (1 ≤ `BITS` ≤ 32) that wraps at `2^BITS` to a
/// 64-bit count: each reading adds the ticks since the previous one, modulo `2^BITS`.
///
/// **Requirement**: read it at least once per wrap, i.e. less than `2^BITS` ticks apart
/// (every timer interrupt, for one whose period is shorter than the counter's wrap: a 24-bit
/// counter at 168 MHz wraps every 99.9 ms, a 32-bit one every 25.6 s). One wrap between two
/// readings is handled exactly; a second one is lost without a trace. The count starts at
/// the first reading's value.
///
/// Single writer, `&self` (a relaxed atomic word underneath, no lock), so it can live in a
/// `static` beside a [`SharedJitterMonitor`](crate::jitter::SharedJitterMonitor) and be read
/// from the same interrupt handler.
///
/// ```
/// use rtlat_core::CounterExtender;
///
/// static SYSTICK: CounterExtender<24> = CounterExtender::new();
/// assert_eq!(SYSTICK.extend(0xFF_FFF0), 0xFF_FFF0);
/// assert_eq!(SYSTICK.extend(0x00_0010), 0x100_0010); // wrapped once: +0x20
/// // SysTick counts down: `extend_down` takes its value as read.
/// static DOWN: CounterExtender<24> = CounterExtender::new();
/// let start = DOWN.extend_down(0x00_0005);
/// assert_eq!(DOWN.extend_down(0xFF_FFFD) - start, 8); // 5 → 0, wrap, 0xFF_FFFF → 0xFF_FFFD
/// ```
#[derive(Debug, Default)]
pub struct CounterExtender<const BITS: u32> {
    count: Word,
}

impl<const BITS: u32> CounterExtender<BITS> {
    /// The counter's values: `2^BITS − 1`.
    pub const MASK: u32 = {
        assert!(BITS >= 1 && BITS <= 32, "a counter of 1 to 32 bits");
        (u32::MAX) >> (32 - BITS)
    };

    /// An extender that has seen no reading (usable in a `static`).
    pub const fn new() -> Self {
        let _ = Self::MASK; // rejects a width outside 1..=32 at compile time
        CounterExtender { count: Word::new() }
    }

    /// The 64-bit count for a reading `raw` of an up-counter (bits above `BITS` ignored).
    #[inline(always)]
    pub fn extend(&self, raw: u32) -> u64 {
        let count = self.count.get();
        let elapsed = (raw.wrapping_sub(count as u32)) & Self::MASK;
        let count = count.wrapping_add(u64::from(elapsed));
        self.count.set(count);
        count
    }

    /// The 64-bit count for a reading `raw` of a down-counter (SysTick), counting up.
    #[inline(always)]
    pub fn extend_down(&self, raw: u32) -> u64 {
        self.extend(!raw)
    }

    /// The count at the last reading.
    pub fn count(&self) -> u64 {
        self.count.get()
    }
}
