//! Why a measuring thread could not measure, or stopped: each step's own error, kept as its
//! type so a front can tell them apart; its text is the one-line message a front prints.

use core::fmt;

use rtlat_linux::{SignalError, SleepError, ThreadError, TimerError};

/// A clock's or a timer's error from inside the loop, whatever the backend (rtlat-linux's,
/// rtlat-arm64's, Xenomai's): boxed when the loop ends on it, never before.
pub type BackendError = Box<dyn std::error::Error + Send + Sync>;

/// A measuring thread's failure.
#[derive(Debug)]
#[non_exhaustive]
pub enum MeasureError {
    /// The run's signals could not be blocked on the thread.
    Signals(SignalError),
    /// The thread's policy, priority, CPU or stack could not be set.
    Setup(ThreadError),
    /// rtlat-linux's timer could not be made.
    Timer(TimerError),
    /// The generic-timer counter (`-c cntvct`) cannot be used here.
    #[cfg(target_arch = "aarch64")]
    Counter(rtlat_arm64::Error),
    /// CLOCK_MONOTONIC could not be read to calibrate the counter's timer.
    #[cfg(target_arch = "aarch64")]
    Calibration(rtlat_linux::ClockError),
    /// The thread could not become a Xenomai task, or get its clock or periodic timer.
    #[cfg(feature = "xenomai")]
    Xenomai {
        /// The task's name (`rtlat-N`).
        task: String,
        /// Xenomai's error.
        error: rtlat_xenomai_ffi::Error,
    },
    /// rtlat-core refused the run's interval or a histogram layout.
    Config(rtlat_core::Error),
    /// Xenomai's histogram was given no cell, or cells of 0 ns.
    EmptyHistogram,
    /// The clock or the timer failed while measuring (rtlat-core's words for which).
    Step(rtlat_core::Error<BackendError, BackendError>),
    /// Waiting for the end of the run failed.
    Sleep(SleepError),
    /// `--smi`: the SMI counter could not be read after a wake-up.
    Smi(rtlat_linux::msr::SmiError),
}

impl MeasureError {
    /// A failed step of the engine, its clock's or timer's error boxed. Out of line: only a
    /// failing loop comes here.
    #[cold]
    #[inline(never)]
    pub fn step<C, T>(error: rtlat_core::Error<C, T>) -> MeasureError
    where
        C: std::error::Error + Send + Sync + 'static,
        T: std::error::Error + Send + Sync + 'static,
    {
        use rtlat_core::Error;
        MeasureError::Step(match error {
            Error::Clock(e) => Error::Clock(Box::new(e)),
            Error::Timer(e) => Error::Timer(Box::new(e)),
            Error::InvalidLayout(why) => Error::InvalidLayout(why),
            Error::ZeroInterval(what) => Error::ZeroInterval(what),
            Error::LayoutMismatch => Error::LayoutMismatch,
        })
    }
}

impl fmt::Display for MeasureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeasureError::Signals(e) => e.fmt(f),
            MeasureError::Setup(e) => e.fmt(f),
            MeasureError::Timer(e) => e.fmt(f),
            #[cfg(target_arch = "aarch64")]
            MeasureError::Counter(e) => write!(f, "-c/--clock cntvct: {e}"),
            #[cfg(target_arch = "aarch64")]
            MeasureError::Calibration(e) => write!(f, "-c/--clock cntvct: {e}"),
            #[cfg(feature = "xenomai")]
            MeasureError::Xenomai { task, error } => write!(f, "Xenomai task {task}: {error}"),
            MeasureError::Config(e) => e.fmt(f),
            MeasureError::EmptyHistogram => {
                f.write_str("the histogram needs at least one cell of at least 1 ns")
            }
            MeasureError::Step(e) => e.fmt(f),
            MeasureError::Sleep(e) => e.fmt(f),
            MeasureError::Smi(e) => write!(f, "--smi: {e}"),
        }
    }
}

impl std::error::Error for MeasureError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MeasureError::Signals(e) => Some(e),
            MeasureError::Setup(e) => Some(e),
            MeasureError::Timer(e) => Some(e),
            #[cfg(target_arch = "aarch64")]
            MeasureError::Counter(e) => Some(e),
            #[cfg(target_arch = "aarch64")]
            MeasureError::Calibration(e) => Some(e),
            #[cfg(feature = "xenomai")]
            MeasureError::Xenomai { error, .. } => Some(error),
            MeasureError::Config(e) => Some(e),
            MeasureError::Step(e) => Some(e),
            MeasureError::Sleep(e) => Some(e),
            MeasureError::Smi(e) => Some(e),
            MeasureError::EmptyHistogram => None,
        }
    }
}

/// A measuring thread's failure with the thread it happened on, as a front names it:
/// `thread N: …` for `rtlat run`'s threads, `NAME thread: …` for servo's, bare for the one
/// thread of `rtlat latency`.
#[derive(Debug)]
pub struct OnThread {
    /// How the front names the thread.
    pub thread: ThreadName,
    /// What failed.
    pub error: MeasureError,
}

/// How a failure names its thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadName {
    /// `thread N: …` (rtlat run, the cyclictest name, monitor).
    Index(usize),
    /// `NAME thread: …` (servo's `servo`, `base`).
    Named(String),
    /// The front's only thread: not named.
    Only,
}

impl fmt::Display for OnThread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.thread {
            ThreadName::Index(i) => write!(f, "thread {i}: {}", self.error),
            ThreadName::Named(name) => write!(f, "{name} thread: {}", self.error),
            ThreadName::Only => self.error.fmt(f),
        }
    }
}

impl std::error::Error for OnThread {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}
