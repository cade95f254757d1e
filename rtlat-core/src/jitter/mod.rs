//! The jitter monitor: for code that already runs periodically (a servo loop, a timer
//! interrupt), call [`JitterMonitor::tick_at`] with the time at the top of each period and
//! the deadline the code was aiming at, or [`JitterMonitor::tick`] with the time alone.
//!
//! It measures two things:
//! - **interval jitter**, LinuxCNC's definition: each interval between consecutive ticks
//!   minus the period; the report's max jitter is
//!   `max(max_interval − period, period − min_interval)`;
//! - **lateness**, signed: each tick minus its deadline. With `tick_at` the deadline is the
//!   caller's, so the figures are right for a loop that catches up after a stall (runs the
//!   missed periods back to back, as LinuxCNC and a hardware timer's compare register do) as
//!   well as for one that skips them. `tick` has no deadline: the first tick fixes the
//!   schedule `first + k·period` (and has no lateness), and a tick more than a period late
//!   skips the deadlines already passed, which is only right for a loop that skips them too.
//!
//! **Overruns** are deadlines that had already passed when a tick came: a tick more than
//! `n` periods late counts `n`, once (a loop catching up passes the same deadlines again
//! and is not charged twice).
//!
//! **Ticks in, ns out**: a monitor counts in the ticks of whatever clock the caller reads (a
//! cycle counter, a 24-bit timer extended by [`CounterExtender`](crate::CounterExtender),
//! nanoseconds); [`JitterMonitor::with_scale`] takes the period in those ticks and the
//! [`TickScale`] that turns them into nanoseconds when a report is made, never per tick.
//! [`JitterMonitor::new`] is the nanosecond case.
//!
//! [`SharedJitterMonitor`] is the same monitor for a `static` that an interrupt handler or
//! a real-time thread ticks while others read it, lock-free; [`SharedJitterMonitor32`] is
//! that monitor for a 32-bit counter read raw on a 32-bit core (32-bit words, a few dozen
//! instructions per tick).
//!
//! **Reports on a microcontroller.** [`JitterSnapshot::report`] builds a [`Summary`] (128-bit
//! sums); [`JitterSnapshot::lateness_ns`], [`JitterSnapshot::intervals_ns`] and the report
//! lines' `from_snapshot` give the same figures with 64-bit integers only, each tick count
//! converted by one out-of-line multiply-shift and no 64-bit division routine linked.

mod counter32;
mod shared;
mod switch;
mod window;

pub use counter32::SharedJitterMonitor32;
pub use shared::SharedJitterMonitor;

use crate::clock::TickScale;
use crate::div64::div_i64;
use crate::stats::{Record, Summary};
use core::num::NonZeroU64;
use window::{Schedule, Window, advance};

/// What one tick measured, in the monitor's clock ticks (nanoseconds for a monitor made
/// with [`JitterMonitor::new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    /// Time since the previous tick (`None` for the first tick).
    pub interval: Option<u64>,
    /// Interval minus period (`None` for the first tick).
    pub jitter: Option<i64>,
    /// This tick minus its deadline (`None` for a first tick without a deadline).
    pub lateness: Option<i64>,
    /// Deadlines this tick found already passed that no earlier tick was charged for.
    pub overruns: u64,
}

/// A summary of everything the monitor saw, in nanoseconds; `Copy`.
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
    /// Lateness against the deadlines: count, min, max, sum (ns).
    pub lateness: Summary,
    /// The latest tick's lateness, ns (cyclictest's `Act:`).
    pub last_lateness_ns: Option<i64>,
    /// Deadlines already passed when a tick came.
    pub overruns: u64,
}

