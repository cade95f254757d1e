//! The generic timer as an embedded-hal 1.0 [`DelayNs`], with and without `std`:
//!
//! - [`GenericTimer`]: a delay spins on the counter (`isb; mrs cntvct_el0`, with a spin-loop
//!   hint) until it has advanced by the time asked for, rounded up to whole ticks. No `std`,
//!   no interrupt, nothing to set up: the bare-metal delay (EL1, or EL0 with the counter
//!   enabled).
//! - `GenericTimerSleep` (aarch64 Linux, feature `linux`): a delay sleeps until the counter
//!   reads `now + d`, as a measuring loop sleeps to its deadlines (`clock_nanosleep`,
//!   finished on the counter).
//!
//! Either way a delay never returns before the counter has advanced by the time asked for,
//! so rtlat-core's `DelayProbe` on the same counter measures a non-negative overshoot.

use core::hint::spin_loop;

use embedded_hal::delay::DelayNs;

use crate::generic_timer::{GenericTimer, read_cntvct};

/// `ns` in ticks at `rate_hz`, rounded up (a delay is never short).
#[inline]
fn ticks_for(ns: u64, rate_hz: u64) -> u64 {
    let ticks = (u128::from(ns) * u128::from(rate_hz)).div_ceil(1_000_000_000);
    u64::try_from(ticks).unwrap_or(u64::MAX)
}

/// Spins until the counter has advanced `ticks` past `start`.
#[inline]
fn spin_until(start: u64, ticks: u64) {
    while read_cntvct().wrapping_sub(start) < ticks {
        spin_loop();
    }
}

/// A delay spins on the counter (module `delay`).
impl DelayNs for GenericTimer {
    fn delay_ns(&mut self, ns: u32) {
        let start = read_cntvct();
        spin_until(start, ticks_for(u64::from(ns), self.rate_hz()));
    }
    fn delay_us(&mut self, us: u32) {
        let start = read_cntvct();
        spin_until(start, ticks_for(u64::from(us) * 1_000, self.rate_hz()));
    }
    fn delay_ms(&mut self, ms: u32) {
        let start = read_cntvct();
        spin_until(start, ticks_for(u64::from(ms) * 1_000_000, self.rate_hz()));
    }
}

#[cfg(all(target_os = "linux", feature = "linux"))]
mod sleep {
    use embedded_hal::delay::DelayNs;
    use rtlat_core::Timer;

    use super::{spin_until, ticks_for};
    use crate::generic_timer::read_cntvct;
    use crate::linux_sleep::GenericTimerSleep;

    impl GenericTimerSleep {
        /// Sleeps until the counter reads `now + ns`. `DelayNs` cannot fail: should the sleep
        /// fail (the measurement cancelled while it slept), the rest is slept with
        /// `std::thread::sleep` and finished on the counter.
        fn delay(&mut self, ns: u64) {
            let start = read_cntvct();
            let ticks = ticks_for(ns, self.map().rate_hz());
            if self.sleep_until(start.saturating_add(ticks)).is_err() {
                std::thread::sleep(std::time::Duration::from_nanos(ns));
                spin_until(start, ticks);
            }
        }
    }

    /// A delay sleeps until the counter reads `now + d` (module `delay`).
    impl DelayNs for GenericTimerSleep {
        fn delay_ns(&mut self, ns: u32) {
            self.delay(u64::from(ns));
        }
        fn delay_us(&mut self, us: u32) {
            self.delay(u64::from(us) * 1_000);
        }
        fn delay_ms(&mut self, ms: u32) {
            self.delay(u64::from(ms) * 1_000_000);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_core::Summary;
    use rtlat_core::delay::{DelayProbe, DelayRequest};

    #[test]
    fn ticks_round_up() {
        assert_eq!(ticks_for(1_000, 1_000_000_000), 1_000);
        assert_eq!(ticks_for(1_000, 19_200_000), 20); // 19.2 exactly: 20
        assert_eq!(ticks_for(1, 62_500_000), 1);
        assert_eq!(ticks_for(0, 62_500_000), 0);
        assert_eq!(ticks_for(u64::MAX, u64::MAX), u64::MAX);
    }

    /// A spinning delay timed on the same counter: never short (counts and signs only).
    #[test]
    fn a_spinning_delay_is_never_short_on_the_counter() {
        let mut delay = GenericTimer::new().unwrap();
        let mut probe = DelayProbe::new(GenericTimer::new().unwrap()).unwrap();
        let mut summary = Summary::new();
        for request in [
            DelayRequest::Ns(500),
            DelayRequest::Us(20),
            DelayRequest::Ms(1),
        ] {
            probe
                .measure(&mut delay, request, 10, &mut summary)
                .unwrap();
        }
        assert_eq!(summary.count(), 30);
        // The probe's reads bracket the delay's own: elapsed ≥ the ticks the delay waited,
        // rounded up from the time asked for, and the probe's conversion is never below the
        // exact value's whole ns.
        assert!(summary.min().unwrap() >= 0, "{:?}", summary.min());
    }

    #[cfg(all(target_os = "linux", feature = "linux"))]
    #[test]
    fn a_sleeping_delay_is_never_short_on_the_counter() {
        use crate::linux_sleep::GenericTimerSleep;
        let clock = GenericTimer::new().unwrap();
        let mut delay = GenericTimerSleep::new(&clock).unwrap();
        let mut probe = DelayProbe::new(clock).unwrap();
        let mut summary = Summary::new();
        for request in [
            DelayRequest::Us(50),
            DelayRequest::Us(300),
            DelayRequest::Ms(1),
        ] {
            probe
                .measure(&mut delay, request, 10, &mut summary)
                .unwrap();
        }
        assert_eq!(summary.count(), 30);
        assert!(summary.min().unwrap() >= 0, "{:?}", summary.min());
    }
}
