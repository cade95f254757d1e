//! What a backend's timer shows the engine beyond rtlat-core's `Timer`: whether a failed
//! sleep was cancelled ([`WakeError`]) and what it reports about itself ([`TimerFigures`]).
//! Every clock and timer pair implements these (rtlat-linux's and rtlat-arm64's in
//! [`crate::timers`], Xenomai's in `crate::xenomai`); the dispatch over the pairs
//! ([`crate::timers::with_clock_and_timer`]) depends on them, never the other way.

/// A clock's error, as the measuring loop keeps it when the loop ends on it
/// ([`crate::error::MeasureError::Step`]): any error that may cross threads.
pub trait ClockFailure: std::error::Error + Send + Sync + 'static {}

impl<E: std::error::Error + Send + Sync + 'static> ClockFailure for E {}

/// A timer's error, as the measuring loop needs to see it.
pub trait WakeError: std::error::Error + Send + Sync + 'static {
    /// The sleep was cut short because the run is ending (the cycle is not measured).
    fn cancelled(&self) -> bool;
}

impl WakeError for rtlat_linux::SleepError {
    #[inline(always)]
    fn cancelled(&self) -> bool {
        matches!(self, rtlat_linux::SleepError::Cancelled)
    }
}

impl WakeError for core::convert::Infallible {
    fn cancelled(&self) -> bool {
        match *self {}
    }
}

/// rtlat-core's test simulation's timer runs out of script, never cancelled.
#[cfg(test)]
impl WakeError for rtlat_core::sim::ScriptExhausted {
    fn cancelled(&self) -> bool {
        false
    }
}

/// What a timer reports about itself, beyond sleeping: for a timer that translates deadlines
/// to another clock (rtlat-arm64's counter timer), what the translation did; for a timer
/// whose system counts overruns itself (Xenomai's periodic timer), that count. The defaults
/// are for timers that do neither (rtlat-linux's).
pub trait TimerFigures {
    /// The translation's figures so far, if the timer translates.
    fn translation(&self) -> Option<TranslationFigures> {
        None
    }

    /// The overruns the timer's own system reported (Xenomai's `rt_task_wait_period`), if it
    /// counts them; the engine's count is kept apart (see the `xenomai` module).
    fn reported_overruns(&self) -> Option<u64> {
        None
    }
}

/// A translating timer's figures (see rtlat-arm64's `DeadlineMap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranslationFigures {
    /// Wake-ups before the deadline on the measured clock, finished on it.
    pub early_wakeups: u64,
    /// CLOCK_MONOTONIC's rate against the measured clock's stated rate, ppm, at the end.
    pub slew_ppm: i64,
    /// Rate measurements taken (the one before the run, then one a second).
    pub calibrations: u64,
    /// Rate measurements refused (beyond 0.1 %, or clocks going back).
    pub refused: u64,
}
