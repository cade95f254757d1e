//! The jitter monitor the timer interrupt ticks, in a `static`: the only file that knows
//! rtlat-core's monitor API.
//!
//! Today's API (rtlat-core on main): [`SharedJitterMonitor`] is a `JitterMonitor` behind a
//! `critical-section` mutex (interrupts masked for the tick and for each report), and `tick`
//! takes nanoseconds, so the interrupt converts ticks with a [`TickScale`] every period.

use crate::clock::RATE_HZ;
use core::num::NonZeroU64;
use core::sync::atomic::{AtomicI32, Ordering};
use rtlat_core::TickScale;
use rtlat_core::jitter::{JitterReport, SharedJitterMonitor};

/// The interrupt's period, in time-source ticks.
pub const PERIOD_TICKS: u32 = RATE_HZ / 1000;

/// Time-source ticks to nanoseconds.
pub const SCALE: TickScale = match TickScale::new(RATE_HZ as u64) {
    Ok(scale) => scale,
    Err(_) => panic!("the time source has a rate"),
};

/// The interrupt's period, ns.
pub const PERIOD_NS: u64 = SCALE.to_ns(PERIOD_TICKS as u64);

static MONITOR: SharedJitterMonitor = SharedJitterMonitor::new(match NonZeroU64::new(PERIOD_NS) {
    Some(period) => period,
    None => panic!("the period is not zero"),
});

/// The latest tick's lateness, ns (cyclictest's `Act:`), clamped to ±2.1 s.
static LAST_LATENESS_NS: AtomicI32 = AtomicI32::new(0);

/// Ticks the monitor at `now` (time-source ticks): called from the timer interrupt.
#[inline(always)]
pub fn tick(now: u64) {
    let tick = MONITOR.tick(SCALE.to_ns(now));
    let late = tick.lateness_ns.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    LAST_LATENESS_NS.store(late, Ordering::Relaxed);
    #[cfg(feature = "histogram")]
    crate::histogram::record(tick.lateness_ns);
}

/// Everything measured so far, and the latest lateness (ns).
pub fn report() -> (JitterReport, i64) {
    let report = MONITOR.report();
    (report, LAST_LATENESS_NS.load(Ordering::Relaxed) as i64)
}
