//! LinuxCNC's schedule for a periodic real-time thread (its RTAPI in user space): deadlines
//! `start + k·period`, none ever skipped.
//!
//! Where the [cycle engine](crate::cycle) skips the deadlines a late wake-up has passed (as
//! cyclictest does), a LinuxCNC thread owes every period: the next deadline is always the
//! previous one plus the period, and a thread whose next deadline has already passed when it
//! comes to wait does not sleep at all. A thread held up for several periods therefore runs
//! the missed periods back to back, as fast as it can, until it has caught up: the number of
//! runs always matches the time elapsed (`runs ≈ elapsed / period`), and the interval
//! between two runs can drop to the thread's own run time.
//!
//! Each wait that finds its deadline already passed is counted as an **overrun** (the
//! condition on which LinuxCNC prints "Unexpected realtime delay", once per session): a run
//! that starts `n` periods late is followed by about `n` overruns while the thread catches up,
//! one per period the hold-up cost.

use crate::Error;
use crate::clock::{Clock, TickScale, Timer};

/// One run of the thread.
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

/// Errors of a running schedule: the clock's or the timer's.
pub type PeriodicError<C, T> = Error<<C as Clock>::Error, <T as Timer>::Error>;

/// A periodic thread's schedule over a [`Clock`] and a [`Timer`], as LinuxCNC runs its
/// threads. No allocation; per run one or two clock reads and at most one sleep.
#[derive(Debug)]
pub struct Periodic<C, T> {
    clock: C,
    timer: T,
    scale: TickScale,
    period: u64,
    /// The next run's deadline (meaningful once `started`).
    next: u64,
    started: bool,
    runs: u64,
    overruns: u64,
}

impl<C: Clock, T: Timer> Periodic<C, T> {
    /// A schedule of period `period_ns` over `clock` and `timer`. Error for a zero period, a
    /// zero clock rate, or a period shorter than one clock tick.
    pub fn new(clock: C, timer: T, period_ns: u64) -> Result<Self, Error> {
        if period_ns == 0 {
            return Err(Error::ZeroInterval("period"));
        }
        let scale = TickScale::new(clock.rate_hz())?;
        let period = scale.from_ns(period_ns);
        if period == 0 {
            return Err(Error::ZeroInterval("period in clock ticks"));
        }
        Ok(Periodic {
            clock,
            timer,
            scale,
            period,
            next: 0,
            started: false,
            runs: 0,
            overruns: 0,
        })
    }

    /// Fixes the first deadline one period from now (as LinuxCNC does when a thread starts).
    /// Called by the first [`wait`](Self::wait) if not called before.
    pub fn start(&mut self) -> Result<(), PeriodicError<C, T>> {
        let now = self.clock.now().map_err(Error::Clock)?;
        self.start_at(now.saturating_add(self.period));
        Ok(())
    }

    /// Fixes the first deadline at `deadline` ticks.
    pub fn start_at(&mut self, deadline: u64) {
        self.next = deadline;
        self.started = true;
    }

    /// Waits for the next run's deadline and returns the run: sleeps to the deadline, or,
    /// when it has already passed, returns at once (an overrun). The deadline after it is
    /// always this one plus the period.
    #[inline]
    pub fn wait(&mut self) -> Result<Run, PeriodicError<C, T>> {
        if !self.started {
            self.start()?;
        }
        let deadline = self.next;
        let mut now = self.clock.now().map_err(Error::Clock)?;
        // LinuxCNC sleeps unless the deadline is strictly in the past.
        let overrun = now > deadline;
        if !overrun {
            self.timer.sleep_until(deadline).map_err(Error::Timer)?;
            now = self.clock.now().map_err(Error::Clock)?;
        }
        self.next = deadline.saturating_add(self.period);
        let run = Run {
            index: self.runs,
            deadline_ticks: deadline,
            start_ticks: now,
            lateness_ns: self.scale.to_ns_signed(now.wrapping_sub(deadline) as i64),
            overrun,
        };
        self.runs += 1;
        self.overruns += u64::from(overrun);
        Ok(run)
    }

    /// Runs so far.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    /// Runs so far whose deadline had passed before the thread came to wait for it.
    pub fn overruns(&self) -> u64 {
        self.overruns
    }

    /// The period in clock ticks.
    pub fn period_ticks(&self) -> u64 {
        self.period
    }

    /// The next run's deadline in clock ticks, once started.
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
