//! [`RelativeSleep`] (cyclictest `-r`): read the clock, sleep the difference with a relative
//! `clock_nanosleep`.

use rtlat_core::Timer;

use super::error::{SleepError, TimerCall};
use crate::clock::{ClockId, PosixClock};
use crate::sys;

/// Reads the clock and sleeps `deadline − now` with `clock_nanosleep(clock, 0, …)`.
///
/// Time spent between the clock read and the start of the sleep is added to the latency:
/// that is what this mode measures (cyclictest `-r`). After a signal handler interrupts the
/// sleep, the clock is read again and the rest is slept, so the return is never early (once
/// the measurement is cancelled, it returns [`SleepError::Cancelled`] instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RelativeSleep {
    clock: PosixClock,
}

impl RelativeSleep {
    /// Sleeps on `clock`; pair it with a [`PosixClock`] of the same id.
    pub const fn new(clock: ClockId) -> Self {
        RelativeSleep {
            clock: PosixClock::new(clock),
        }
    }

    /// The clock slept on.
    pub const fn clock(&self) -> ClockId {
        self.clock.id()
    }
}

impl Timer for RelativeSleep {
    type Error = SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        let clock_id = self.clock.id().nix();
        super::retry::sleep_rest(&self.clock, deadline, TimerCall::ClockNanosleep, |rest| {
            sys::clock_nanosleep_rel(clock_id, rest)
        })
    }
}