/// A monitor's figures as counted, in clock ticks: what a reader copies out (cheaply, and
/// consistently for a [`SharedJitterMonitor`]); [`report`](Self::report) converts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitterSnapshot {
    /// The nominal period, ticks.
    pub period: u64,
    /// Ticks to nanoseconds.
    pub scale: TickScale,
    /// Ticks seen.
    pub ticks: u64,
    /// Shortest and longest interval between ticks, ticks.
    pub interval: Option<(u64, u64)>,
    /// Ticks with a lateness (every tick but a first [`JitterMonitor::tick`]).
    pub lateness_count: u64,
    /// Smallest and largest lateness, ticks.
    pub lateness: Option<(i64, i64)>,
    /// Sum of lateness, ticks (wrapping: exact below 2^63 ticks of summed lateness).
    pub lateness_sum: i64,
    /// The latest lateness, ticks.
    pub last_lateness: Option<i64>,
    /// Deadlines already passed when a tick came.
    pub overruns: u64,
}

impl JitterSnapshot {
    fn of(window: &Window, period: u64, scale: TickScale) -> Self {
        let late = window.late_count > 0;
        JitterSnapshot {
            period,
            scale,
            ticks: window.ticks,
            interval: (window.intervals > 0).then_some((window.min_interval, window.max_interval)),
            lateness_count: window.late_count,
            lateness: late.then_some((window.late_min, window.late_max)),
            lateness_sum: window.late_sum,
            last_lateness: late.then_some(window.late_last),
            overruns: window.overruns,
        }
    }

    /// The largest interval jitter, ticks: `max(max_interval − period, period − min_interval)`.
    pub fn max_jitter(&self) -> Option<u64> {
        let p = self.period;
        self.interval
            .map(|(min, max)| max.saturating_sub(p).max(p.saturating_sub(min)))
    }

    /// The figures in nanoseconds.
    pub fn report(&self) -> JitterReport {
        let s = &self.scale;
        let lateness = match self.lateness {
            None => Summary::new(),
            Some((min, max)) => summary_of(
                self.lateness_count,
                ns_signed(s, min),
                ns_signed(s, max),
                ns_signed(s, self.lateness_sum),
            ),
        };
        let intervals = self.intervals_ns();
        JitterReport {
            period_ns: self.period_ns(),
            ticks: self.ticks,
            min_interval_ns: intervals.map(|i| i.min),
            max_interval_ns: intervals.map(|i| i.max),
            max_jitter_ns: intervals.map(|i| i.max_jitter),
            lateness,
            last_lateness_ns: self.last_lateness.map(|l| ns_signed(s, l)),
            overruns: self.overruns,
        }
    }

    /// The nominal period, ns.
    pub fn period_ns(&self) -> u64 {
        ns(&self.scale, self.period)
    }

    /// The interval figures in ns; `None` before two ticks.
    pub fn intervals_ns(&self) -> Option<IntervalsNs> {
        let s = self.scale;
        self.intervals_ns_by(|ticks| ns(&s, ticks))
    }

    /// [`intervals_ns`](Self::intervals_ns), converting with `ns` (the same conversion as the
    /// snapshot's scale, e.g. a monitor's constant one, which the compiler can fold).
    #[inline(always)]
    pub(crate) fn intervals_ns_by(&self, ns: impl Fn(u64) -> u64) -> Option<IntervalsNs> {
        let (min, max) = self.interval?;
        let jitter = self.max_jitter()?;
        Some(IntervalsNs {
            min: ns(min),
            max: ns(max),
            max_jitter: ns(jitter),
        })
    }

    /// The lateness figures in ns, with 64-bit integers only (no [`Summary`]); `None` before
    /// a tick with a lateness. The mean is the converted sum over the count, truncated
    /// toward zero, as [`Summary::mean_truncated`] of [`report`](Self::report)'s lateness.
    pub fn lateness_ns(&self) -> Option<LatenessNs> {
        let s = self.scale;
        self.lateness_ns_by(|ticks| ns_signed(&s, ticks))
    }

