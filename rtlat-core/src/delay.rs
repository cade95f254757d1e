//! How late does a HAL's delay wake? [`DelayProbe`] times any embedded-hal 1.0
//! [`DelayNs`] against a [`Clock`]: it asks for a delay (`delay_ns`, `delay_us` or
//! `delay_ms`, a [`DelayRequest`]) again and again and records each **overshoot**, the time
//! that passed minus the time asked for, in nanoseconds, into any [`Record`]er: a histogram
//! (fixed capacity, allocation-free), a [`Summary`](crate::Summary), or both as a pair.
//!
//! A `DelayNs` promises to pause *at least* the time asked for, so an overshoot is normally
//! zero or more; a negative one means the delay returned early (or the clock runs at another
//! rate than it says) and is recorded as it is, signed, never clamped.
//!
//! The overshoot includes the clock's own reading cost (two reads per delay): read the
//! clock back to back (a zero delay does that) to see that floor.
//!
//! ```
//! use core::cell::Cell;
//! use rtlat_core::delay::{DelayProbe, DelayRequest};
//! use rtlat_core::{SmallHistogram, Summary};
//! # use rtlat_core::Clock;
//! # /// A nanosecond clock that a delay moves on (rtlat_core::sim has one).
//! # struct Ns<'a>(&'a Cell<u64>);
//! # impl Clock for Ns<'_> {
//! #     type Error = core::convert::Infallible;
//! #     fn now(&mut self) -> Result<u64, Self::Error> { Ok(self.0.get()) }
//! #     fn rate_hz(&self) -> u64 { 1_000_000_000 }
//! # }
//! # /// A delay that always wakes 3 µs late.
//! # struct Late<'a>(&'a Cell<u64>);
//! # impl embedded_hal::delay::DelayNs for Late<'_> {
//! #     fn delay_ns(&mut self, ns: u32) { self.0.set(self.0.get() + u64::from(ns) + 3_000) }
//! # }
//! # let now = Cell::new(0);
//! # let (clock, mut delay) = (Ns(&now), Late(&now));
//!
//! // `clock`: any rtlat_core::Clock; `delay`: any embedded_hal::delay::DelayNs.
//! let mut probe = DelayProbe::new(clock)?;
//! // ±10 ms of overshoot at 1.6 % error in 2.5 KiB (on the stack here, or in a `static`).
//! let mut histogram = SmallHistogram::empty();
//! let mut summary = Summary::new();
//! probe.measure(&mut delay, DelayRequest::Us(100), 1_000, &mut (&mut histogram, &mut summary)).unwrap();
//! assert_eq!(histogram.count(), 1_000);
//! assert_eq!((summary.min(), summary.max()), (Some(3_000), Some(3_000)));
//! assert_eq!(histogram.percentile(99.0), Some(3_000));
//! # Ok::<(), rtlat_core::Error>(())
//! ```

use embedded_hal::delay::DelayNs;

use crate::Error;
use crate::clock::{Clock, TickScale};
use crate::stats::Record;

/// One call of [`DelayNs`]: which method, with its argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DelayRequest {
    /// `delay_ns(ns)`.
    Ns(u32),
    /// `delay_us(us)`.
    Us(u32),
    /// `delay_ms(ms)`.
    Ms(u32),
}

impl DelayRequest {
    /// The time asked for, in nanoseconds.
    pub const fn ns(self) -> u64 {
        match self {
            DelayRequest::Ns(ns) => ns as u64,
            DelayRequest::Us(us) => us as u64 * 1_000,
            DelayRequest::Ms(ms) => ms as u64 * 1_000_000,
        }
    }

    /// Makes the call on `delay`.
    #[inline(always)]
    pub fn call<D: DelayNs + ?Sized>(self, delay: &mut D) {
        match self {
            DelayRequest::Ns(ns) => delay.delay_ns(ns),
            DelayRequest::Us(us) => delay.delay_us(us),
            DelayRequest::Ms(ms) => delay.delay_ms(ms),
        }
    }
}

/// Times [`DelayNs`] calls on a [`Clock`]: the overshoot of each (elapsed − requested, ns,
/// signed) goes to a [`Record`]er. Allocation-free; the clock's ticks become nanoseconds by
/// multiply-shift ([`TickScale`]), never division.
#[derive(Debug, Clone)]
pub struct DelayProbe<C> {
    clock: C,
    scale: TickScale,
}

impl<C: Clock> DelayProbe<C> {
    /// A probe timing with `clock`; [`Error::ZeroInterval`] for a clock whose rate is 0.
    pub fn new(clock: C) -> Result<Self, Error> {
        let scale = TickScale::new(clock.rate_hz())?;
        Ok(DelayProbe { clock, scale })
    }

    /// Calls `request` on `delay` once: its overshoot in ns (negative: it returned early).
    #[inline]
    pub fn overshoot<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
        request: DelayRequest,
    ) -> Result<i64, C::Error> {
        let start = self.clock.now()?;
        request.call(delay);
        let end = self.clock.now()?;
        let elapsed = self.scale.to_ns(end.wrapping_sub(start));
        Ok(overshoot_ns(elapsed, request.ns()))
    }

    /// Calls `request` on `delay` `count` times, recording each overshoot into `recorder`.
    /// A clock error stops it; what was recorded before stays.
    pub fn measure<D: DelayNs + ?Sized, R: Record + ?Sized>(
        &mut self,
        delay: &mut D,
        request: DelayRequest,
        count: u64,
        recorder: &mut R,
    ) -> Result<(), C::Error> {
        for _ in 0..count {
            let overshoot = self.overshoot(delay, request)?;
            recorder.record(overshoot);
        }
        Ok(())
    }

    /// The clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The clock back.
    pub fn into_clock(self) -> C {
        self.clock
    }
}

/// `elapsed − requested` as an `i64`, saturated above (a request is below 2^53 ns, so the
/// negative side always fits); 64-bit arithmetic only.
#[inline(always)]
fn overshoot_ns(elapsed: u64, requested: u64) -> i64 {
    if elapsed >= requested {
        i64::try_from(elapsed - requested).unwrap_or(i64::MAX)
    } else {
        -((requested - elapsed) as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_in_nanoseconds() {
        assert_eq!(DelayRequest::Ns(u32::MAX).ns(), 4_294_967_295);
        assert_eq!(DelayRequest::Us(u32::MAX).ns(), 4_294_967_295_000);
        assert_eq!(DelayRequest::Ms(u32::MAX).ns(), 4_294_967_295_000_000);
    }

    #[test]
    fn overshoot_is_signed_and_saturates() {
        assert_eq!(overshoot_ns(1_500, 1_000), 500);
        assert_eq!(overshoot_ns(1_000, 1_000), 0);
        assert_eq!(overshoot_ns(400, 1_000), -600);
        assert_eq!(overshoot_ns(u64::MAX, 0), i64::MAX);
        assert_eq!(
            overshoot_ns(0, DelayRequest::Ms(u32::MAX).ns()),
            -4_294_967_295_000_000
        );
    }
}
