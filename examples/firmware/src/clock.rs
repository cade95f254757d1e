//! The time source the interrupt reads: a wrapping 32-bit counter extended to 64 bits, and the
//! frozen-clock check.
//!
//! Two sources: CMSDK TIMER0 (the default, emulated by QEMU) and, with the `dwt-clock` feature,
//! the Cortex-M DWT cycle counter (CYCCNT). **QEMU does not emulate the DWT cycle counter**: under
//! `qemu-system-arm` CYCCNT reads 0 and never moves. A clock that does not advance between two
//! timer interrupts is refused (see [`Extended::advance`]); it is never measured silently.

/// Ticks per second of the time source.
pub const RATE_HZ: u32 = crate::board::SYSCLK_HZ;

/// The raw time source: 32 bits counting up at [`RATE_HZ`], wrapping.
#[cfg(not(feature = "dwt-clock"))]
#[inline(always)]
pub fn raw() -> u32 {
    crate::board::time_source_ticks()
}

/// The raw time source: the DWT cycle counter (the core clock on the MPS2 is [`RATE_HZ`]).
#[cfg(feature = "dwt-clock")]
#[inline(always)]
pub fn raw() -> u32 {
    cortex_m::peripheral::DWT::cycle_count()
}

/// Starts the time source.
pub fn start(dcb: &mut cortex_m::peripheral::DCB, dwt: &mut cortex_m::peripheral::DWT) {
    if cfg!(feature = "dwt-clock") {
        dcb.enable_trace();
        dwt.enable_cycle_counter();
    } else {
        crate::board::start_time_source();
    }
}

/// A wrapping 32-bit counter extended to 64 bits. Sound while it is read at least once per wrap
/// (171 s at 25 MHz); the timer interrupt reads it every period.
pub struct Extended {
    last: u32,
    total: u64,
    primed: bool,
}

impl Extended {
    /// Nothing read yet.
    pub const fn new() -> Self {
        Extended {
            last: 0,
            total: 0,
            primed: false,
        }
    }

    /// Takes a new raw reading: the 64-bit time, or `None` if the counter has not moved since
    /// the previous reading (a frozen clock: a hardware timer read every period always moves).
    #[inline(always)]
    pub fn advance(&mut self, raw: u32) -> Option<u64> {
        let elapsed = raw.wrapping_sub(self.last);
        self.last = raw;
        if elapsed == 0 && self.primed {
            return None;
        }
        self.primed = true;
        self.total += elapsed as u64;
        Some(self.total)
    }
}