    /// [`lateness_ns`](Self::lateness_ns), converting with `signed` (as
    /// [`signed_ns`], with the same conversion as the snapshot's scale).
    #[inline(always)]
    pub(crate) fn lateness_ns_by(&self, signed: impl Fn(i64) -> i64) -> Option<LatenessNs> {
        let (min, max) = self.lateness?;
        Some(LatenessNs {
            min: signed(min),
            max: signed(max),
            mean: div_i64(signed(self.lateness_sum), self.lateness_count),
            last: signed(self.last_lateness.unwrap_or(0)),
        })
    }
}

/// A snapshot's interval figures, ns ([`JitterSnapshot::intervals_ns`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalsNs {
    /// The shortest interval.
    pub min: u64,
    /// The longest interval.
    pub max: u64,
    /// LinuxCNC's max jitter, `max(max − period, period − min)`.
    pub max_jitter: u64,
}

/// A snapshot's lateness figures, ns ([`JitterSnapshot::lateness_ns`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LatenessNs {
    /// The smallest lateness.
    pub min: i64,
    /// The mean, truncated toward zero.
    pub mean: i64,
    /// The largest lateness.
    pub max: i64,
    /// The latest lateness.
    pub last: i64,
}

/// `ticks` in ns: the scale's 64×64→128-bit multiply-shift, out of line so that a report
/// holds one copy of it (several KiB on a 32-bit core when inlined at every figure).
#[inline(never)]
fn ns(scale: &TickScale, ticks: u64) -> u64 {
    scale.to_ns(ticks)
}

/// Signed `ticks` in ns, as [`TickScale::to_ns_signed`], through [`ns`].
#[inline(never)]
fn ns_signed(scale: &TickScale, ticks: i64) -> i64 {
    signed_ns(|ticks| ns(scale, ticks), ticks)
}

/// Signed `ticks` in ns with `ns` converting the magnitude (saturating at `i64::MAX`).
#[inline(always)]
pub(crate) fn signed_ns(ns: impl Fn(u64) -> u64, ticks: i64) -> i64 {
    let magnitude = ns(ticks.unsigned_abs()).min(i64::MAX as u64) as i64;
    if ticks < 0 { -magnitude } else { magnitude }
}

/// A [`Summary`] of `count` values with these extremes and (as near as the extremes allow)
/// this sum, through `Summary`'s public recording API.
fn summary_of(count: u64, min: i64, max: i64, sum: i64) -> Summary {
    let mut summary = Summary::new();
    summary.record_n(min, 1);
    if count >= 2 {
        summary.record_n(max, 1);
        let rest = count - 2;
        if rest > 0 {
            let n = i128::from(rest);
            let sum = (i128::from(sum) - i128::from(min) - i128::from(max))
                .clamp(n * i128::from(min), n * i128::from(max));
            // `rest` values whose sum is `sum`: its floor mean, and one more for the remainder.
            let (mean, extra) = (sum.div_euclid(n), sum.rem_euclid(n) as u64);
            summary.record_n(mean as i64, rest - extra);
            summary.record_n(mean as i64 + 1, extra);
        }
    }
    summary
}

/// Measures interval jitter and lateness of a periodic activity, in clock ticks. Integer
/// arithmetic only; one division, on the rare path where a tick is more than a period late.
///
/// ```
/// use core::num::NonZeroU64;
/// use rtlat_core::{JitterMonitor, TickScale};
///
/// // A 1 kHz interrupt timed by a 25 MHz counter; the report is in ns.
/// const SCALE: TickScale = TickScale::from_hz(NonZeroU64::new(25_000_000).unwrap());
/// let mut servo = JitterMonitor::with_scale(NonZeroU64::new(25_000).unwrap(), SCALE);
/// for (now, deadline) in [(25_010, 25_000), (50_005, 50_000), (75_040, 75_000)] {
///     servo.tick_at(now, deadline);
/// }
/// let report = servo.report();
/// assert_eq!(report.lateness.max(), Some(1_600)); // 40 ticks = 1.6 µs
/// assert_eq!(report.max_jitter_ns, Some(1_400)); // 25 035 − 25 000 ticks
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JitterMonitor {
    period: NonZeroU64,
    scale: TickScale,
    schedule: Schedule,
    window: Window,
}

