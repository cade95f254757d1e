//! The jitter monitor: for code that already runs periodically (a servo loop, a timer
//! interrupt), call [`JitterMonitor::tick`] with the time at the top of each period.
//!
//! It measures two things:
//! - **interval jitter**, LinuxCNC's definition: each interval between consecutive ticks
//!   minus the period; the report's max jitter is
//!   `max(max_interval − period, period − min_interval)`;
//! - **lateness** against the ideal schedule `first + k·period`, signed, with periods
//!   missed entirely counted as overruns (the schedule skips them, like the cycle engine).

#[cfg(feature = "critical-section")]
mod shared;
#[cfg(feature = "critical-section")]
pub use shared::SharedJitterMonitor;

use crate::stats::{Record, Summary};
use core::num::NonZeroU64;

/// What one tick measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    /// Time since the previous tick, ns (`None` for the first tick).
    pub interval_ns: Option<u64>,
    /// Interval minus period, ns (`None` for the first tick).
    pub jitter_ns: Option<i64>,
    /// This tick minus its deadline on the ideal schedule, ns (0 for the first tick).
    pub lateness_ns: i64,
    /// Periods missed entirely before this tick.
    pub overruns: u64,
}

/// A summary of everything the monitor saw; `Copy`, so it can leave an interrupt's
/// critical section by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitterReport {
    /// The nominal period, ns.
    pub period_ns: u64,
    /// Ticks seen.
    pub ticks: u64,
    /// Shortest interval between ticks, ns.
    pub min_interval_ns: Option<u64>,
    /// Longest interval between ticks, ns.
    pub max_interval_ns: Option<u64>,
    /// `max(max_interval − period, period − min_interval)`, ns: LinuxCNC's "max jitter".
    pub max_jitter_ns: Option<u64>,
    /// Lateness against the ideal schedule: count, min, max, sum.
    pub lateness: Summary,
    /// Periods missed entirely.
    pub overruns: u64,
}

/// Measures interval jitter and lateness of a periodic activity. Integer arithmetic only;
/// one division, on the rare path where a period was missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitterMonitor {
    period: NonZeroU64,
    previous: Option<u64>,
    deadline: u64,
    ticks: u64,
    min_interval: u64,
    max_interval: u64,
    lateness: Summary,
    overruns: u64,
}

impl JitterMonitor {
    /// A monitor for activity with period `period_ns`.
    pub const fn new(period_ns: NonZeroU64) -> Self {
        JitterMonitor {
            period: period_ns,
            previous: None,
            deadline: 0,
            ticks: 0,
            min_interval: u64::MAX,
            max_interval: 0,
            lateness: Summary::new(),
            overruns: 0,
        }
    }

    /// Records a tick at `now_ns` (any monotonic nanosecond clock). The first tick fixes
    /// the schedule.
    #[inline]
    pub fn tick(&mut self, now_ns: u64) -> Tick {
        let period = self.period.get();
        self.ticks += 1;
        let Some(previous) = self.previous.replace(now_ns) else {
            self.deadline = now_ns;
            self.lateness.record(0);
            return Tick {
                interval_ns: None,
                jitter_ns: None,
                lateness_ns: 0,
                overruns: 0,
            };
        };
        let interval = now_ns.saturating_sub(previous);
        self.min_interval = self.min_interval.min(interval);
        self.max_interval = self.max_interval.max(interval);

        let mut deadline = self.deadline.saturating_add(period);
        let mut late = now_ns.wrapping_sub(deadline) as i64;
        let mut skipped = 0;
        if late > period as i64 {
            skipped = (late as u64 - 1) / period;
            deadline += skipped * period;
            late -= (skipped * period) as i64;
            self.overruns += skipped;
        }
        self.deadline = deadline;
        self.lateness.record(late);
        Tick {
            interval_ns: Some(interval),
            jitter_ns: Some(interval as i64 - period as i64),
            lateness_ns: late,
            overruns: skipped,
        }
    }

    /// Records a tick and feeds its lateness to `recorder` (a histogram, say).
    #[inline]
    pub fn tick_into<R: Record>(&mut self, now_ns: u64, recorder: &mut R) -> Tick {
        let tick = self.tick(now_ns);
        recorder.record(tick.lateness_ns);
        tick
    }

    /// The nominal period, ns.
    pub const fn period_ns(&self) -> u64 {
        self.period.get()
    }

    /// Everything measured so far.
    pub fn report(&self) -> JitterReport {
        let seen = self.ticks > 1;
        let (min, max, period) = (self.min_interval, self.max_interval, self.period.get());
        JitterReport {
            period_ns: period,
            ticks: self.ticks,
            min_interval_ns: seen.then_some(min),
            max_interval_ns: seen.then_some(max),
            max_jitter_ns: seen.then(|| max.saturating_sub(period).max(period.saturating_sub(min))),
            lateness: self.lateness,
            overruns: self.overruns,
        }
    }

    /// Starts over; the next tick fixes a new schedule.
    pub fn reset(&mut self) {
        *self = JitterMonitor::new(self.period);
    }
}
