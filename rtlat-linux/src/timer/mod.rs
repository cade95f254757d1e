//! Timers implementing [`rtlat_core::Timer`]: ways to sleep until an absolute deadline in
//! nanoseconds on a [`ClockId`].
//!
//! | type | call | cyclictest |
//! |---|---|---|
//! | [`AbsoluteSleep`] | `clock_nanosleep(TIMER_ABSTIME)` | default |
//! | [`RelativeSleep`] | clock read + relative `clock_nanosleep` | `-r` |
//! | [`NanoSleep`] | clock read + `nanosleep` | `-s` |
//! | [`PosixTimer`] | periodic `timer_create` + `sigwaitinfo` | `-x` |
//! | [`TimerFd`] | periodic `timerfd` + `read` | — |
//! | [`TimerlatFd`] | the timerlat tracer's `timerlat_fd` + `read` (its schedule, not the deadline) | — (`rtla timerlat -u`) |
//!
//! Every one returns at or after its deadline: a signal handler interrupting the sleep
//! (`EINTR`) makes it sleep again to the same deadline, never return early or lose a cycle.
//! The one exception ends the run: once
//! [`cancel_measurement`](crate::signals::cancel_measurement) was called, an interrupted
//! sleep returns [`SleepError::Cancelled`] (the flag is read only after an interruption, never on
//! the way to a sleep).
//! On the hot path none allocates, locks or formats, and none makes a system call beyond the
//! sleep or wait (plus, for the two relative sleeps, the one clock read; plus, for the two
//! periodic timers, a re-arm when the schedule jumps).
//!
//! [`AnyTimer`] picks one at run time from a [`TimerKind`].
//!
//! Each is also an embedded-hal 1.0 `DelayNs` (a delay of `d`: a sleep until its clock reads
//! `now + d`), so rtlat-core's `DelayProbe` times how late such a delay wakes
//! (`examples/delay_overshoot.rs`).
//!
//! On `CLOCK_REALTIME`, only the absolute sleep and the two periodic timers follow a clock
//! that is set while they sleep; the relative sleeps measure elapsed time, so a clock set
//! backwards during one shows as an early (negative) latency.

mod absolute;
mod delay;
mod error;
mod nanosleep;
mod posix;
mod relative;
mod retry;
mod timerfd;
mod timerlat;

#[cfg(test)]
mod tests;

use core::fmt;
use core::str::FromStr;

use rtlat_core::Timer;

use crate::clock::ClockId;

pub use absolute::AbsoluteSleep;
pub use error::{SleepError, TimerCall, TimerError, UnknownTimer};
pub use nanosleep::NanoSleep;
pub use posix::{PosixTimer, default_timer_signal};
pub use relative::RelativeSleep;
pub use timerfd::TimerFd;
pub use timerlat::TimerlatFd;

/// Which timer to sleep with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimerKind {
    /// [`AbsoluteSleep`]: `clock_nanosleep(TIMER_ABSTIME)` (the default).
    #[default]
    Absolute,
    /// [`RelativeSleep`]: relative `clock_nanosleep` (cyclictest `-r`).
    Relative,
    /// [`NanoSleep`]: `nanosleep` (cyclictest `-s`).
    NanoSleep,
    /// [`PosixTimer`]: POSIX timer and a real-time signal (cyclictest `-x`).
    PosixTimer,
    /// [`TimerFd`]: `timerfd`.
    TimerFd,
    /// [`TimerlatFd`]: the timerlat tracer's per-CPU file, which the tracer must be running
    /// for (not in [`TimerKind::ALL`]: rtlat's `--timerlat` starts the tracer first).
    Timerlat,
}

impl TimerKind {
    /// Every kind, in the order of the table above.
    pub const ALL: [TimerKind; 5] = [
        TimerKind::Absolute,
        TimerKind::Relative,
        TimerKind::NanoSleep,
        TimerKind::PosixTimer,
        TimerKind::TimerFd,
    ];

