//! A jitter monitor's report as report lines: cyclictest's `T:` line from its lateness, and
//! a `J:` line with LinuxCNC's interval figures.

use super::{CyclictestLine, template};
use crate::div64::div_u64;
use crate::jitter::{IntervalsNs, JitterReport, JitterSnapshot, LatenessNs};
use core::fmt;

impl CyclictestLine {
    /// The `T:` line of a [`JitterReport`] (its lateness as latency, µs), for code that has
    /// no thread id or priority (an interrupt handler): both show as 0, `I:` is the period
    /// in whole µs, `Act:` the latest lateness. Set the fields to show others.
    ///
    /// ```
    /// use core::num::NonZeroU64;
    /// use rtlat_core::{JitterMonitor, report::CyclictestLine};
    ///
    /// let mut m = JitterMonitor::new(NonZeroU64::new(1_000_000).unwrap());
    /// m.tick_at(1_012_000, 1_000_000);
    /// m.tick_at(2_019_500, 2_000_000);
    /// assert_eq!(CyclictestLine::from_jitter(0, &m.report()).to_string(),
    ///     "T: 0 (    0) P: 0 I:1000 C:      2 Min:     12 Act:   19 Avg:   15 Max:      19");
    /// ```
    pub fn from_jitter(thread: u32, report: &JitterReport) -> Self {
        let l = &report.lateness;
        CyclictestLine {
            thread,
            tid: 0,
            priority: 0,
            interval_us: div_u64(report.period_ns, 1000),
            cycles: report.ticks,
            min_ns: l.min().unwrap_or(0),
            act_ns: report.last_lateness_ns.unwrap_or(0),
            avg_ns: l.mean_truncated().unwrap_or(0),
            max_ns: l.max().unwrap_or(0),
            nanoseconds: false,
        }
    }

    /// [`from_jitter`](Self::from_jitter) of the snapshot's report, built with 64-bit integers
    /// only ([`JitterSnapshot::lateness_ns`]): the line a microcontroller prints without
    /// linking 128-bit arithmetic. Equal to `from_jitter(thread, &snapshot.report())`.
    pub fn from_snapshot(thread: u32, snapshot: &JitterSnapshot) -> Self {
        Self::from_figures(
            thread,
            snapshot.period_ns(),
            snapshot.ticks,
            snapshot.lateness_ns(),
        )
    }

    /// The line of a snapshot's figures already in ns (period, ticks, lateness).
    #[inline(always)]
    pub(crate) fn from_figures(
        thread: u32,
        period_ns: u64,
        ticks: u64,
        lateness: Option<LatenessNs>,
    ) -> Self {
        let l = lateness;
        CyclictestLine {
            thread,
            tid: 0,
            priority: 0,
            interval_us: div_u64(period_ns, 1000),
            cycles: ticks,
            min_ns: l.map_or(0, |l| l.min),
            act_ns: l.map_or(0, |l| l.last),
            avg_ns: l.map_or(0, |l| l.mean),
            max_ns: l.map_or(0, |l| l.max),
            nanoseconds: false,
        }
    }
}

/// The interval figures of a [`JitterReport`] on one line, beside its `T:` line:
/// `J: 0 I:1000 C: 125668 MinI:   999850 MaxI:  1000150 Jitter:      150 Overruns:      0`
/// (`J:%2u I:%lu C:%7lu MinI:%9lu MaxI:%9lu Jitter:%9lu Overruns:%7lu`): `I:` is the period
/// in µs as in the `T:` line; the shortest and longest interval and LinuxCNC's max jitter,
/// `max(MaxI − period, period − MinI)`, are in ns (0 before two ticks). No newline.
///
/// ```
/// use core::num::NonZeroU64;
/// use rtlat_core::{SharedJitterMonitor, report::JitterLine};
///
/// static SERVO: SharedJitterMonitor = SharedJitterMonitor::new(NonZeroU64::new(1_000_000).unwrap());
/// SERVO.tick(0);
/// SERVO.tick(999_850);
/// SERVO.tick(2_000_000);
/// assert_eq!(JitterLine::from_report(0, &SERVO.report()).to_string(),
///     "J: 0 I:1000 C:      3 MinI:   999850 MaxI:  1000150 Jitter:      150 Overruns:      0");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitterLine {
    /// Loop number (0-based), as the `T:` line's thread.
    pub thread: u32,
    /// Period in µs.
    pub interval_us: u64,
    /// Ticks seen.
    pub ticks: u64,
    /// Shortest interval, ns.
    pub min_interval_ns: u64,
    /// Longest interval, ns.
    pub max_interval_ns: u64,
    /// LinuxCNC's max jitter, ns.
    pub max_jitter_ns: u64,
    /// Deadlines already passed when a tick came.
    pub overruns: u64,
}

impl JitterLine {
    /// The line of `report`.
    pub fn from_report(thread: u32, report: &JitterReport) -> Self {
        JitterLine {
            thread,
            interval_us: div_u64(report.period_ns, 1000),
            ticks: report.ticks,
            min_interval_ns: report.min_interval_ns.unwrap_or(0),
            max_interval_ns: report.max_interval_ns.unwrap_or(0),
            max_jitter_ns: report.max_jitter_ns.unwrap_or(0),
            overruns: report.overruns,
        }
    }

    /// The line of a snapshot, as [`from_report`](Self::from_report) of its report, with
    /// 64-bit integers only.
    pub fn from_snapshot(thread: u32, snapshot: &JitterSnapshot) -> Self {
        Self::from_figures(
            thread,
            snapshot.period_ns(),
            snapshot,
            snapshot.intervals_ns(),
        )
    }

    /// The line of a snapshot's counts and its interval figures already in ns.
    #[inline(always)]
    pub(crate) fn from_figures(
        thread: u32,
        period_ns: u64,
        snapshot: &JitterSnapshot,
        intervals: Option<IntervalsNs>,
    ) -> Self {
        let i = intervals;
        JitterLine {
            thread,
            interval_us: div_u64(period_ns, 1000),
            ticks: snapshot.ticks,
            min_interval_ns: i.map_or(0, |i| i.min),
            max_interval_ns: i.map_or(0, |i| i.max),
            max_jitter_ns: i.map_or(0, |i| i.max_jitter),
            overruns: snapshot.overruns,
        }
    }
}

impl fmt::Display for JitterLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One template, as `CyclictestLine`'s.
        const LINE: &[u8] = b"J:\x82 I:\x80 C:\x87 MinI:\x89 MaxI:\x89 Jitter:\x89 Overruns:\x87";
        let figures = [
            u64::from(self.thread),
            self.interval_us,
            self.ticks,
            self.min_interval_ns,
            self.max_interval_ns,
            self.max_jitter_ns,
            self.overruns,
        ];
        template::write(f, LINE, &figures, true)
    }
}
