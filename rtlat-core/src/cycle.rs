//! The cycle engine: sleep to an absolute schedule, measure how late each wake-up is.
//!
//! The schedule is `start + k·interval`, fixed in advance, so a late wake-up never shifts the
//! ones after it. Latency is `wake − deadline`, **signed**: an early wake-up (a timer that
//! fires ahead of its deadline, as Xenomai's anticipation can) shows as a negative value
//! instead of wrapping to a huge one.
//!
//! What happens after a missed deadline is the engine's [`Missed`] policy, a type parameter
//! (so the loop pays nothing to choose):
//!
//! - [`Skip`] (the default; cyclictest, Xenomai `latency`): a wake-up more than one interval
//!   late skips the deadlines already passed and **counts** them as overruns (cyclictest
//!   drops them silently).
//! - [`BackToBack`] (LinuxCNC's RTAPI in user space; the [`Periodic`] alias): every period is
//!   owed. The next deadline is always the previous one plus the interval, and a thread whose
//!   next deadline has already passed when it comes to wait does not sleep at all: a thread
//!   held up for several periods runs the missed periods back to back until it has caught
//!   up, so the number of runs always matches the time elapsed. Each wait that finds its
//!   deadline already passed is an **overrun** (the condition on which LinuxCNC prints
//!   "Unexpected realtime delay"): a run that starts `n` periods late is followed by about
//!   `n` overruns while the thread catches up.

use crate::Error;
use crate::clock::{Clock, TickScale, Timer};
use crate::stats::Record;

mod private {
    pub trait Sealed {}
}

/// What the engine does after a missed deadline: [`Skip`] or [`BackToBack`].
pub trait Missed: private::Sealed {
    /// Runs missed periods back to back instead of skipping them.
    const BACK_TO_BACK: bool;
}

/// Skip the deadlines a late wake-up has passed and count them (cyclictest, `latency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Skip;

/// Never skip a deadline: one already passed runs at once, without sleeping (LinuxCNC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BackToBack;

impl private::Sealed for Skip {}
impl private::Sealed for BackToBack {}
impl Missed for Skip {
    const BACK_TO_BACK: bool = false;
}
impl Missed for BackToBack {
    const BACK_TO_BACK: bool = true;
}

/// LinuxCNC's schedule for a periodic real-time thread: the [`CycleEngine`] with the
/// [`BackToBack`] policy, made by [`Periodic::with_policy`](CycleEngine::with_policy).
pub type Periodic<C, T> = CycleEngine<C, T, BackToBack>;

/// What to run: the interval and when to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CycleConfig {
    /// Time between deadlines, in nanoseconds.
    pub interval_ns: u64,
    /// Stop after this many cycles (wake-ups); `None` runs until told to stop.
    pub loops: Option<u64>,
    /// Stop at the first latency above this many nanoseconds (cyclictest's `-b`).
    pub break_above_ns: Option<i64>,
}

impl CycleConfig {
    /// Runs forever at `interval_ns`, no break threshold.
    pub const fn new(interval_ns: u64) -> Self {
        CycleConfig {
            interval_ns,
            loops: None,
            break_above_ns: None,
        }
    }
}

/// One measured wake-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Cycle number, from 0.
    pub cycle: u64,
    /// Wake-up time minus deadline, in nanoseconds (negative: woke early).
    pub latency_ns: i64,
    /// [`Skip`]: deadlines already past at this wake-up and skipped (0 normally).
    /// [`BackToBack`]: 1 when the deadline had passed before the thread came to wait for it
    /// (it ran at once, without sleeping), else 0.
    pub overruns: u64,
    /// The wake-up time (with [`BackToBack`] after an overrun, the clock read that found the
    /// deadline passed), in clock ticks.
    pub wake_ticks: u64,
}

/// The result of one [`CycleEngine::step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A wake-up was measured and recorded; go on.
    Sample(Sample),
    /// A wake-up was measured and recorded, and its latency exceeded the break threshold.
    Break(Sample),
    /// The loop count was reached before this step; nothing was measured.
    Done,
}

/// One run of a [`Periodic`] thread ([`CycleEngine::wait`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Run number, from 0; run `k` belongs to the deadline `start + k·period`.
    pub index: u64,
    /// The run's deadline, in clock ticks.
    pub deadline_ticks: u64,
    /// When the run started (the wake-up, or the clock read that found the deadline passed),
    /// in clock ticks.
    pub start_ticks: u64,
    /// Start minus deadline, ns (negative: the timer woke early).
    pub lateness_ns: i64,
    /// The deadline had passed before the thread came to wait for it: it ran at once,
    /// without sleeping.
    pub overrun: bool,
}

