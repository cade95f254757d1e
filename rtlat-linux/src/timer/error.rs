//! The timers' errors: [`SleepError`], what a sleep on the hot path returns (8 bytes, `Copy`),
//! [`TimerError`], what creating a timer returns, and [`UnknownTimer`], a timer name not
//! understood.
//!
//! A failing call is named by a [`TimerCall`] (one byte) rather than by its text, which keeps
//! the sleep's error as small as the `Errno` it carries.

use crate::clock::{ClockError, ClockId};
use crate::errno::Errno;

/// A call a timer makes, named in its errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimerCall {
    /// `clock_nanosleep`.
    ClockNanosleep,
    /// `nanosleep`.
    Nanosleep,
    /// `sigwaitinfo`.
    Sigwaitinfo,
    /// `sigtimedwait` (taking pending expiries without waiting).
    Sigtimedwait,
    /// `sigaddset`.
    Sigaddset,
    /// `pthread_sigmask`.
    PthreadSigmask,
    /// `timer_create`.
    TimerCreate,
    /// `timer_settime`.
    TimerSettime,
    /// `timerfd_create`.
    TimerfdCreate,
    /// `timerfd_settime`.
    TimerfdSettime,
    /// `read` on a timerfd.
    ReadTimerfd,
    /// `read` on the timerlat tracer's `timerlat_fd`.
    ReadTimerlatFd,
}

impl TimerCall {
    /// The call as C names it, e.g. `clock_nanosleep`.
    pub const fn name(self) -> &'static str {
        match self {
            TimerCall::ClockNanosleep => "clock_nanosleep",
            TimerCall::Nanosleep => "nanosleep",
            TimerCall::Sigwaitinfo => "sigwaitinfo",
            TimerCall::Sigtimedwait => "sigtimedwait",
            TimerCall::Sigaddset => "sigaddset",
            TimerCall::PthreadSigmask => "pthread_sigmask",
            TimerCall::TimerCreate => "timer_create",
            TimerCall::TimerSettime => "timer_settime",
            TimerCall::TimerfdCreate => "timerfd_create",
            TimerCall::TimerfdSettime => "timerfd_settime",
            TimerCall::ReadTimerfd => "read(timerfd)",
            TimerCall::ReadTimerlatFd => "read(timerlat_fd)",
        }
    }
}

impl core::fmt::Display for TimerCall {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a sleep until a deadline ([`rtlat_core::Timer::sleep_until`]) returns when it does
/// not sleep: a few bytes, `Copy`, never allocated or formatted on the hot path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SleepError {
    /// The sleep was cut short because the run is ending
    /// ([`cancel_measurement`](crate::signals::cancel_measurement)): not a failure, the end
    /// of the measurement. The interrupted cycle is not measured.
    #[error("the sleep was cancelled: the run is ending")]
    Cancelled,
    /// A sleep failed for a reason other than a signal (signals are handled by sleeping again).
    #[error(
        "{call} failed: {errno}; this is a bug in rtlat or an unsupported kernel, please report it"
    )]
    Sleep {
        /// The sleeping call.
        call: TimerCall,
        /// The OS error.
        errno: Errno,
    },
    /// Waiting for a POSIX timer or timerfd expiry failed.
    #[error(
        "{call} failed while waiting for a timer expiry: {errno}; use another timer kind (the default clock_nanosleep needs no signals)"
    )]
    TimerWait {
        /// The waiting call.
        call: TimerCall,
        /// The OS error.
        errno: Errno,
    },
    /// Re-arming a periodic timer (when the schedule jumps) failed.
    #[error(
        "{call} failed: {errno}; if it says `Resource temporarily unavailable`, raise `ulimit -i` (pending signals)"
    )]
    TimerSetup {
        /// The failing call.
        call: TimerCall,
        /// The OS error.
        errno: Errno,
    },
    /// Reading the clock (for a relative sleep) failed: see [`ClockError`].
    #[error("clock_gettime({clock}) failed: {errno}; this kernel does not support that clock")]
    Clock {
        /// The clock.
        clock: ClockId,
        /// The OS error.
        errno: Errno,
    },
}

impl SleepError {
    /// The OS error number behind this error (`None` for [`Cancelled`](Self::Cancelled)).
    pub const fn errno(&self) -> Option<Errno> {
        match *self {
            SleepError::Cancelled => None,
            SleepError::Sleep { errno, .. }
            | SleepError::TimerWait { errno, .. }
            | SleepError::TimerSetup { errno, .. }
            | SleepError::Clock { errno, .. } => Some(errno),
        }
    }
}

