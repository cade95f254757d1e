//! [`TimerFd`]: a periodic `timerfd` armed with `TFD_TIMER_ABSTIME`, waited on with a blocking
//! `read`.

use std::os::fd::AsFd;

use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{self, Expiration, TimerFlags, TimerSetTimeFlags};

use rtlat_core::Timer;

use super::error::{SleepError, TimerCall, TimerError};
use crate::clock::{ClockId, timespec_from_ns};
use crate::errno::Errno;
use crate::sys;

/// A `timerfd` armed once, periodic, with `TFD_TIMER_ABSTIME`; each
/// [`sleep_until`](Timer::sleep_until) is one blocking `read`, which returns the number of
/// expiries since the last one.
///
/// When a deadline is not the expiry the timer expects next (the first sleep, or after the
/// schedule skipped deadlines), `timerfd_settime` re-arms it at that deadline, which also
/// clears the expiry count. A signal handler interrupting the `read` makes it read again
/// (or return [`SleepError::Cancelled`] once the measurement was cancelled).
/// It can be created on any thread and moved (it is `Send`).
#[derive(Debug)]
pub struct TimerFd {
    fd: timerfd::TimerFd,
    clock: ClockId,
    interval: u64,
    /// The expiry the armed timer reports next; `None` before the first arming.
    expected: Option<u64>,
}

impl TimerFd {
    /// A timerfd on `clock` for deadlines `interval_ns` apart. Error for a zero interval or if
    /// the kernel refuses the timer.
    pub fn new(clock: ClockId, interval_ns: u64) -> Result<Self, TimerError> {
        if interval_ns == 0 {
            return Err(TimerError::ZeroInterval);
        }
        let nix_clock = match clock {
            ClockId::Monotonic => timerfd::ClockId::CLOCK_MONOTONIC,
            ClockId::Realtime => timerfd::ClockId::CLOCK_REALTIME,
        };
        // A blocking descriptor, closed on exec.
        let fd = timerfd::TimerFd::new(nix_clock, TimerFlags::TFD_CLOEXEC).map_err(|errno| {
            TimerError::TimerSetup {
                call: TimerCall::TimerfdCreate,
                errno: errno.into(),
            }
        })?;
        Ok(TimerFd {
            fd,
            clock,
            interval: interval_ns,
            expected: None,
        })
    }

    /// The clock the timer runs on.
    pub fn clock(&self) -> ClockId {
        self.clock
    }

    /// The period in nanoseconds.
    pub fn interval_ns(&self) -> u64 {
        self.interval
    }

    /// Arms the timer periodic from `deadline` (absolute; in the past fires at once).
    #[cold]
    fn arm(&mut self, deadline: u64) -> Result<(), SleepError> {
        // An all-zero value would disarm: the earliest time is 1 ns.
        let value = TimeSpec::from(timespec_from_ns(deadline.max(1)));
        let interval = TimeSpec::from(timespec_from_ns(self.interval));
        self.fd
            .set(
                Expiration::IntervalDelayed(value, interval),
                TimerSetTimeFlags::TFD_TIMER_ABSTIME,
            )
            .map_err(|errno| SleepError::TimerSetup {
                call: TimerCall::TimerfdSettime,
                errno: errno.into(),
            })?;
        self.expected = Some(deadline);
        Ok(())
    }
}

impl Timer for TimerFd {
    type Error = SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        if self.expected != Some(deadline) {
            self.arm(deadline)?;
        }
        loop {
            match sys::timerfd_read(self.fd.as_fd()) {
                Ok(expiries) => {
                    // The first of `expiries` is `deadline`; the next one comes after the last.
                    self.expected = Some(
                        deadline.saturating_add(expiries.max(1).saturating_mul(self.interval)),
                    );
                    return Ok(());
                }
                Err(Errno::EINTR) => super::retry::interrupted()?,
                Err(errno) => {
                    return Err(SleepError::TimerWait {
                        call: TimerCall::ReadTimerfd,
                        errno,
                    });
                }
            }
        }
    }
}