impl JitterMonitor {
    /// A monitor for activity with period `period_ns`, ticked with nanosecond times.
    pub const fn new(period_ns: NonZeroU64) -> Self {
        Self::with_scale(period_ns, TickScale::NANOS)
    }

    /// A monitor ticked with times from a clock of scale `scale`, for activity with period
    /// `period` in that clock's ticks.
    pub const fn with_scale(period: NonZeroU64, scale: TickScale) -> Self {
        JitterMonitor {
            period,
            scale,
            schedule: Schedule::new(),
            window: Window::new(),
        }
    }

    /// Records a tick at `now` that was due at `deadline` (both in the monitor's ticks):
    /// the lateness is `now − deadline`, whatever the loop does after a stall.
    #[inline]
    pub fn tick_at(&mut self, now: u64, deadline: u64) -> Tick {
        let period = self.period.get();
        advance(
            &mut self.schedule,
            &mut self.window,
            period,
            now,
            Some(deadline),
        )
    }

    /// Records a tick at `now` against the monitor's own schedule: the first tick fixes it
    /// (and has no lateness); a tick more than a period late skips the deadlines passed.
    /// For a loop that knows its deadline, [`tick_at`](Self::tick_at) is exact.
    #[inline]
    pub fn tick(&mut self, now: u64) -> Tick {
        let period = self.period.get();
        advance(&mut self.schedule, &mut self.window, period, now, None)
    }

    /// Records a tick and feeds its lateness (ticks) to `recorder` (a histogram, say);
    /// a first tick without lateness records nothing.
    #[inline]
    pub fn tick_into<R: Record>(&mut self, now: u64, recorder: &mut R) -> Tick {
        let tick = self.tick(now);
        if let Some(late) = tick.lateness {
            recorder.record(late);
        }
        tick
    }

    /// [`tick_at`](Self::tick_at), and feeds the lateness (ticks) to `recorder`.
    #[inline]
    pub fn tick_at_into<R: Record>(&mut self, now: u64, deadline: u64, recorder: &mut R) -> Tick {
        let tick = self.tick_at(now, deadline);
        if let Some(late) = tick.lateness {
            recorder.record(late);
        }
        tick
    }

    /// The nominal period, ns.
    pub const fn period_ns(&self) -> u64 {
        self.scale.to_ns(self.period.get())
    }

    /// The nominal period, ticks.
    pub const fn period(&self) -> NonZeroU64 {
        self.period
    }

    /// The tick-to-nanosecond conversion.
    pub const fn scale(&self) -> TickScale {
        self.scale
    }

    /// Everything measured so far (since the start or the last window reset), in ticks.
    pub fn snapshot(&self) -> JitterSnapshot {
        JitterSnapshot::of(&self.window, self.period.get(), self.scale)
    }

    /// Everything measured so far (since the start or the last window reset), in ns.
    pub fn report(&self) -> JitterReport {
        self.snapshot().report()
    }

    /// The report of the window that ends here, and a new window: the schedule goes on, so
    /// the next tick's interval and lateness count in the next window.
    pub fn report_and_reset(&mut self) -> JitterReport {
        let report = self.report();
        self.window = Window::new();
        report
    }

    /// Forgets the schedule, keeping the window's figures: the next tick is a first tick
    /// again (no interval; with [`tick`](Self::tick), no lateness), e.g. after the loop was
    /// stopped on purpose. Deadlines counted as overruns before are forgotten too.
    pub fn restart(&mut self) {
        self.schedule = Schedule::new();
    }

    /// Starts over; the next tick fixes a new schedule.
    pub fn reset(&mut self) {
        *self = JitterMonitor::with_scale(self.period, self.scale);
    }
}