/// Runs the measurement loop over a [`Clock`] and a [`Timer`]: no allocation, no formatting,
/// nothing between the timer and the clock read but the backend's own calls. `M` is what
/// happens after a missed deadline ([`Skip`] or [`BackToBack`]).
#[derive(Debug)]
pub struct CycleEngine<C, T, M = Skip> {
    missed: core::marker::PhantomData<M>,
    clock: C,
    timer: T,
    scale: TickScale,
    interval: u64,
    // Plain integers with sentinels instead of `Option`s: the step pays no unwrapping.
    /// The next deadline (meaningful once `started`).
    next: u64,
    started: bool,
    cycle: u64,
    overruns: u64,
    /// Largest latency so far (`i64::MIN` before the first cycle) and its cycle.
    max_ns: i64,
    max_cycle: u64,
    /// Loop count (`u64::MAX`: endless).
    loops: u64,
    /// Break threshold (`i64::MAX`: none, since no latency is above it).
    break_above_ns: i64,
    /// The smaller of `max_ns` and `break_above_ns`: a latency above it is a new maximum,
    /// a break or both, and one at or below it neither, so a step compares once.
    watch_ns: i64,
}

/// Errors of a running engine: the clock's or the timer's.
pub type CycleError<C, T> = Error<<C as Clock>::Error, <T as Timer>::Error>;

/// Errors of a running [`Periodic`] schedule (the same as a [`CycleError`]).
pub type PeriodicError<C, T> = CycleError<C, T>;

impl<C: Clock, T: Timer> CycleEngine<C, T, Skip> {
    /// An engine for `config` over `clock` and `timer` that skips missed deadlines (see
    /// [`with_policy`](Self::with_policy)).
    pub fn new(clock: C, timer: T, config: CycleConfig) -> Result<Self, Error> {
        Self::with_policy(clock, timer, config)
    }
}

impl<C: Clock, T: Timer, M: Missed> CycleEngine<C, T, M> {
    /// An engine for `config` over `clock` and `timer`, policy `M` after a missed deadline. Error for a zero interval, a zero
    /// clock rate, or an interval shorter than one clock tick.
    pub fn with_policy(clock: C, timer: T, config: CycleConfig) -> Result<Self, Error> {
        if config.interval_ns == 0 {
            return Err(Error::ZeroInterval("interval"));
        }
        let scale = TickScale::new(clock.rate_hz())?;
        let interval = scale.from_ns(config.interval_ns);
        if interval == 0 {
            return Err(Error::ZeroInterval("interval in clock ticks"));
        }
        Ok(CycleEngine {
            missed: core::marker::PhantomData,
            clock,
            timer,
            scale,
            interval,
            next: 0,
            started: false,
            cycle: 0,
            overruns: 0,
            max_ns: i64::MIN,
            max_cycle: 0,
            loops: config.loops.unwrap_or(u64::MAX),
            break_above_ns: config.break_above_ns.unwrap_or(i64::MAX),
            watch_ns: i64::MIN,
        })
    }

    /// Fixes the first deadline one interval from now (what cyclictest does, and LinuxCNC
    /// when a thread starts). Called by the
    /// first [`step`](Self::step) if not called before.
    pub fn start(&mut self) -> Result<(), CycleError<C, T>> {
        let now = self.clock.now().map_err(Error::Clock)?;
        self.start_at(now.saturating_add(self.interval));
        Ok(())
    }

    /// Fixes the first deadline at `deadline` ticks (aligned starts: `-A`, `--secaligned`).
    pub fn start_at(&mut self, deadline: u64) {
        self.next = deadline;
        self.started = true;
    }

    /// Sleeps to the next deadline (with [`BackToBack`], only if it has not passed yet),
    /// measures the wake-up, records the latency into `recorder` and moves the schedule on.
    #[inline]
    pub fn step<R: Record>(&mut self, recorder: &mut R) -> Result<Outcome, CycleError<C, T>> {
        if !self.started && self.cycle < self.loops {
            self.start()?;
        }
        self.step_started(recorder)
    }

    /// [`step`](Self::step) on an engine whose first deadline is fixed ([`start`](Self::start),
    /// [`start_at`](Self::start_at) or an earlier step): a loop that starts the engine before
    /// it saves the check every cycle. On an engine not started, the first deadline is tick 0
    /// (long past: the first wake-up is late by the clock's whole reading).
    ///
    /// Always inlined: it is the body of every measuring loop, called from one place in each,
    /// and a call would move the sample and the recorder through memory every cycle.
    #[inline(always)]
    pub fn step_started<R: Record>(
        &mut self,
        recorder: &mut R,
    ) -> Result<Outcome, CycleError<C, T>> {
        if self.cycle >= self.loops {
            return Ok(Outcome::Done);
        }
        let deadline = self.next;
        let (now, overrun) = self.wake(deadline)?;
        let late_ticks = now.wrapping_sub(deadline) as i64;
        let latency_ns = self.scale.to_ns_signed(late_ticks);
        recorder.record(latency_ns);
        let overruns = self.move_on(deadline, late_ticks, overrun);
        let sample = Sample {
            cycle: self.cycle,
            latency_ns,
            overruns,
            wake_ticks: now,
        };
        // `to_ns_signed` never gives `i64::MIN`, the value `max_ns` and `watch_ns` start at,
        // so the first cycle always sets the maximum.
        let mut broke = false;
        if latency_ns > self.watch_ns {
            crate::stats::rare();
            broke = latency_ns > self.break_above_ns;
            if latency_ns > self.max_ns {
                self.max_ns = latency_ns;
                self.max_cycle = self.cycle;
            }
            self.watch_ns = self.max_ns.min(self.break_above_ns);
        }
        self.cycle += 1;
        Ok(if broke {
            Outcome::Break(sample)
        } else {
            Outcome::Sample(sample)
        })
    }

