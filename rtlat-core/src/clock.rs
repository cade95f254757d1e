//! The two traits a backend implements: a monotonic [`Clock`] and an absolute-deadline
//! [`Timer`], and [`TickScale`], the multiply-shift conversion from ticks to nanoseconds.
//!
//! Like embedded-hal 1.0 (which leaves clocks out on purpose, because every platform's time
//! source differs), the traits are tiny: raw ticks and a rate. Conversion happens outside the
//! backend, by multiply-shift, never by division.

use crate::Error;
use core::num::NonZeroU64;

/// A monotonic time source counting ticks at a fixed rate.
pub trait Clock {
    /// The backend's error.
    type Error: core::fmt::Debug;
    /// The current time in ticks. Never goes backwards.
    fn now(&mut self) -> Result<u64, Self::Error>;
    /// Ticks per second.
    fn rate_hz(&self) -> u64;
}

/// Sleeps until an absolute deadline on the paired [`Clock`]'s tick scale.
pub trait Timer {
    /// The backend's error.
    type Error: core::fmt::Debug;
    /// Returns at or after `deadline` (ticks). A signal or spurious wake-up must not make it
    /// return early: the implementation sleeps again until the deadline has passed, or
    /// returns an error.
    fn sleep_until(&mut self, deadline: u64) -> Result<(), Self::Error>;
}

impl<C: Clock + ?Sized> Clock for &mut C {
    type Error = C::Error;
    fn now(&mut self) -> Result<u64, Self::Error> {
        (**self).now()
    }
    fn rate_hz(&self) -> u64 {
        (**self).rate_hz()
    }
}

impl<T: Timer + ?Sized> Timer for &mut T {
    type Error = T::Error;
    fn sleep_until(&mut self, deadline: u64) -> Result<(), Self::Error> {
        (**self).sleep_until(deadline)
    }
}

/// Converts ticks at a given rate to nanoseconds with one 64×64→128 multiply and a shift:
/// `ns = ticks · mult >> shift`, `mult = ⌈10^9 · 2^shift / rate⌉`, with the largest
/// `shift` (≤ 64) that keeps `mult` below 2^64.
///
/// Rounding `mult` up overestimates by less than `ticks / 2^shift` ns, and the true value's
/// fraction is a multiple of `1/rate`, so the truncated result is exact while
/// `ticks < 2^shift / rate` and at most 1 ns high after that: at 19.2 MHz (a common ARM
/// generic-timer rate) `shift` is 58, exact for the first 13 minutes of ticks, within 1 ns
/// for centuries. At 1 GHz the conversion is the identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickScale {
    rate_hz: u64,
    mult: u64,
    shift: u32,
    /// A nanosecond clock: conversion is the identity, skipped with one predictable branch.
    identity: bool,
}

impl TickScale {
    /// The scale for `rate_hz` ticks per second; error for zero.
    pub const fn new(rate_hz: u64) -> Result<Self, Error> {
        if rate_hz == 0 {
            return Err(Error::ZeroInterval("clock rate"));
        }
        // Largest shift with 10^9 · 2^shift / rate < 2^64.
        let mut shift = 64u32;
        loop {
            let mult = ((1_000_000_000u128) << shift).div_ceil(rate_hz as u128);
            if mult <= u64::MAX as u128 || shift == 0 {
                return Ok(TickScale {
                    rate_hz,
                    mult: mult as u64,
                    shift,
                    identity: rate_hz == 1_000_000_000,
                });
            }
            shift -= 1;
        }
    }

    /// The scale for `rate_hz` ticks per second, infallible: usable in a `const`
    /// (`TickScale::from_hz(NonZeroU64::new(168_000_000).unwrap())`).
    pub const fn from_hz(rate_hz: NonZeroU64) -> Self {
        match Self::new(rate_hz.get()) {
            Ok(scale) => scale,
            Err(_) => Self::NANOS, // unreachable: the rate is not zero
        }
    }

    /// Nanosecond ticks: the identity conversion.
    pub const NANOS: TickScale = TickScale {
        rate_hz: 1_000_000_000,
        mult: 1 << 63,
        shift: 63,
        identity: true,
    };

    /// Ticks per second.
    pub const fn rate_hz(&self) -> u64 {
        self.rate_hz
    }

    /// `ticks` in nanoseconds, truncated (saturates at `u64::MAX`).
    #[inline(always)]
    pub const fn to_ns(&self, ticks: u64) -> u64 {
        if self.identity {
            return ticks;
        }
        let ns = (ticks as u128 * self.mult as u128) >> self.shift;
        if ns > u64::MAX as u128 {
            u64::MAX
        } else {
            ns as u64
        }
    }

    /// Signed `ticks` in nanoseconds, truncated toward zero (saturates).
    #[inline(always)]
    pub const fn to_ns_signed(&self, ticks: i64) -> i64 {
        if self.identity {
            // What the general path gives at 1 GHz, without taking the sign apart: every
            // value but `i64::MIN`, whose magnitude saturates to `i64::MAX`.
            return if ticks < -i64::MAX { -i64::MAX } else { ticks };
        }
        let ns = self.to_ns(ticks.unsigned_abs());
        let ns = if ns > i64::MAX as u64 {
            i64::MAX
        } else {
            ns as i64
        };
        if ticks < 0 { -ns } else { ns }
    }

    /// Nanoseconds in ticks, rounded to nearest (set-up only: this divides).
    pub const fn from_ns(&self, ns: u64) -> u64 {
        let t = (ns as u128 * self.rate_hz as u128 + 500_000_000) / 1_000_000_000;
        if t > u64::MAX as u128 {
            u64::MAX
        } else {
            t as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn nanosecond_clock_is_exact() {
        let s = TickScale::new(1_000_000_000).unwrap();
        assert_eq!(s, TickScale::NANOS);
        for t in [0, 1, 999, 1 << 40, u64::MAX] {
            assert_eq!(s.to_ns(t), t);
        }
        assert_eq!(s.to_ns_signed(-5), -5);
    }

    #[test]
    fn zero_rate_is_refused() {
        assert!(TickScale::new(0).is_err());
    }

    #[test]
    fn arm_generic_timer_rate_over_a_day() {
        let s = TickScale::new(19_200_000).unwrap();
        let day = 19_200_000u64 * 86_400;
        let exact = day as u128 * 1_000_000_000 / 19_200_000;
        assert!(
            (s.to_ns(day) as i128 - exact as i128).abs() <= 1,
            "a day within 1 ns"
        );
        assert_eq!(s.from_ns(1_000_000), 19_200);
    }

    proptest! {
        #[test]
        fn within_one_ns_of_exact_for_a_day(rate in 1_000u64..=10_000_000_000, frac in 0.0f64..1.0) {
            let s = TickScale::new(rate).unwrap();
            let ticks = ((rate as f64 * 86_400.0) * frac) as u64;
            let exact = ticks as u128 * 1_000_000_000 / rate as u128;
            let got = s.to_ns(ticks) as i128;
            prop_assert!((got - exact as i128).abs() <= 1, "rate {} ticks {} got {} exact {}", rate, ticks, got, exact);
        }
    }
}
