//! [`AbsoluteSleep`]: `clock_nanosleep(TIMER_ABSTIME)`, the default and what cyclictest does.

use rtlat_core::Timer;

use super::error::{SleepError, TimerCall};
use crate::clock::{ClockId, NANOS_PER_SEC};
use crate::sys;

/// Sleeps with `clock_nanosleep(clock, TIMER_ABSTIME, deadline)`.
///
/// An absolute sleep does not drift: the deadline is a point on the clock, so time spent
/// between wake-ups never shifts the next one. A signal handler interrupting the sleep makes
/// it sleep again to the same deadline (once the measurement is cancelled, it returns
/// [`SleepError::Cancelled`] instead).
#[derive(Debug, Clone, Copy, Default)]
pub struct AbsoluteSleep {
    clock: ClockId,
    /// The second the last deadline fell in, as `(its start in ns, its number)`: deadlines
    /// of the same second become a `timespec` with a subtraction, no division.
    second: (u64, u64),
}

impl AbsoluteSleep {
    /// Sleeps on `clock`; pair it with a [`PosixClock`](crate::PosixClock) of the same id.
    pub const fn new(clock: ClockId) -> Self {
        AbsoluteSleep {
            clock,
            second: (0, 0),
        }
    }

    /// The clock slept on.
    pub const fn clock(&self) -> ClockId {
        self.clock
    }

    /// `deadline` as a `timespec`: within the second of the last deadline (every cycle of a
    /// run at an interval below a second but one per second), one subtraction.
    #[inline(always)]
    fn timespec(&mut self, deadline: u64) -> rustix::time::Timespec {
        // Below the second's start, the difference wraps to at least 2^64 - start, which is
        // past 10^9 as long as the kept second is not the last, cut-short one (see below).
        let nsec = deadline.wrapping_sub(self.second.0);
        if nsec < NANOS_PER_SEC {
            return rustix::time::Timespec {
                tv_sec: self.second.1 as i64,
                tv_nsec: nsec as _,
            };
        }
        self.new_second(deadline)
    }

    /// [`timespec`](Self::timespec) for a deadline in another second, by division; that
    /// second is kept for the next deadlines unless it is the last of the `u64` range (its
    /// start plus 10^9 would wrap, and the test above would take earlier deadlines for it).
    #[cold]
    #[inline(never)]
    fn new_second(&mut self, deadline: u64) -> rustix::time::Timespec {
        let second = deadline / NANOS_PER_SEC;
        let start = second * NANOS_PER_SEC;
        if start <= u64::MAX - NANOS_PER_SEC {
            self.second = (start, second);
        }
        rustix::time::Timespec {
            tv_sec: second as i64,
            tv_nsec: (deadline - start) as _,
        }
    }
}

/// Equal when they sleep on the same clock (the second kept for the conversion is no part of
/// what a timer is).
impl PartialEq for AbsoluteSleep {
    fn eq(&self, other: &Self) -> bool {
        self.clock == other.clock
    }
}

impl Eq for AbsoluteSleep {}

impl Timer for AbsoluteSleep {
    type Error = SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        let deadline = self.timespec(deadline);
        let clock = self.clock.rustix();
        super::retry::until_not_interrupted(TimerCall::ClockNanosleep, || {
            sys::clock_nanosleep_abs(clock, &deadline)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_convert_to_the_same_timespec_as_by_division() {
        let mut timer = AbsoluteSleep::new(ClockId::Monotonic);
        // Forward in small and large steps, across seconds, and back (an aligned start).
        let deadlines = [
            0,
            1,
            999_999_999,
            1_000_000_000,
            1_000_200_000,
            5_999_999_999,
            123_456_789_012_345,
            123_456_789_999_999,
            123_456_790_000_000,
            7_000_000_001,
            u64::MAX,
            0,
            u64::MAX - 5,
            18_446_744_072_999_999_999,
            u64::MAX,
            1,
        ];
        for d in deadlines {
            let ts = timer.timespec(d);
            assert_eq!(
                (ts.tv_sec as u64, ts.tv_nsec as u64),
                (d / NANOS_PER_SEC, d % NANOS_PER_SEC),
                "{d}"
            );
        }
        assert_eq!(timer, AbsoluteSleep::new(ClockId::Monotonic));
    }
}