    /// The name [`FromStr`] accepts and [`Display`](fmt::Display) prints.
    pub const fn name(self) -> &'static str {
        match self {
            TimerKind::Absolute => "absolute",
            TimerKind::Relative => "relative",
            TimerKind::NanoSleep => "nanosleep",
            TimerKind::PosixTimer => "posix",
            TimerKind::TimerFd => "timerfd",
            TimerKind::Timerlat => "timerlat",
        }
    }
}

impl fmt::Display for TimerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TimerKind {
    type Err = UnknownTimer;

    /// `absolute` (`clock_nanosleep`), `relative`, `nanosleep`, `posix` (`timer_create`),
    /// `timerfd`, `timerlat`; case-insensitive.
    fn from_str(s: &str) -> Result<Self, UnknownTimer> {
        match s.trim().to_ascii_lowercase().as_str() {
            "absolute" | "abs" | "clock_nanosleep" => Ok(TimerKind::Absolute),
            "relative" | "rel" => Ok(TimerKind::Relative),
            "nanosleep" => Ok(TimerKind::NanoSleep),
            "posix" | "posix-timer" | "timer_create" => Ok(TimerKind::PosixTimer),
            "timerfd" => Ok(TimerKind::TimerFd),
            "timerlat" => Ok(TimerKind::Timerlat),
            _ => Err(UnknownTimer(s.to_owned())),
        }
    }
}

/// One of the timers, chosen at run time. Create it on the measuring thread (a
/// [`PosixTimer`] must be, and this type is not `Send` for that reason).
#[derive(Debug)]
pub enum AnyTimer {
    /// See [`AbsoluteSleep`].
    Absolute(AbsoluteSleep),
    /// See [`RelativeSleep`].
    Relative(RelativeSleep),
    /// See [`NanoSleep`].
    NanoSleep(NanoSleep),
    /// See [`PosixTimer`].
    PosixTimer(PosixTimer),
    /// See [`TimerFd`].
    TimerFd(TimerFd),
    /// See [`TimerlatFd`].
    Timerlat(TimerlatFd),
}

impl AnyTimer {
    /// A `kind` timer on `clock`; the periodic ones are armed for deadlines `interval_ns`
    /// apart (the sleeps ignore it). Error for a zero interval.
    pub fn new(kind: TimerKind, clock: ClockId, interval_ns: u64) -> Result<Self, TimerError> {
        if interval_ns == 0 {
            return Err(TimerError::ZeroInterval);
        }
        Ok(match kind {
            TimerKind::Absolute => AnyTimer::Absolute(AbsoluteSleep::new(clock)),
            TimerKind::Relative => AnyTimer::Relative(RelativeSleep::new(clock)),
            TimerKind::NanoSleep => AnyTimer::NanoSleep(NanoSleep::new(clock)),
            TimerKind::PosixTimer => AnyTimer::PosixTimer(PosixTimer::new(clock, interval_ns)?),
            TimerKind::TimerFd => AnyTimer::TimerFd(TimerFd::new(clock, interval_ns)?),
            TimerKind::Timerlat => AnyTimer::Timerlat(TimerlatFd::open_on(clock)?),
        })
    }

    /// Which kind this is.
    pub fn kind(&self) -> TimerKind {
        match self {
            AnyTimer::Absolute(_) => TimerKind::Absolute,
            AnyTimer::Relative(_) => TimerKind::Relative,
            AnyTimer::NanoSleep(_) => TimerKind::NanoSleep,
            AnyTimer::PosixTimer(_) => TimerKind::PosixTimer,
            AnyTimer::TimerFd(_) => TimerKind::TimerFd,
            AnyTimer::Timerlat(_) => TimerKind::Timerlat,
        }
    }
}

impl Timer for AnyTimer {
    type Error = SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        match self {
            AnyTimer::Absolute(t) => t.sleep_until(deadline),
            AnyTimer::Relative(t) => t.sleep_until(deadline),
            AnyTimer::NanoSleep(t) => t.sleep_until(deadline),
            AnyTimer::PosixTimer(t) => t.sleep_until(deadline),
            AnyTimer::TimerFd(t) => t.sleep_until(deadline),
            AnyTimer::Timerlat(t) => t.sleep_until(deadline),
        }
    }
}
