//! What a monitor accumulates, in clock ticks, and the one function that moves it on by a
//! tick: shared by the plain [`JitterMonitor`](super::JitterMonitor) and the lock-free
//! [`SharedJitterMonitor`](super::SharedJitterMonitor), so both measure the same way.

use super::Tick;

/// The writer's schedule: what the next tick is measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Whether a tick was seen (then `previous` and `deadline` mean something).
    pub started: bool,
    /// The previous tick's time.
    pub previous: u64,
    /// The previous tick's deadline (the caller's, or the monitor's own schedule's).
    pub deadline: u64,
    /// The latest deadline already counted as missed: a loop catching up after a stall
    /// passes deadlines it was already charged for, and they are not counted twice.
    pub counted_until: u64,
}

impl Schedule {
    pub const fn new() -> Self {
        Schedule {
            started: false,
            previous: 0,
            deadline: 0,
            counted_until: 0,
        }
    }
}

/// Figures over a window of ticks, in ticks. All zero is the empty window (counts tell
/// whether the extremes mean anything), so a monitor's windows start in `.bss`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Window {
    pub ticks: u64,
    /// Intervals measured: ticks that had a tick before them.
    pub intervals: u64,
    pub min_interval: u64,
    pub max_interval: u64,
    /// Ticks with a lateness (all but a first [`tick`](super::JitterMonitor::tick)).
    pub late_count: u64,
    pub late_min: i64,
    pub late_max: i64,
    /// Wrapping sum of lateness.
    pub late_sum: i64,
    /// The latest lateness.
    pub late_last: i64,
    pub overruns: u64,
}

impl Window {
    pub const fn new() -> Self {
        Window {
            ticks: 0,
            intervals: 0,
            min_interval: 0,
            max_interval: 0,
            late_count: 0,
            late_min: 0,
            late_max: 0,
            late_sum: 0,
            late_last: 0,
            overruns: 0,
        }
    }
}

/// Records a tick at `now` against `deadline` (the caller's), or against the schedule's
/// own next deadline when `None`: the first tick fixes it, and a tick more than a period
/// late skips the deadlines already passed.
#[inline(always)]
pub(crate) fn advance(
    schedule: &mut Schedule,
    window: &mut Window,
    period: u64,
    now: u64,
    deadline: Option<u64>,
) -> Tick {
    window.ticks = window.ticks.wrapping_add(1);
    let mut tick = Tick {
        interval: None,
        jitter: None,
        lateness: None,
        overruns: 0,
    };
    if schedule.started {
        let interval = now.wrapping_sub(schedule.previous);
        if window.intervals == 0 {
            (window.min_interval, window.max_interval) = (interval, interval);
        } else {
            window.min_interval = window.min_interval.min(interval);
            window.max_interval = window.max_interval.max(interval);
        }
        window.intervals = window.intervals.wrapping_add(1);
        tick.interval = Some(interval);
        tick.jitter = Some((interval as i64).wrapping_sub(period as i64));
    }
    schedule.previous = now;
    let (own, mut deadline) = match deadline {
        Some(d) => (false, d),
        None if schedule.started => (true, schedule.deadline.wrapping_add(period)),
        None => {
            // The first tick without a deadline has no lateness: it fixes the schedule.
            schedule.started = true;
            schedule.deadline = now;
            return tick;
        }
    };
    schedule.started = true;
    let mut late = now.wrapping_sub(deadline) as i64;
    if late > period as i64 {
        let (missed, passed) = missed(schedule, period, deadline, late as u64);
        tick.overruns = missed;
        window.overruns = window.overruns.wrapping_add(missed);
        if own {
            // The monitor's own schedule skips what passed, as the cycle engine does.
            deadline = deadline.wrapping_add(passed * period);
            late -= (passed * period) as i64;
        }
    }
    schedule.deadline = deadline;
    if window.late_count == 0 {
        (window.late_min, window.late_max) = (late, late);
    } else {
        window.late_min = window.late_min.min(late);
        window.late_max = window.late_max.max(late);
    }
    window.late_count = window.late_count.wrapping_add(1);
    window.late_sum = window.late_sum.wrapping_add(late);
    window.late_last = late;
    tick.lateness = Some(late);
    tick
}

/// A tick `late` (more than a period) after `deadline`: the later deadlines it let pass
/// (`passed`), and how many of them no earlier tick was charged for (`missed`). The rare
/// path divides, out of line.
#[cold]
#[inline(never)]
fn missed(schedule: &mut Schedule, period: u64, deadline: u64, late: u64) -> (u64, u64) {
    let passed = (late - 1) / period;
    let charged = if schedule.counted_until > deadline {
        ((schedule.counted_until - deadline) / period).min(passed)
    } else {
        0
    };
    let last = deadline.wrapping_add(passed * period);
    if last > schedule.counted_until {
        schedule.counted_until = last;
    }
    (passed - charged, passed)
}
