//! A jitter monitor's `T:` and `J:` lines together, kept as one array of figures and written
//! by one template: the smallest report path for a microcontroller (no line structures to
//! fill and copy, one call to write both lines).

use super::{CyclictestLine, JitterLine, template};
use crate::jitter::{IntervalsNs, JitterSnapshot, LatenessNs};
use core::fmt;

/// Where each figure is (the `T:` line's, then the `J:` line's, in their templates' order;
/// the `T:` line's thread id and priority are 0, written as text).
const T_THREAD: usize = 0;
const J_THREAD: usize = 7;

/// The `T:` and `J:` lines of a monitor's figures ([`CyclictestLine`] and [`JitterLine`]),
/// displayed as the `T:` line, a newline and the `J:` line, byte for byte as the two lines'
/// own `Display` (built by [`SharedJitterMonitor32::lines`](crate::jitter::SharedJitterMonitor32::lines)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitterLines {
    /// The figures as the template takes them (signed ones as their bits).
    figures: [u64; 14],
    /// Show the `T:` line's latencies in nanoseconds (cyclictest `-N`) instead of µs.
    pub nanoseconds: bool,
}

impl JitterLines {
    /// The lines of a window: its period (ns), tick count, overruns, and figures in ns.
    #[inline(always)]
    pub(crate) fn new(
        thread: u32,
        period_ns: u64,
        ticks: u64,
        overruns: u64,
        lateness: Option<LatenessNs>,
        intervals: Option<IntervalsNs>,
    ) -> Self {
        let interval_us = crate::div64::div_u64(period_ns, 1000);
        let l = lateness;
        let i = intervals;
        let thread = u64::from(thread);
        JitterLines {
            figures: [
                thread,
                interval_us,
                ticks,
                l.map_or(0, |l| l.min) as u64,
                l.map_or(0, |l| l.last) as u64,
                l.map_or(0, |l| l.mean) as u64,
                l.map_or(0, |l| l.max) as u64,
                thread,
                interval_us,
                ticks,
                i.map_or(0, |i| i.min),
                i.map_or(0, |i| i.max),
                i.map_or(0, |i| i.max_jitter),
                overruns,
            ],
            nanoseconds: false,
        }
    }

    /// The lines of a snapshot: [`CyclictestLine::from_snapshot`] and
    /// [`JitterLine::from_snapshot`] together.
    pub fn from_snapshot(thread: u32, snapshot: &JitterSnapshot) -> Self {
        Self::new(
            thread,
            snapshot.period_ns(),
            snapshot.ticks,
            snapshot.overruns,
            snapshot.lateness_ns(),
            snapshot.intervals_ns(),
        )
    }

    /// The `T:` line.
    pub fn cyclictest(&self) -> CyclictestLine {
        let f = &self.figures;
        CyclictestLine {
            thread: f[T_THREAD] as u32,
            tid: 0,
            priority: 0,
            interval_us: f[1],
            cycles: f[2],
            min_ns: f[3] as i64,
            act_ns: f[4] as i64,
            avg_ns: f[5] as i64,
            max_ns: f[6] as i64,
            nanoseconds: self.nanoseconds,
        }
    }

    /// The `J:` line.
    pub fn jitter(&self) -> JitterLine {
        let f = &self.figures;
        JitterLine {
            thread: f[J_THREAD] as u32,
            interval_us: f[8],
            ticks: f[9],
            min_interval_ns: f[10],
            max_interval_ns: f[11],
            max_jitter_ns: f[12],
            overruns: f[13],
        }
    }
}

impl fmt::Display for JitterLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Both lines' templates (`CyclictestLine`'s and `JitterLine`'s) with a newline between;
        // thread id and priority are always 0 here, so they are text.
        const LINES: &[u8] =
            b"T:\x82 (    0) P: 0 I:\x80 C:\x87 Min:\xb7 Act:\xbf Avg:\xbf Max:\xb8\n\
            J:\x82 I:\x80 C:\x87 MinI:\x89 MaxI:\x89 Jitter:\x89 Overruns:\x87";
        template::write(f, LINES, &self.figures, self.nanoseconds)
    }
}
