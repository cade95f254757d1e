//! The Alchemy clock as an [`rtlat_core::Clock`].

use core::convert::Infallible;

use crate::{Error, call, init};

/// Xenomai's Alchemy clock (what `rt_timer_read()` reads: `CLOCK_MONOTONIC` on Mercury,
/// Cobalt's clock on Cobalt), in its ticks: 1 ns unless the session set
/// `--alchemy-clock-resolution`. Reading cannot fail once made (made after
/// [`init`](crate::init)), and it may be read from any thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlchemyClock {
    rate_hz: u64,
}

impl AlchemyClock {
    /// The clock, once [`init`](crate::init) has succeeded.
    pub fn new() -> Result<AlchemyClock, Error> {
        init::initialized()?;
        let ns_per_tick = call::timer_inquire().period.max(1);
        Ok(AlchemyClock {
            rate_hz: (1_000_000_000 / ns_per_tick).max(1),
        })
    }

    /// The current date in ticks.
    #[inline(always)]
    pub fn ticks(&self) -> u64 {
        call::alchemy_clock_ticks()
    }
}

impl rtlat_core::Clock for AlchemyClock {
    type Error = Infallible;

    #[inline(always)]
    fn now(&mut self) -> Result<u64, Infallible> {
        Ok(self.ticks())
    }

    fn rate_hz(&self) -> u64 {
        self.rate_hz
    }
}
