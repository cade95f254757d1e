//! The measuring loop every front runs: check for the end of the run, sleep to the next
//! deadline and read the clock (rtlat-core's [`CycleEngine::step`]), record, then the
//! front's own per-cycle work, a [`PerCycle`]. Generic over the clock, the timer, the
//! missed-deadline policy and the per-cycle work, so each combination is compiled on its own
//! and a cycle pays no dispatch.
//!
//! Everything a cycle touches is allocated and written before the first one. Inside the
//! loop there is no allocation, no lock, no formatting and no system call but the timer's
//! sleep and the clock read; the allocations and minor page faults taken around the loop are
//! counted ([`Measured`]) so a run can show it.

use std::sync::atomic::{AtomicBool, Ordering};

use rtlat_core::{Clock, CycleEngine, Missed, Outcome, Record, Sample, Timer};
use rtlat_linux::PageFaults;

use crate::error::MeasureError;
use crate::timers::{ClockFailure, WakeError};

/// Whether the loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Measure the next cycle.
    Go,
    /// End the loop (the cycle just seen counts).
    Stop,
}

/// A front's work per cycle, around the engine's step.
pub trait PerCycle<C: Clock, T: Timer, M: Missed> {
    /// What the engine records each latency into.
    type Recorder: Record;

    /// The recorder for the next step.
    fn recorder(&mut self) -> &mut Self::Recorder;

    /// Before each step, after the stop check (default: go on).
    #[inline(always)]
    fn before(&mut self, _engine: &CycleEngine<C, T, M>) -> Flow {
        Flow::Go
    }

    /// After each measured wake-up; `broke` when its latency crossed the engine's break
    /// threshold. The sample comes by value: a sample whose address is taken stays in memory
    /// on every cycle.
    fn after(&mut self, sample: Sample, broke: bool, engine: &CycleEngine<C, T, M>) -> Flow;
}

/// What the loop cost, measured around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Measured {
    /// Allocations the thread made while measuring (by the program's counting allocator).
    pub allocations: u64,
    /// Minor page faults the thread took while measuring.
    pub minor_faults: u64,
}

/// Starts `engine` if the front did not ([`CycleEngine::start`]: the first deadline one
/// interval from now), then runs it until `stop` is set, the engine's loop count is reached, the timer's sleep
/// is cancelled (the run ends while the thread sleeps: that cycle is not measured) or `work`
/// says stop. `allocations` counts the calling thread's allocations (0 where nothing counts
/// them). Returns the loop's end (a failed step as [`MeasureError::Step`]) and its cost.
#[inline]
pub fn measure<C, T, M, W>(
    engine: &mut CycleEngine<C, T, M>,
    stop: &AtomicBool,
    work: &mut W,
    allocations: fn() -> u64,
) -> (Result<(), MeasureError>, Measured)
where
    C: Clock,
    C::Error: ClockFailure,
    T: Timer,
    T::Error: WakeError,
    M: Missed,
    W: PerCycle<C, T, M>,
{
    // Counted around the whole loop, first cycle included; the only system calls in between
    // are the timer's sleeps and the clock reads.
    let faults_start = PageFaults::current().map(|f| f.minor).unwrap_or(0);
    let allocations_start = allocations();
    // An engine the front did not start starts here, so the loop's steps need not check.
    let started = match engine.next_deadline() {
        Some(_) => Ok(()),
        None => engine.start().map_err(MeasureError::step),
    };
    let result = started.and_then(|()| {
        loop {
            if stop.load(Ordering::Relaxed) {
                break Ok(());
            }
            if work.before(engine) == Flow::Stop {
                break Ok(());
            }
            // One match over the step's result, so the sample stays in registers.
            let (sample, broke) = match engine.step_started(work.recorder()) {
                Ok(Outcome::Sample(s)) => (s, false),
                Ok(Outcome::Break(s)) => (s, true),
                Ok(Outcome::Done) => break Ok(()),
                // The run ended while the thread slept: the interrupted cycle is not measured.
                Err(rtlat_core::Error::Timer(e)) if e.cancelled() => break Ok(()),
                // Moved out whole (never borrowed in place), so the step's result can live in
                // registers on the common path.
                Err(e) => break Err(MeasureError::step(e)),
            };
            if work.after(sample, broke, engine) == Flow::Stop {
                break Ok(());
            }
        }
    });
    let measured = Measured {
        allocations: allocations().wrapping_sub(allocations_start),
        minor_faults: PageFaults::current()
            .map(|f| f.minor.saturating_sub(faults_start))
            .unwrap_or(0),
    };
    (result, measured)
}