impl From<ClockError> for SleepError {
    #[inline]
    fn from(e: ClockError) -> Self {
        SleepError::Clock {
            clock: e.clock,
            errno: e.errno,
        }
    }
}

/// Creating a timer failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimerError {
    /// A zero interval was given to a periodic timer.
    #[error("the timer interval must be greater than zero")]
    ZeroInterval,
    /// The signal asked for a POSIX timer cannot be used.
    #[error(
        "signal {signo} cannot carry timer expiries: use a real-time signal between {min} and {max} (SIGRTMIN..SIGRTMAX)"
    )]
    InvalidSignal {
        /// The signal asked for.
        signo: i32,
        /// `SIGRTMIN` on this system.
        min: i32,
        /// `SIGRTMAX` on this system.
        max: i32,
    },
    /// Creating or arming a POSIX timer or timerfd failed.
    #[error(
        "{call} failed: {errno}; if it says `Resource temporarily unavailable`, raise `ulimit -i` (pending signals)"
    )]
    TimerSetup {
        /// The failing call.
        call: TimerCall,
        /// The OS error.
        errno: Errno,
    },
    /// The timerlat tracer's `osnoise/per_cpu/cpuN/timerlat_fd` could not be opened.
    #[error(
        "cannot open osnoise/per_cpu/cpu{cpu}/timerlat_fd: {errno} (the kernel refuses it with EINVAL unless the timerlat tracer runs with NO_OSNOISE_WORKLOAD, EPERM to a thread not pinned to that one CPU, EBUSY while another thread (rtla timerlat -u?) holds it; ENOENT: no timerlat_fd before Linux 6.5)"
    )]
    Timerlat {
        /// The CPU (`u32::MAX`: the thread's CPU could not be read).
        cpu: u32,
        /// The OS error.
        errno: Errno,
    },
    /// The timerlat timer asked for on a clock other than CLOCK_MONOTONIC.
    #[error("the timerlat tracer's timer runs on CLOCK_MONOTONIC only")]
    TimerlatClock,
}

/// A timer name that is not one of [`TimerKind`](crate::TimerKind)'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown timer `{0}`: use absolute, relative, nanosleep, posix, timerfd or timerlat")]
pub struct UnknownTimer(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hot_path_errors_are_a_few_bytes() {
        assert!(size_of::<SleepError>() <= 8, "{}", size_of::<SleepError>());
        assert!(size_of::<ClockError>() <= 8, "{}", size_of::<ClockError>());
        assert!(size_of::<Result<(), SleepError>>() <= 8);
        assert!(size_of::<Result<u64, ClockError>>() <= 16);
        assert!(size_of::<TimerError>() <= 16, "{}", size_of::<TimerError>());
        // A step of the cycle engine on these clocks and timers: the error fits in the
        // outcome's niche, so the result is no larger than the outcome itself (it was 80
        // bytes for a 40-byte outcome with the crate's one 72-byte error).
        type Step = Result<rtlat_core::Outcome, rtlat_core::Error<ClockError, SleepError>>;
        assert!(
            size_of::<Step>() <= size_of::<rtlat_core::Outcome>() + 8,
            "{} for a {}-byte outcome",
            size_of::<Step>(),
            size_of::<rtlat_core::Outcome>()
        );
    }

    #[test]
    fn messages_keep_their_words() {
        let e = SleepError::Sleep {
            call: TimerCall::ClockNanosleep,
            errno: Errno::EINVAL,
        };
        assert!(
            e.to_string().starts_with("clock_nanosleep failed: ")
                && e.to_string().ends_with("please report it"),
            "{e}"
        );
        let e = SleepError::TimerWait {
            call: TimerCall::ReadTimerfd,
            errno: Errno::EIO,
        };
        assert!(
            e.to_string()
                .starts_with("read(timerfd) failed while waiting"),
            "{e}"
        );
        let clock = ClockError {
            clock: ClockId::Realtime,
            errno: Errno::EINVAL,
        };
        assert_eq!(SleepError::from(clock).to_string(), clock.to_string());
        assert_eq!(SleepError::from(clock).errno(), Some(Errno::EINVAL));
        assert_eq!(SleepError::Cancelled.errno(), None);
    }
}
