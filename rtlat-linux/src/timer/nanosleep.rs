//! [`NanoSleep`] (cyclictest `-s`): read the clock, sleep the difference with `nanosleep(2)`.

use rtlat_core::Timer;

use super::error::{SleepError, TimerCall};
use crate::clock::{ClockId, PosixClock};
use crate::sys;

/// Reads the clock and sleeps `deadline − now` with `nanosleep(2)`.
///
/// `nanosleep` always measures its duration on `CLOCK_MONOTONIC`; the clock given here is the
/// one read for `now` (and so the one the deadline is on). After a signal handler interrupts
/// the sleep, the clock is read again and the rest is slept, so the return is never early
/// (once the measurement is cancelled, it returns [`SleepError::Cancelled`] instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NanoSleep {
    clock: PosixClock,
}

impl NanoSleep {
    /// Reads `clock`; pair it with a [`PosixClock`] of the same id.
    pub const fn new(clock: ClockId) -> Self {
        NanoSleep {
            clock: PosixClock::new(clock),
        }
    }

    /// The clock read.
    pub const fn clock(&self) -> ClockId {
        self.clock.id()
    }
}

impl Timer for NanoSleep {
    type Error = SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        super::retry::sleep_rest(&self.clock, deadline, TimerCall::Nanosleep, |rest| {
            sys::nanosleep(rest)
        })
    }
}