#[cfg(test)]
mod tests {
    //! The loop on rtlat-core's simulated clock and timer (`rtlat_core::sim`): no OS timer, no
    //! sleeping, exactly what a new backend (Xenomai, a board's counter) plugs in as.

    use super::*;
    use rtlat_core::sim;
    use rtlat_core::{BackToBack, CycleConfig, Periodic, Summary};
    use sim::{SimClock, SimTimer};
    use std::cell::Cell;

    /// Counts cycles and overruns, stops after `until` cycles.
    struct Count {
        totals: Summary,
        overruns: u64,
        until: u64,
        befores: u64,
    }

    impl<C: Clock, T: Timer, M: Missed> PerCycle<C, T, M> for Count {
        type Recorder = Summary;
        fn recorder(&mut self) -> &mut Summary {
            &mut self.totals
        }
        fn before(&mut self, _: &CycleEngine<C, T, M>) -> Flow {
            self.befores += 1;
            Flow::Go
        }
        fn after(&mut self, sample: Sample, _: bool, _: &CycleEngine<C, T, M>) -> Flow {
            self.overruns += sample.overruns;
            if self.totals.count() == self.until {
                Flow::Stop
            } else {
                Flow::Go
            }
        }
    }

    fn count(until: u64) -> Count {
        Count {
            totals: Summary::new(),
            overruns: 0,
            until,
            befores: 0,
        }
    }

    #[test]
    fn the_loop_runs_on_a_simulated_clock_and_timer() {
        let now = Cell::new(0);
        let clock = SimClock {
            now: &now,
            rate_hz: 1_000_000_000,
        };
        let timer = SimTimer {
            now: &now,
            delays: vec![10, 3_500, -2, 7].into_iter(),
            deadlines: Vec::new(),
        };
        let mut engine = CycleEngine::new(clock, timer, CycleConfig::new(1_000)).unwrap();
        let mut work = count(4);
        let (result, _) = measure(&mut engine, &AtomicBool::new(false), &mut work, || 0);
        result.unwrap();
        assert_eq!(work.totals.count(), 4);
        assert_eq!(
            (work.totals.min(), work.totals.max()),
            (Some(-2), Some(3_500))
        );
        assert_eq!(work.overruns, 3, "the late wake-up skipped three deadlines");
        assert_eq!(engine.timer_mut().deadlines, [1_000, 2_000, 6_000, 7_000]);
        assert_eq!(work.befores, 4);
    }

    #[test]
    fn back_to_back_runs_every_missed_period_through_the_same_loop() {
        let now = Cell::new(0);
        let clock = SimClock {
            now: &now,
            rate_hz: 1_000_000_000,
        };
        let timer = SimTimer {
            now: &now,
            delays: vec![3_500, 0].into_iter(),
            deadlines: Vec::new(),
        };
        let mut engine: Periodic<_, _> =
            CycleEngine::<_, _, BackToBack>::with_policy(clock, timer, CycleConfig::new(1_000))
                .unwrap();
        let mut work = count(5);
        let (result, _) = measure(&mut engine, &AtomicBool::new(false), &mut work, || 0);
        result.unwrap();
        assert_eq!(work.overruns, 3, "three periods run at once, none skipped");
        assert_eq!(engine.timer_mut().deadlines, [1_000, 5_000]);
    }

    #[test]
    fn a_stop_before_the_first_cycle_measures_nothing_and_a_timer_error_comes_out() {
        let now = Cell::new(0);
        let clock = SimClock {
            now: &now,
            rate_hz: 1_000_000_000,
        };
        let timer = SimTimer {
            now: &now,
            delays: Vec::new().into_iter(),
            deadlines: Vec::new(),
        };
        let mut engine = CycleEngine::new(clock, timer, CycleConfig::new(1_000)).unwrap();
        let mut work = count(1);
        let (result, _) = measure(&mut engine, &AtomicBool::new(true), &mut work, || 0);
        assert!(result.is_ok(), "{result:?}");
        assert_eq!(work.totals.count(), 0);
        let (result, _) = measure(&mut engine, &AtomicBool::new(false), &mut work, || 0);
        let error = result.expect_err("the script ran out");
        assert!(
            matches!(error, MeasureError::Step(rtlat_core::Error::Timer(_))),
            "{error:?}"
        );
        assert_eq!(error.to_string(), "timer sleep failed: script exhausted");
    }
}
