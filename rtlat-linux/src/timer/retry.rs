//! Sleeping again after a signal: a signal handler that cuts a sleep short (`EINTR`) makes
//! the timers sleep again to the same deadline, never return early, unless the measurement
//! was cancelled ([`SleepError::Cancelled`]).

use super::error::{SleepError, TimerCall};

/// Runs `sleep` until it returns without `EINTR`: a signal handler that interrupts a sleep
/// makes it sleep again (the closure recomputes what is left), never return early — unless
/// the measurement was cancelled ([`SleepError::Cancelled`]).
#[inline(always)]
pub(crate) fn until_not_interrupted(
    call: TimerCall,
    mut sleep: impl FnMut() -> Result<(), crate::errno::Errno>,
) -> Result<(), SleepError> {
    // The common path is one sleep; everything after a failed one is out of line, so a
    // caller that matches on the result sees a constant `Ok` on that path.
    match sleep() {
        Ok(()) => Ok(()),
        Err(errno) => after_failed_sleep(call, errno, sleep),
    }
}

/// After a sleep failed with `errno`: sleeps again while a signal interrupted it (and the
/// measurement goes on), else the error.
#[cold]
#[inline(never)]
fn after_failed_sleep(
    call: TimerCall,
    mut errno: crate::errno::Errno,
    mut sleep: impl FnMut() -> Result<(), crate::errno::Errno>,
) -> Result<(), SleepError> {
    loop {
        if errno != crate::errno::Errno::EINTR {
            return Err(SleepError::Sleep { call, errno });
        }
        interrupted()?;
        match sleep() {
            Ok(()) => return Ok(()),
            Err(e) => errno = e,
        }
    }
}

/// After a signal cut a sleep or wait short: [`SleepError::Cancelled`] if the measurement was
/// cancelled, else `Ok` (sleep again). Off the hot path: only an interruption gets here.
#[cold]
#[inline(never)]
pub(crate) fn interrupted() -> Result<(), SleepError> {
    crate::sys::note_eintr();
    if crate::signals::measurement_cancelled() {
        Err(SleepError::Cancelled)
    } else {
        Ok(())
    }
}

/// Sleeps what is left until `deadline` on `clock` with the relative `sleep`, reading the
/// clock again after every interruption. Returns at once when the deadline has passed;
/// [`SleepError::Cancelled`] when interrupted after the measurement was cancelled.
#[inline(always)]
pub(crate) fn sleep_rest(
    clock: &crate::clock::PosixClock,
    deadline: u64,
    call: TimerCall,
    mut sleep: impl FnMut(&libc::timespec) -> Result<(), crate::errno::Errno>,
) -> Result<(), SleepError> {
    loop {
        let now = clock.now_ns()?;
        if now >= deadline {
            return Ok(());
        }
        match sleep(&crate::clock::timespec_from_ns(deadline - now)) {
            Ok(()) => return Ok(()),
            Err(crate::errno::Errno::EINTR) => interrupted()?,
            Err(errno) => return Err(SleepError::Sleep { call, errno }),
        }
    }
}
