//! The jitter monitor the timer interrupt ticks, in a `static`: the only file that knows
//! rtlat-core's monitor API.
//!
//! [`SharedJitterMonitor32`] is lock-free (a sequence lock over atomics) and takes the raw
//! 32-bit time-source readings: the interrupt never waits and never masks interrupts, the main
//! loop reads a consistent snapshot. It counts time-source ticks, converted to ns by its
//! [`TickScale`] only when a report is made.

use crate::clock::{PERIOD, RATE_HZ};
#[cfg(not(feature = "plain-monitor"))]
use rtlat_core::jitter::SharedJitterMonitor32;
use rtlat_core::report::JitterLines;

/// Time-source ticks to nanoseconds (the plain monitor's; the lock-free one's is its type's).
#[cfg(feature = "plain-monitor")]
const SCALE: rtlat_core::TickScale =
    rtlat_core::TickScale::from_hz(core::num::NonZeroU64::new(RATE_HZ as u64).unwrap());

/// Built by a `const fn`, all zero (`.bss`: no start-up code, no copy in flash); the period
/// (time-source ticks) and the time source's rate are its type's const parameters.
#[cfg(not(feature = "plain-monitor"))]
pub static MONITOR: SharedJitterMonitor32<PERIOD, { RATE_HZ as u64 }> =
    SharedJitterMonitor32::new();

/// For comparison (`plain-monitor`): the plain 64-bit `JitterMonitor` behind a
/// `critical-section` mutex, interrupts masked around the tick and around each snapshot, ticked
/// with the time extended to 64 bits.
#[cfg(feature = "plain-monitor")]
static MONITOR: critical_section::Mutex<core::cell::RefCell<rtlat_core::JitterMonitor>> =
    critical_section::Mutex::new(core::cell::RefCell::new(
        rtlat_core::JitterMonitor::with_scale(
            core::num::NonZeroU64::new(PERIOD as u64).unwrap(),
            SCALE,
        ),
    ));

/// The plain monitor's 64-bit time.
#[cfg(feature = "plain-monitor")]
static TIME: rtlat_core::CounterExtender<32> = rtlat_core::CounterExtender::new();

/// Ticks the monitor at `now` for an interrupt due at `deadline` (time-source readings):
/// called from the timer interrupt only (the monitor's one writer).
#[inline(always)]
pub fn tick(now: u32, deadline: u32) {
    #[cfg(all(not(feature = "plain-monitor"), feature = "histogram"))]
    MONITOR.tick_at_with(now, deadline, crate::histogram::record);
    #[cfg(all(not(feature = "plain-monitor"), not(feature = "histogram")))]
    MONITOR.tick_at(now, deadline);
    #[cfg(feature = "plain-monitor")]
    {
        // The lateness as the 32-bit monitor takes it, then both times in 64 bits.
        let late = now.wrapping_sub(deadline) as i32;
        let now = TIME.extend(now);
        let deadline = now.wrapping_add_signed(-i64::from(late));
        critical_section::with(|cs| {
            MONITOR.borrow_ref_mut(cs).tick_at(now, deadline);
            // With the histogram too, its counters take the same lateness.
            #[cfg(feature = "histogram")]
            crate::histogram::record(late);
        });
    }
}

/// Everything measured so far, as the `T:` and `J:` lines (ns).
pub fn lines() -> JitterLines {
    #[cfg(not(feature = "plain-monitor"))]
    return MONITOR.lines(0);
    #[cfg(feature = "plain-monitor")]
    return JitterLines::from_snapshot(
        0,
        &critical_section::with(|cs| MONITOR.borrow_ref(cs).snapshot()),
    );
}

/// Everything measured so far, in ticks (the histogram's extremes and scale).
#[cfg(feature = "histogram")]
pub fn snapshot() -> rtlat_core::jitter::JitterSnapshot {
    #[cfg(not(feature = "plain-monitor"))]
    return MONITOR.snapshot();
    #[cfg(feature = "plain-monitor")]
    return critical_section::with(|cs| MONITOR.borrow_ref(cs).snapshot());
}

/// Ticks to ns, a constant (the histogram's percentiles).
#[cfg(feature = "histogram")]
pub fn scale() -> rtlat_core::TickScale {
    #[cfg(not(feature = "plain-monitor"))]
    return MONITOR.scale();
    #[cfg(feature = "plain-monitor")]
    return SCALE;
}