    /// Waits for `deadline` as the policy says: the wake-up time, and whether the deadline
    /// had already passed so that the wait was skipped ([`BackToBack`] only).
    #[inline(always)]
    fn wake(&mut self, deadline: u64) -> Result<(u64, bool), CycleError<C, T>> {
        if M::BACK_TO_BACK {
            let now = self.clock.now().map_err(Error::Clock)?;
            // LinuxCNC sleeps unless the deadline is strictly in the past.
            if now > deadline {
                return Ok((now, true));
            }
        }
        self.timer.sleep_until(deadline).map_err(Error::Timer)?;
        Ok((self.clock.now().map_err(Error::Clock)?, false))
    }

    /// Moves the schedule past `deadline`, woken `late_ticks` after it; returns the overruns
    /// this wake-up counts.
    #[inline(always)]
    fn move_on(&mut self, deadline: u64, late_ticks: i64, overrun: bool) -> u64 {
        // Wrapping, not saturating: 2^64 ticks are 584 years at 1 GHz, a deadline no clock
        // that starts near zero (the monotonic clock, the generic-timer counter) reaches, and
        // the common path saves the clamp.
        self.next = deadline.wrapping_add(self.interval);
        if M::BACK_TO_BACK {
            self.overruns += u64::from(overrun);
            return u64::from(overrun);
        }
        // Deadlines strictly before the wake-up are past: skip them and count them (the rare
        // path divides and stays out of line; the common one adds one interval).
        if late_ticks > self.interval as i64 {
            return self.skip_past(late_ticks as u64);
        }
        0
    }

    /// After a wake-up `late_ticks` (more than an interval) late: skips the deadlines already
    /// past and counts them as overruns; returns how many. Out of line: the rare path divides.
    #[cold]
    #[inline(never)]
    fn skip_past(&mut self, late_ticks: u64) -> u64 {
        let skipped = (late_ticks - 1) / self.interval;
        self.next = self
            .next
            .saturating_add(skipped.saturating_mul(self.interval));
        self.overruns += skipped;
        skipped
    }

    /// Steps until the loop count is reached or the break threshold is crossed.
    /// Returns the break sample, or `None` when the loop count ended the run.
    pub fn run<R: Record>(&mut self, recorder: &mut R) -> Result<Option<Sample>, CycleError<C, T>> {
        loop {
            match self.step(recorder)? {
                Outcome::Sample(_) => {}
                Outcome::Break(sample) => return Ok(Some(sample)),
                Outcome::Done => return Ok(None),
            }
        }
    }

    /// Cycles measured so far.
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// Overruns so far: with [`Skip`], deadlines skipped because a wake-up came more than an
    /// interval late; with [`BackToBack`], runs whose deadline had passed before the thread
    /// came to wait for it.
    pub fn overruns(&self) -> u64 {
        self.overruns
    }

    /// The largest latency so far and the cycle it happened in.
    pub fn max(&self) -> Option<(i64, u64)> {
        (self.cycle > 0).then_some((self.max_ns, self.max_cycle))
    }

    /// The interval in clock ticks.
    pub fn interval_ticks(&self) -> u64 {
        self.interval
    }

    /// The next deadline in clock ticks, once started.
    pub fn next_deadline(&self) -> Option<u64> {
        self.started.then_some(self.next)
    }

    /// The tick-to-nanosecond conversion in use.
    pub fn scale(&self) -> TickScale {
        self.scale
    }

    /// The clock, e.g. to read it outside the loop.
    pub fn clock_mut(&mut self) -> &mut C {
        &mut self.clock
    }

    /// The timer, e.g. to inspect a simulated one.
    pub fn timer_mut(&mut self) -> &mut T {
        &mut self.timer
    }
}

impl<C: Clock, T: Timer> CycleEngine<C, T, BackToBack> {
    /// Waits for the next run's deadline and returns the run: sleeps to the deadline, or,
    /// when it has already passed, returns at once (an overrun). The deadline after it is
    /// always this one plus the period. Ignores the loop count and the break threshold.
    #[inline]
    pub fn wait(&mut self) -> Result<Run, PeriodicError<C, T>> {
        if !self.started {
            self.start()?;
        }
        let deadline = self.next;
        let (now, overrun) = self.wake(deadline)?;
        let late_ticks = now.wrapping_sub(deadline) as i64;
        self.move_on(deadline, late_ticks, overrun);
        let run = Run {
            index: self.cycle,
            deadline_ticks: deadline,
            start_ticks: now,
            lateness_ns: self.scale.to_ns_signed(late_ticks),
            overrun,
        };
        self.cycle += 1;
        Ok(run)
    }
}
