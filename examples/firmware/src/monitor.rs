//! The jitter monitor the timer interrupt ticks, in a `static`: the only file that knows
//! rtlat-core's monitor API.
//!
//! [`SharedJitterMonitor`] is lock-free (a sequence lock over atomics): the interrupt never
//! waits and never masks interrupts, the main loop reads a consistent snapshot. It counts raw
//! time-source ticks, converted to ns by its [`TickScale`] only when a report is made.

use crate::clock::{PERIOD, RATE_HZ};
use core::num::NonZeroU64;
use rtlat_core::TickScale;
use rtlat_core::jitter::JitterReport;
#[cfg(not(feature = "plain-monitor"))]
use rtlat_core::jitter::SharedJitterMonitor;

/// Time-source ticks to nanoseconds.
pub const SCALE: TickScale = TickScale::from_hz(NonZeroU64::new(RATE_HZ as u64).unwrap());

/// The interrupt's period, in time-source ticks.
const PERIOD_TICKS: NonZeroU64 = NonZeroU64::new(PERIOD as u64).unwrap();

/// Built by a `const fn`: no start-up code.
#[cfg(not(feature = "plain-monitor"))]
static MONITOR: SharedJitterMonitor = SharedJitterMonitor::with_scale(PERIOD_TICKS, SCALE);

/// For comparison (`plain-monitor`): the plain `JitterMonitor` behind a `critical-section`
/// mutex, interrupts masked around the tick and around each snapshot.
#[cfg(feature = "plain-monitor")]
static MONITOR: critical_section::Mutex<core::cell::RefCell<rtlat_core::JitterMonitor>> =
    critical_section::Mutex::new(core::cell::RefCell::new(
        rtlat_core::JitterMonitor::with_scale(PERIOD_TICKS, SCALE),
    ));

/// Ticks the monitor at `now` for an interrupt due at `deadline` (time-source ticks): called
/// from the timer interrupt only (the monitor's one writer).
#[inline(always)]
pub fn tick(now: u64, deadline: u64) {
    #[cfg(not(feature = "plain-monitor"))]
    let tick = MONITOR.tick_at(now, deadline);
    #[cfg(feature = "plain-monitor")]
    let tick = critical_section::with(|cs| MONITOR.borrow_ref_mut(cs).tick_at(now, deadline));
    #[cfg(feature = "histogram")]
    if let Some(lateness) = tick.lateness {
        crate::histogram::record(lateness);
    }
    #[cfg(not(feature = "histogram"))]
    let _ = tick;
}

/// Everything measured so far, in ns.
pub fn report() -> JitterReport {
    #[cfg(not(feature = "plain-monitor"))]
    return MONITOR.report();
    #[cfg(feature = "plain-monitor")]
    return critical_section::with(|cs| MONITOR.borrow_ref(cs).snapshot()).report();
}
