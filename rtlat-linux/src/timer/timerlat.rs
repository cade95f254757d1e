//! [`TimerlatFd`]: the kernel's timerlat tracer as the timer (Linux 6.5+): a thread pinned to
//! one CPU opens `osnoise/per_cpu/cpuN/timerlat_fd` and each blocking `read` returns at the
//! next period of the tracer, whose timer IRQ and wake-up the kernel measures and traces
//! (`timerlat_sample`: IRQ, thread, and at the next `read` the return from user space).
//!
//! The tracer, not the thread, owns the schedule: the first `read` takes the kernel's
//! CLOCK_MONOTONIC reading as the period's origin and every `read` after it sleeps until
//! the next multiple of `osnoise/timerlat_period_us` from there (the periods already past
//! at the `read`'s entry are skipped). The deadline a caller passes is therefore not armed;
//! the engine's first deadline, one interval after its clock read just before the first
//! `read`, is earlier than the tracer's by that `read`'s entry into the kernel (well under a
//! µs on real hardware), so while the two schedules agree a latency measured against it is
//! the tracer's thread latency plus the return to user space.
//!
//! After a wake-up later than a period the two can disagree on what was skipped: the engine
//! skips the deadlines its wake-up passed, the tracer the periods its next `read`'s entry
//! passed. Where the tracer skipped fewer, its wake-up comes before the engine's deadline:
//! [`TimerlatFd`] waits again (that period of the tracer's is one the engine counted as an
//! overrun), so no latency is measured against a deadline the tracer did not keep. Where it
//! skipped more, the wake-up is a period late and measured so, as a missed deadline is.

use std::fs::File;
use std::os::fd::AsFd;
use std::path::Path;

use rtlat_core::Timer;

use super::error::{SleepError, TimerCall, TimerError};
use crate::clock::{ClockId, PosixClock};
use crate::errno::Errno;

/// The timerlat tracer's per-CPU file, opened by the thread it times.
///
/// Open it on the measuring thread once that thread is pinned to its one CPU and the tracer
/// runs with `NO_OSNOISE_WORKLOAD` (the kernel refuses otherwise: `EPERM` for a thread
/// allowed on other CPUs, `EINVAL` for a tracer not running in that mode, `EBUSY` when
/// another thread holds the CPU's file). Closing it (drop) stops the CPU's timer.
#[derive(Debug)]
pub struct TimerlatFd {
    file: File,
    clock: PosixClock,
    cpu: usize,
}

impl TimerlatFd {
    /// Opens `tracefs/osnoise/per_cpu/cpu<N>/timerlat_fd` for the CPU the calling thread
    /// runs on (the one it must be pinned to).
    pub fn open_here(tracefs: &Path) -> Result<Self, TimerError> {
        // SAFETY: sched_getcpu takes no argument and only returns a number (or -1).
        let cpu = unsafe { libc::sched_getcpu() };
        let cpu = usize::try_from(cpu).map_err(|_| TimerError::Timerlat {
            cpu: u32::MAX,
            errno: crate::sys::last_errno(),
        })?;
        let path = tracefs.join(format!("osnoise/per_cpu/cpu{cpu}/timerlat_fd"));
        let file = File::open(&path).map_err(|e| TimerError::Timerlat {
            cpu: cpu as u32,
            errno: Errno::from_io(&e),
        })?;
        Ok(TimerlatFd {
            file,
            clock: PosixClock::new(ClockId::Monotonic),
            cpu,
        })
    }

    /// [`open_here`](Self::open_here) in the live system's tracefs (found as
    /// [`find_tracefs`](crate::ftrace::find_tracefs) finds it), for `clock`, which must be
    /// CLOCK_MONOTONIC (the tracer's timer).
    pub fn open_on(clock: ClockId) -> Result<Self, TimerError> {
        if clock != ClockId::Monotonic {
            return Err(TimerError::TimerlatClock);
        }
        let tracefs =
            crate::ftrace::find_tracefs(Path::new("/")).map_err(|_| TimerError::Timerlat {
                cpu: u32::MAX,
                errno: Errno::ENOENT,
            })?;
        TimerlatFd::open_here(&tracefs)
    }

    /// The CPU whose timer this is.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    /// One `read`: returns when the tracer's timer woke the thread, or when a signal did.
    #[inline(always)]
    fn read(&self) -> Result<(), Errno> {
        let mut byte = [0u8; 1];
        match nix::unistd::read(self.file.as_fd(), &mut byte) {
            Ok(_) => Ok(()),
            Err(errno) => Err(errno.into()),
        }
    }

    /// After a `read` returned before `deadline`: the tracer woke the thread for a period
    /// the engine had skipped (see the module's documentation), or a signal did (the
    /// kernel's `read` returns 0 then too). The run ends if it was cancelled; otherwise the
    /// caller reads again, for the tracer's next period.
    #[cold]
    #[inline(never)]
    fn early(&mut self) -> Result<(), SleepError> {
        super::retry::interrupted()
    }
}

impl Timer for TimerlatFd {
    type Error = SleepError;

    /// Waits for the tracer's next period; `deadline` (CLOCK_MONOTONIC ns) is only checked
    /// against, never armed (see the module's documentation).
    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), SleepError> {
        loop {
            match self.read() {
                Ok(()) if self.clock.now_ns()? >= deadline => return Ok(()),
                Ok(()) => self.early()?,
                Err(Errno::EINTR) => super::retry::interrupted()?,
                Err(errno) => {
                    return Err(SleepError::TimerWait {
                        call: TimerCall::ReadTimerlatFd,
                        errno,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tracers_timer_is_on_clock_monotonic_only() {
        assert_eq!(
            TimerlatFd::open_on(ClockId::Realtime).unwrap_err(),
            TimerError::TimerlatClock
        );
    }

    #[test]
    fn a_tracefs_without_the_file_is_named_with_the_cpu_and_errno() {
        // A directory that has no osnoise/ (the development machines' kernel has no timerlat
        // tracer at all): the open fails with ENOENT, naming the CPU's file.
        let err = TimerlatFd::open_here(Path::new("/proc/self")).unwrap_err();
        match err {
            TimerError::Timerlat { cpu, errno } => {
                assert_ne!(cpu, u32::MAX);
                assert_eq!(errno, Errno::ENOENT);
            }
            other => panic!("{other:?}"),
        }
        let text = err.to_string();
        assert!(
            text.contains("timerlat_fd") && text.contains("Linux 6.5"),
            "{text}"
        );
    }
}
