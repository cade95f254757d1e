//! The time source the interrupt reads, a raw 32-bit count (rtlat-core's 32-bit monitor takes
//! it as it is: its wrapping arithmetic is exact across the counter's wraps), and what the
//! interrupt's deadline was.
//!
//! Two sources: CMSDK TIMER0 (the default, emulated by QEMU) and, with the `dwt-clock` feature,
//! the Cortex-M DWT cycle counter (CYCCNT). **QEMU does not emulate the DWT cycle counter**: under
//! `qemu-system-arm` CYCCNT reads 0 and never moves. A clock that does not advance between two
//! timer interrupts is refused (the SysTick handler checks); it is never measured silently.

/// Ticks per second of the time source (the MPS2's 25 MHz system clock, which also drives the
/// core and so SysTick: time-source ticks and core cycles are the same unit here).
pub const RATE_HZ: u32 = crate::board::SYSCLK_HZ;

/// The timer interrupt's period, in time-source ticks (1 ms).
pub const PERIOD: u32 = RATE_HZ / 1000;

/// The time now, in ticks, counting up and wrapping at 2^32 (every 171.8 s at 25 MHz; the
/// 1 ms interrupt reads it far more often): TIMER0 counts down, so its reading is
/// complemented.
#[cfg(not(feature = "dwt-clock"))]
#[inline(always)]
pub fn now() -> u32 {
    !crate::board::time_source_value()
}

/// The time now, in ticks of the DWT cycle counter (core cycles: [`RATE_HZ`] on the MPS2).
#[cfg(feature = "dwt-clock")]
#[inline(always)]
pub fn now() -> u32 {
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

/// The deadline of the SysTick interrupt being handled: the moment its pending bit was set.
///
/// SysTick reloads itself, so its expiries keep their phase: the latest one is
/// `now − (cycles since SysTick reached 0)`. If the interrupt came more than a period late
/// (interrupts masked), it was pending since the first expiry after the previous interrupt's:
/// that is its deadline, and the monitor counts the expiries passed since as overruns. The
/// earlier of the two is taken, so an interrupt delivered twice for one expiry (QEMU catching
/// up its timers on a loaded host) is measured against that expiry, not one in the future.
pub struct Deadlines {
    /// SysTick's latest expiry seen (once `started`).
    latest: u32,
    started: bool,
}

impl Deadlines {
    /// No interrupt handled yet.
    pub const fn new() -> Self {
        Deadlines {
            latest: 0,
            started: false,
        }
    }

    /// The deadline of the interrupt handled at `now`, `since_expiry` ticks after SysTick's
    /// latest expiry (times wrap at 2^32: "earlier" is by their difference).
    #[inline(always)]
    pub fn deadline(&mut self, now: u32, since_expiry: u32) -> u32 {
        let latest = now.wrapping_sub(since_expiry);
        let next = self.latest.wrapping_add(PERIOD);
        let deadline = if self.started && latest.wrapping_sub(next) as i32 > 0 {
            next
        } else {
            latest
        };
        (self.latest, self.started) = (latest, true);
        deadline
    }
}
