//! The interrupt-safe jitter monitor: an interrupt (or another core) ticks it, the main loop
//! reads it, both inside a `critical-section`.

use super::{JitterMonitor, JitterReport, Tick};
use core::cell::RefCell;
use core::num::NonZeroU64;
use critical_section::Mutex;

/// A [`JitterMonitor`] behind a `critical_section::Mutex`, so it can live in a `static`
/// that an interrupt handler ticks while the main loop takes reports.
///
/// ```
/// use core::num::NonZeroU64;
/// use rtlat_core::jitter::SharedJitterMonitor;
///
/// static SERVO: SharedJitterMonitor = SharedJitterMonitor::new(NonZeroU64::new(1_000_000).unwrap());
///
/// // in the timer interrupt:
/// SERVO.tick(1_000_000);
/// SERVO.tick(2_000_150);
/// // in the main loop:
/// assert_eq!(SERVO.report().max_jitter_ns, Some(150));
/// ```
pub struct SharedJitterMonitor {
    inner: Mutex<RefCell<JitterMonitor>>,
}

impl SharedJitterMonitor {
    /// A shared monitor for activity with period `period_ns`.
    pub const fn new(period_ns: NonZeroU64) -> Self {
        SharedJitterMonitor {
            inner: Mutex::new(RefCell::new(JitterMonitor::new(period_ns))),
        }
    }

    /// [`JitterMonitor::tick`] inside a critical section.
    pub fn tick(&self, now_ns: u64) -> Tick {
        critical_section::with(|cs| self.inner.borrow_ref_mut(cs).tick(now_ns))
    }

    /// [`JitterMonitor::report`] inside a critical section.
    pub fn report(&self) -> JitterReport {
        critical_section::with(|cs| self.inner.borrow_ref(cs).report())
    }

    /// [`JitterMonitor::reset`] inside a critical section.
    pub fn reset(&self) {
        critical_section::with(|cs| self.inner.borrow_ref_mut(cs).reset())
    }
}
