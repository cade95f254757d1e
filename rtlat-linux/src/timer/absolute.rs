//! [`AbsoluteSleep`]: `clock_nanosleep(TIMER_ABSTIME)`, the default and what cyclictest does.

use rtlat_core::Timer;

use crate::clock::{ClockId, rustix_timespec_from_ns};
use crate::error::Error;
use crate::sys;

/// Sleeps with `clock_nanosleep(clock, TIMER_ABSTIME, deadline)`.
///
/// An absolute sleep does not drift: the deadline is a point on the clock, so time spent
/// between wake-ups never shifts the next one. A signal handler interrupting the sleep makes
/// it sleep again to the same deadline (once the measurement is cancelled, it returns
/// [`Error::Cancelled`] instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AbsoluteSleep {
    clock: ClockId,
}

impl AbsoluteSleep {
    /// Sleeps on `clock`; pair it with a [`PosixClock`](crate::PosixClock) of the same id.
    pub const fn new(clock: ClockId) -> Self {
        AbsoluteSleep { clock }
    }

    /// The clock slept on.
    pub const fn clock(&self) -> ClockId {
        self.clock
    }
}

impl Timer for AbsoluteSleep {
    type Error = Error;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), Error> {
        let deadline = rustix_timespec_from_ns(deadline);
        let clock = self.clock;
        super::until_not_interrupted("clock_nanosleep", || {
            sys::clock_nanosleep_abs(clock, &deadline)
        })
    }
}
