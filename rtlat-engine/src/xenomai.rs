//! Xenomai as one more clock and timer pair (feature `xenomai`): the measuring thread, once
//! set up as any other ([`crate::setup::prepare`]), becomes an Alchemy task
//! (`rt_task_shadow` with its priority and CPU) and sleeps on that task's periodic timer
//! (`rt_task_wait_period`), reading the Alchemy clock. Everything else — the loop, the
//! missed-deadline policy, the figures, the reports — is the engine's, as for rtlat-linux's
//! timers; see rtlat-xenomai-ffi for what the timer does with the engine's deadlines.
//!
//! Overruns: the engine counts, from its own clock reads, every deadline a late wake-up
//! passed (the figure every rtlat front reports). Xenomai's own count (`-ETIMEDOUT` from
//! `rt_task_wait_period`, what Xenomai's `latency` prints) is kept beside it
//! ([`TimerFigures::reported_overruns`]): on Mercury it is the POSIX timer's overrun count,
//! which arrives a cycle late or not at all, so the two are reported side by side, not added.

use core::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use rtlat_core::Timer;
use rtlat_xenomai_ffi::{AlchemyClock, Error, PeriodicTimer, Task};

use crate::backend::{TimerFigures, WakeError};
use crate::error::MeasureError;

/// Makes the main-thread part: Xenomai's initialisation, once, before any measuring thread
/// starts (Xenomai requires the main thread). Refused when Xenomai cannot run here (Cobalt
/// without its core).
pub fn init() -> Result<(), InitFailed> {
    rtlat_xenomai_ffi::init().map_err(InitFailed)
}

/// Xenomai's initialisation failed (shown as `--backend xenomai: …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitFailed(pub Error);

impl fmt::Display for InitFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--backend xenomai: {}", self.0)
    }
}

impl std::error::Error for InitFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// The Xenomai core this build links (`mercury` or `cobalt`), `None` without Xenomai.
pub fn core() -> Option<&'static str> {
    rtlat_xenomai_ffi::CORE.map(|core| match core {
        rtlat_xenomai_ffi::Core::Mercury => "mercury",
        rtlat_xenomai_ffi::Core::Cobalt => "cobalt",
    })
}

/// Task names are unique in a Xenomai session: `rtlat-0`, `rtlat-1`, … in the order the
/// threads become tasks.
static NEXT_TASK: AtomicUsize = AtomicUsize::new(0);

/// The calling thread made an Alchemy task at `priority` on `cpu`, with the Alchemy clock
/// and the task's periodic timer of `interval_ns`. Call it on the measuring thread, after
/// its set-up.
pub fn clock_and_timer(
    priority: u8,
    cpu: Option<usize>,
    interval_ns: u64,
) -> Result<(AlchemyClock, XenomaiTimer), MeasureError> {
    let name = format!("rtlat-{}", NEXT_TASK.fetch_add(1, Ordering::Relaxed));
    let failed = |error: Error| MeasureError::Xenomai {
        task: name.clone(),
        error,
    };
    let task = Task::shadow(&name, priority, cpu).map_err(failed)?;
    let clock = AlchemyClock::new().map_err(failed)?;
    let timer = task.into_periodic_timer(interval_ns).map_err(failed)?;
    Ok((clock, XenomaiTimer { timer }))
}

/// The task's periodic timer, as the engine's loop wants a timer: a signal that cuts a wait
/// short (`-EINTR`) waits again, unless the run was cancelled.
#[derive(Debug)]
pub struct XenomaiTimer {
    timer: PeriodicTimer<Task>,
}

impl XenomaiTimer {
    /// The task the timer belongs to.
    pub fn task(&self) -> &Task {
        self.timer.task()
    }
}

/// Why a wait ended without its release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XenomaiWakeError {
    /// The run was cancelled while the task waited (the cycle is not measured).
    Cancelled,
    /// Xenomai's error.
    Xenomai(Error),
}

impl fmt::Display for XenomaiWakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            XenomaiWakeError::Cancelled => f.write_str("the wait was cancelled"),
            XenomaiWakeError::Xenomai(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for XenomaiWakeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            XenomaiWakeError::Cancelled => None,
            XenomaiWakeError::Xenomai(e) => Some(e),
        }
    }
}

impl WakeError for XenomaiWakeError {
    #[inline(always)]
    fn cancelled(&self) -> bool {
        matches!(self, XenomaiWakeError::Cancelled)
    }
}

impl Timer for XenomaiTimer {
    type Error = XenomaiWakeError;

    #[inline(always)]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), XenomaiWakeError> {
        match self.timer.sleep_until(deadline) {
            Ok(()) => Ok(()),
            Err(e) => self.after_failed_wait(deadline, e),
        }
    }
}

impl XenomaiTimer {
    /// After a wait failed with `error`: waits again while a signal cut it short and the run
    /// goes on; the error otherwise. Out of line: only an interruption gets here.
    #[cold]
    #[inline(never)]
    fn after_failed_wait(
        &mut self,
        deadline: u64,
        mut error: Error,
    ) -> Result<(), XenomaiWakeError> {
        loop {
            if error.errno() != Some(EINTR) {
                return Err(XenomaiWakeError::Xenomai(error));
            }
            if rtlat_linux::signals::measurement_cancelled() {
                return Err(XenomaiWakeError::Cancelled);
            }
            match self.timer.sleep_until(deadline) {
                Ok(()) => return Ok(()),
                Err(e) => error = e,
            }
        }
    }
}

/// `EINTR` (4 on every Linux architecture).
const EINTR: i32 = 4;

impl TimerFigures for XenomaiTimer {
    fn reported_overruns(&self) -> Option<u64> {
        Some(self.timer.overruns_total())
    }
}
