//! Where a command's choice of clock and timer becomes types: [`with_clock_and_timer`] calls
//! a [`WithClockAndTimer`] with the concrete pair, made on the measuring thread, so the loop
//! is compiled once per pair and a cycle pays no dispatch on either.
//!
//! A backend plugs in as one more pair: its clock implements rtlat-core's `Clock` (error
//! shown with `Display`), its timer `Timer` with an error that says whether the sleep was
//! cancelled ([`WakeError`]) and, if it translates deadlines to another clock,
//! [`TimerFigures`]. Today: the POSIX clocks with each of rtlat-linux's timers, and on
//! aarch64 the generic-timer counter with its counter timer.

use rtlat_core::{Clock, Timer};
use rtlat_linux::{
    AbsoluteSleep, ClockId, NanoSleep, PosixClock, PosixTimer, RelativeSleep, TimerFd, TimerKind,
    TimerlatFd,
};

pub use crate::backend::{ClockFailure, TimerFigures, TranslationFigures, WakeError};
use crate::error::MeasureError;

/// The clock a run measures on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockSource {
    /// A POSIX clock (CLOCK_MONOTONIC, CLOCK_REALTIME), with any of rtlat-linux's timers.
    Posix(ClockId),
    /// The ARM generic-timer counter (`CNTVCT_EL0`), with its counter timer (absolute
    /// deadlines only).
    #[cfg(target_arch = "aarch64")]
    Counter,
    /// Xenomai's Alchemy clock, the thread made an Alchemy task at `priority` on `cpu`
    /// sleeping on its periodic timer (the timer kind is ignored).
    #[cfg(feature = "xenomai")]
    Xenomai {
        /// The task's priority (0: SCHED_OTHER, 1–99: SCHED_FIFO).
        priority: u8,
        /// The CPU it is pinned to.
        cpu: Option<usize>,
    },
}

impl TimerFigures for AbsoluteSleep {}
impl TimerFigures for RelativeSleep {}
impl TimerFigures for NanoSleep {}
impl TimerFigures for PosixTimer {}
impl TimerFigures for TimerFd {}
impl TimerFigures for TimerlatFd {}

#[cfg(target_arch = "aarch64")]
impl TimerFigures for rtlat_arm64::GenericTimerSleep {
    fn translation(&self) -> Option<TranslationFigures> {
        let map = self.map();
        Some(TranslationFigures {
            early_wakeups: self.early_wakeups(),
            slew_ppm: map.slew_ppm(),
            calibrations: map.calibrations(),
            refused: map.refused(),
        })
    }
}

/// How long the counter timer measures CLOCK_MONOTONIC's rate before the run.
#[cfg(target_arch = "aarch64")]
const CALIBRATION: std::time::Duration = std::time::Duration::from_millis(100);

/// The generic-timer clock and its timer, calibrated against CLOCK_MONOTONIC: refused when
/// `CNTFRQ_EL0` is 0 or the counter does not run at its rate. The main thread calls it once
/// before changing anything; each measuring thread makes its own.
#[cfg(target_arch = "aarch64")]
pub fn counter_clock()
-> Result<(rtlat_arm64::GenericTimer, rtlat_arm64::GenericTimerSleep), MeasureError> {
    let clock = rtlat_arm64::GenericTimer::new().map_err(MeasureError::Counter)?;
    let mut timer = rtlat_arm64::GenericTimerSleep::new(&clock).map_err(MeasureError::Counter)?;
    timer
        .calibrate(CALIBRATION)
        .map_err(MeasureError::Calibration)?
        .map_err(MeasureError::Counter)?;
    Ok((clock, timer))
}

/// Work to run with a concrete clock and timer (a generic closure, as a trait).
pub trait WithClockAndTimer {
    /// What the work returns.
    type Output;
    /// Runs with the pair `make` makes (call it on the measuring thread, after its set-up).
    fn run<C, T>(self, make: impl FnOnce() -> Result<(C, T), MeasureError>) -> Self::Output
    where
        C: Clock,
        C::Error: ClockFailure,
        T: Timer + TimerFigures,
        T::Error: WakeError;
}

/// Calls `work` with the clock `source` and the timer `kind` (`interval_ns` for the timers
/// that are periodic themselves). On aarch64's counter the timer is always its own.
pub fn with_clock_and_timer<W: WithClockAndTimer>(
    source: ClockSource,
    kind: TimerKind,
    interval_ns: u64,
    work: W,
) -> W::Output {
    #[allow(clippy::infallible_destructuring_match)] // one arm on targets without a counter
    let id = match source {
        ClockSource::Posix(id) => id,
        #[cfg(target_arch = "aarch64")]
        ClockSource::Counter => return work.run(counter_clock),
        #[cfg(feature = "xenomai")]
        ClockSource::Xenomai { priority, cpu } => {
            return work.run(|| crate::xenomai::clock_and_timer(priority, cpu, interval_ns));
        }
    };
    let clock = PosixClock::new(id);
    let linux = MeasureError::Timer;
    match kind {
        TimerKind::Absolute => work.run(|| Ok((clock, AbsoluteSleep::new(id)))),
        TimerKind::Relative => work.run(|| Ok((clock, RelativeSleep::new(id)))),
        TimerKind::NanoSleep => work.run(|| Ok((clock, NanoSleep::new(id)))),
        TimerKind::PosixTimer => {
            work.run(|| Ok((clock, PosixTimer::new(id, interval_ns).map_err(linux)?)))
        }
        TimerKind::TimerFd => {
            work.run(|| Ok((clock, TimerFd::new(id, interval_ns).map_err(linux)?)))
        }
        // The tracer (started by the front) owns the period: `interval_ns` must be its
        // `timerlat_period_us`.
        TimerKind::Timerlat => work.run(|| Ok((clock, TimerlatFd::open_on(id).map_err(linux)?))),
    }
}
