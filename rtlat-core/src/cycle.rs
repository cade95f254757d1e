//! The cycle engine: sleep to an absolute schedule, measure how late each wake-up is.
//!
//! The schedule is `start + k·interval`, fixed in advance, so a late wake-up never shifts the
//! ones after it. Latency is `wake − deadline`, **signed**: an early wake-up (a timer that
//! fires ahead of its deadline, as Xenomai's anticipation can) shows as a negative value
//! instead of wrapping to a huge one. A wake-up more than one interval late skips the
//! deadlines already passed (as cyclictest does) and **counts** them as overruns (cyclictest
//! drops them silently).

use crate::Error;
use crate::clock::{Clock, TickScale, Timer};
use crate::stats::Record;

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
    /// Deadlines already past at this wake-up and skipped (0 normally).
    pub overruns: u64,
    /// The wake-up time, in clock ticks.
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

/// Runs the measurement loop over a [`Clock`] and a [`Timer`]: no allocation, no formatting,
/// nothing between the timer and the clock read but the backend's own calls.
#[derive(Debug)]
pub struct CycleEngine<C, T> {
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
}

/// Errors of a running engine: the clock's or the timer's.
pub type CycleError<C, T> = Error<<C as Clock>::Error, <T as Timer>::Error>;

impl<C: Clock, T: Timer> CycleEngine<C, T> {
    /// An engine for `config` over `clock` and `timer`. Error for a zero interval, a zero
    /// clock rate, or an interval shorter than one clock tick.
    pub fn new(clock: C, timer: T, config: CycleConfig) -> Result<Self, Error> {
        if config.interval_ns == 0 {
            return Err(Error::ZeroInterval("interval"));
        }
        let scale = TickScale::new(clock.rate_hz())?;
        let interval = scale.from_ns(config.interval_ns);
        if interval == 0 {
            return Err(Error::ZeroInterval("interval in clock ticks"));
        }
        Ok(CycleEngine {
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
        })
    }

    /// Fixes the first deadline one interval from now (what cyclictest does). Called by the
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

    /// Sleeps to the next deadline, measures the wake-up, records the latency into
    /// `recorder` and moves the schedule on.
    #[inline]
    pub fn step<R: Record>(&mut self, recorder: &mut R) -> Result<Outcome, CycleError<C, T>> {
        if self.cycle >= self.loops {
            return Ok(Outcome::Done);
        }
        if !self.started {
            self.start()?;
        }
        let deadline = self.next;
        self.timer.sleep_until(deadline).map_err(Error::Timer)?;
        let now = self.clock.now().map_err(Error::Clock)?;

        let late_ticks = now.wrapping_sub(deadline) as i64;
        let latency_ns = self.scale.to_ns_signed(late_ticks);
        recorder.record(latency_ns);

        // Deadlines strictly before `now` are past: skip them and count them (the rare path
        // divides; the common one adds one interval).
        let mut skipped = 0;
        self.next = deadline.saturating_add(self.interval);
        if late_ticks > self.interval as i64 {
            skipped = self.skip_past(late_ticks as u64);
        }

        let sample = Sample {
            cycle: self.cycle,
            latency_ns,
            overruns: skipped,
            wake_ticks: now,
        };
        // `to_ns_signed` never gives `i64::MIN`, the value `max_ns` starts at, so the first
        // cycle always sets it.
        if latency_ns > self.max_ns {
            self.max_ns = latency_ns;
            self.max_cycle = self.cycle;
        }
        self.cycle += 1;
        Ok(if latency_ns > self.break_above_ns {
            Outcome::Break(sample)
        } else {
            Outcome::Sample(sample)
        })
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

    /// Deadlines skipped so far because a wake-up came more than an interval late.
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
