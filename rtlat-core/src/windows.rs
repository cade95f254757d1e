//! Per-second figures of a measuring thread, cut in the thread at almost no cost and handed
//! to a reader through a [`WindowRing`].
//!
//! Two ways to cut a run into seconds:
//!
//! - [`SecondWindows`] (`rtlat run`'s time series): wall-clock seconds aligned on the
//!   thread's start. Per cycle it compares the wake-up time with the end of the current
//!   second and updates the window's min and max (two compares); count, sum and overruns are
//!   not kept per window but taken, once per second, as the difference of the running totals
//!   the thread keeps anyway (its histogram's [`Summary`] and the engine's overrun count).
//!   Window `k` holds the cycles that woke in `[start + k s, start + (k+1) s)`, the start
//!   being the first deadline minus one interval; a stall longer than a second skips
//!   windows.
//! - [`SampleWindows`] (Xenomai `latency`'s "seconds"): not wall-clock seconds but
//!   `1e9 / period` wake-ups each ([`samples_per_second`], Xenomai's `nsamples`). A wake-up
//!   more than a period late is one sample and the deadlines it skipped are counted as
//!   overruns, so a second with overruns lasts longer than a second.
//!
//! When a window closes it goes into a [`WindowRing`] (a fixed single-producer
//! single-consumer [`Ring`]: relaxed stores and one release store, no waiting, no
//! allocation), which the reader drains.

use crate::cycle::Sample;
use crate::ring::{Ring, Slot};
use crate::stats::Summary;

/// Nanoseconds per second.
pub const SECOND_NS: u64 = 1_000_000_000;

/// One second (or, at the end of a run, the part of it measured) of one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Seconds since the thread's start: the window holds wake-ups in `[index, index+1)` s.
    pub index: u64,
    /// Cycles measured in it.
    pub cycles: u64,
    /// Smallest latency, ns (meaningless when `cycles == 0`).
    pub min_ns: i64,
    /// Largest latency, ns (meaningless when `cycles == 0`).
    pub max_ns: i64,
    /// Sum of the latencies, ns.
    pub sum_ns: i128,
    /// Deadlines skipped by its cycles.
    pub overruns: u64,
    /// False for the last window of a run, cut short by the end of the run.
    pub complete: bool,
}

impl Window {
    /// Mean latency, ns, truncated toward zero (Xenomai's integer average); `None` when empty.
    pub fn avg_ns(&self) -> Option<i64> {
        (self.cycles > 0).then(|| (self.sum_ns / i128::from(self.cycles)) as i64)
    }
}

/// Words per window in a [`WindowRing`]: index, cycles, min, max, sum (low and high halves),
/// overruns, complete. Eight words: one cache line per slot.
pub const WINDOW_WORDS: usize = 8;

/// A ring slot for one [`Window`].
pub type WindowSlot = Slot<WINDOW_WORDS>;

/// A single-producer single-consumer ring of closed windows over the storage `S`.
#[derive(Debug)]
pub struct WindowRing<S>(Ring<S, WINDOW_WORDS>);

impl<S: AsRef<[WindowSlot]>> WindowRing<S> {
    /// A ring over `slots`.
    pub const fn new(slots: S) -> Self {
        WindowRing(Ring::new(slots))
    }

    /// Adds a window (producer only: the measuring thread). Never waits: when the ring is
    /// full the window is counted as lost.
    pub fn push(&self, w: &Window) {
        let sum = w.sum_ns as u128;
        self.0.push([
            w.index,
            w.cycles,
            w.min_ns as u64,
            w.max_ns as u64,
            sum as u64,
            (sum >> 64) as u64,
            w.overruns,
            u64::from(w.complete),
        ]);
    }

    /// Takes every window pushed so far, oldest first (consumer only).
    pub fn drain(&self, mut each: impl FnMut(Window)) {
        self.0.drain(|word| {
            each(Window {
                index: word[0],
                cycles: word[1],
                min_ns: word[2] as i64,
                max_ns: word[3] as i64,
                sum_ns: (u128::from(word[4]) | (u128::from(word[5]) << 64)) as i128,
                overruns: word[6],
                complete: word[7] != 0,
            })
        });
    }

    /// Windows that did not fit (the reader did not drain for a long time).
    pub fn lost(&self) -> u64 {
        self.0.lost()
    }
}

/// The measuring thread's side of `rtlat run`'s time series: cuts the run into seconds.
///
/// Call [`record`](Self::record) after each cycle, with the running totals that already
/// include that cycle, and [`finish`](Self::finish) once after the loop.
#[derive(Debug, Clone)]
pub struct SecondWindows {
    origin: u64,
    second: u64,
    /// End of the current window, ticks.
    boundary: u64,
    index: u64,
    min: i64,
    max: i64,
    /// Running totals when the current window began.
    start_count: u64,
    start_sum: i128,
    start_overruns: u64,
}

impl SecondWindows {
    /// Windows of `ticks_per_second` clock ticks from `origin_ticks` (the thread's start).
    pub fn new(origin_ticks: u64, ticks_per_second: u64) -> Self {
        let second = ticks_per_second.max(1);
        SecondWindows {
            origin: origin_ticks,
            second,
            boundary: origin_ticks.saturating_add(second),
            index: 0,
            min: i64::MAX,
            max: i64::MIN,
            start_count: 0,
            start_sum: 0,
            start_overruns: 0,
        }
    }

    /// Accounts for `sample`. `totals` and `overruns` are the thread's running count/sum and
    /// overrun count, *including* `sample`. Per cycle: one compare against the end of the
    /// second, and the window's min and max; once per second, the window goes into `ring`.
    #[inline(always)]
    pub fn record<S: AsRef<[WindowSlot]>>(
        &mut self,
        sample: &Sample,
        totals: &Summary,
        overruns: u64,
        ring: &WindowRing<S>,
    ) {
        if sample.wake_ticks >= self.boundary {
            self.close(sample, totals, overruns, ring);
        }
        // A new extreme is rare (a few times per second), so it takes an out-of-line path
        // and the common cycle only loads and compares: no select, no store.
        let latency = sample.latency_ns;
        if latency < self.min {
            self.new_min(latency);
        }
        if latency > self.max {
            self.new_max(latency);
        }
    }

    #[cold]
    #[inline(never)]
    fn new_min(&mut self, latency: i64) {
        self.min = latency;
    }

    #[cold]
    #[inline(never)]
    fn new_max(&mut self, latency: i64) {
        self.max = latency;
    }

    /// Closes the current window (its totals are those before `sample`) and opens the one
    /// `sample` woke in.
    #[cold]
    #[inline(never)]
    fn close<S: AsRef<[WindowSlot]>>(
        &mut self,
        sample: &Sample,
        totals: &Summary,
        overruns: u64,
        ring: &WindowRing<S>,
    ) {
        let count = totals.count().wrapping_sub(1);
        let sum = totals.sum().wrapping_sub(i128::from(sample.latency_ns));
        let overruns = overruns.wrapping_sub(sample.overruns);
        self.push(count, sum, overruns, true, ring);
        // Usually the next second; after a stall, the one the wake-up fell in.
        let elapsed = sample.wake_ticks.saturating_sub(self.origin);
        self.index = elapsed / self.second;
        self.boundary = self
            .origin
            .saturating_add(self.index.saturating_add(1).saturating_mul(self.second));
    }

    fn push<S: AsRef<[WindowSlot]>>(
        &mut self,
        count: u64,
        sum: i128,
        overruns: u64,
        complete: bool,
        ring: &WindowRing<S>,
    ) {
        ring.push(&Window {
            index: self.index,
            cycles: count.wrapping_sub(self.start_count),
            min_ns: self.min,
            max_ns: self.max,
            sum_ns: sum.wrapping_sub(self.start_sum),
            overruns: overruns.wrapping_sub(self.start_overruns),
            complete,
        });
        self.start_count = count;
        self.start_sum = sum;
        self.start_overruns = overruns;
        self.min = i64::MAX;
        self.max = i64::MIN;
    }

    /// After the loop: pushes the last, partial window if it holds any cycle. `totals` and
    /// `overruns` are the final running totals.
    pub fn finish<S: AsRef<[WindowSlot]>>(
        &mut self,
        totals: &Summary,
        overruns: u64,
        ring: &WindowRing<S>,
    ) {
        if totals.count() > self.start_count {
            self.push(totals.count(), totals.sum(), overruns, false, ring);
        }
    }
}

/// Wake-ups in one of Xenomai's seconds at `period_ns` (at least 1).
pub fn samples_per_second(period_ns: u64) -> u64 {
    (SECOND_NS / period_ns.max(1)).max(1)
}

/// Cuts the run into windows of `nsamples` wake-ups (Xenomai `latency`'s seconds): window 0
/// is the warm-up second.
#[derive(Debug, Clone)]
pub struct SampleWindows {
    nsamples: u64,
    index: u64,
    count: u64,
    sum: i128,
    min: i64,
    max: i64,
    overruns: u64,
}

impl SampleWindows {
    /// Windows of `nsamples` wake-ups (at least 1).
    pub fn new(nsamples: u64) -> Self {
        SampleWindows {
            nsamples: nsamples.max(1),
            index: 0,
            count: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
            overruns: 0,
        }
    }

    /// The current window's index (0: the warm-up second).
    #[inline(always)]
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Accounts for `sample`; the window it completes goes into `ring`.
    #[inline(always)]
    pub fn record<S: AsRef<[WindowSlot]>>(&mut self, sample: &Sample, ring: &WindowRing<S>) {
        let latency = sample.latency_ns;
        self.count += 1;
        self.sum += i128::from(latency);
        self.overruns = self.overruns.saturating_add(sample.overruns);
        if latency < self.min {
            self.min = latency;
        }
        if latency > self.max {
            self.max = latency;
        }
        if self.count == self.nsamples {
            self.push(true, ring);
            self.index += 1;
        }
    }

    fn push<S: AsRef<[WindowSlot]>>(&mut self, complete: bool, ring: &WindowRing<S>) {
        ring.push(&Window {
            index: self.index,
            cycles: self.count,
            min_ns: self.min,
            max_ns: self.max,
            sum_ns: self.sum,
            overruns: self.overruns,
            complete,
        });
        self.count = 0;
        self.sum = 0;
        self.min = i64::MAX;
        self.max = i64::MIN;
        self.overruns = 0;
    }

    /// After the loop: pushes the window under way, if it holds any wake-up, as partial.
    pub fn finish<S: AsRef<[WindowSlot]>>(&mut self, ring: &WindowRing<S>) {
        if self.count > 0 {
            self.push(false, ring);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Record;

    type TestRing = WindowRing<Vec<WindowSlot>>;

    fn ring(capacity: usize) -> TestRing {
        WindowRing::new((0..capacity).map(|_| WindowSlot::new()).collect())
    }

    fn sample(cycle: u64, wake: u64, latency: i64, overruns: u64) -> Sample {
        Sample {
            cycle,
            latency_ns: latency,
            overruns,
            wake_ticks: wake,
        }
    }

    /// Feeds `(wake_ns, latency_ns, overruns)` through a window cutter as a thread would.
    fn cut(origin: u64, samples: &[(u64, i64, u64)]) -> Vec<Window> {
        let ring = ring(64);
        let mut windows = SecondWindows::new(origin, SECOND_NS);
        let mut totals = Summary::new();
        let mut overruns = 0;
        for (k, &(wake, latency, over)) in samples.iter().enumerate() {
            totals.record(latency);
            overruns += over;
            windows.record(
                &sample(k as u64, wake, latency, over),
                &totals,
                overruns,
                &ring,
            );
        }
        windows.finish(&totals, overruns, &ring);
        let mut out = Vec::new();
        ring.drain(|w| out.push(w));
        out
    }

    #[test]
    fn windows_split_at_each_second_and_keep_every_cycle() {
        let s = SECOND_NS;
        let origin = 5 * s;
        let windows = cut(
            origin,
            &[
                (origin + 1, 10, 0),
                (origin + s / 2, -3, 0),
                (origin + s, 7, 2), // first of second 1
                (origin + s + 5, 20, 0),
                (origin + 2 * s + 1, 4, 0), // second 2, cut short
            ],
        );
        assert_eq!(windows.len(), 3);
        assert_eq!(
            windows[0],
            Window {
                index: 0,
                cycles: 2,
                min_ns: -3,
                max_ns: 10,
                sum_ns: 7,
                overruns: 0,
                complete: true
            }
        );
        assert_eq!(
            (
                windows[1].index,
                windows[1].cycles,
                windows[1].min_ns,
                windows[1].max_ns
            ),
            (1, 2, 7, 20)
        );
        assert_eq!((windows[1].sum_ns, windows[1].overruns), (27, 2));
        assert!(windows[1].complete);
        assert_eq!((windows[2].index, windows[2].cycles), (2, 1));
        assert!(!windows[2].complete, "the last window is partial");
        assert_eq!(windows[1].avg_ns(), Some(13));
    }

    #[test]
    fn a_stall_skips_windows() {
        let s = SECOND_NS;
        let windows = cut(0, &[(10, 1, 0), (s + 1, 2, 0), (4 * s + 7, 9, 3500)]);
        let indices: Vec<u64> = windows.iter().map(|w| w.index).collect();
        assert_eq!(indices, vec![0, 1, 4]);
        assert_eq!(windows[2].overruns, 3500);
    }

    #[test]
    fn the_ring_counts_what_does_not_fit_and_keeps_order() {
        let ring = ring(2);
        for index in 0..3 {
            ring.push(&Window {
                index,
                cycles: index,
                min_ns: -(index as i64),
                max_ns: i64::MAX,
                sum_ns: -(1i128 << 100),
                overruns: 0,
                complete: index == 1,
            });
        }
        let mut got = Vec::new();
        ring.drain(|w| got.push(w));
        assert_eq!(got.len(), 2);
        assert_eq!(ring.lost(), 1);
        assert_eq!(got[1].min_ns, -1);
        assert_eq!(
            got[1].sum_ns,
            -(1i128 << 100),
            "the i128 sum survives the ring"
        );
        assert!(got[1].complete && !got[0].complete);
    }

    #[test]
    fn a_second_is_nsamples_wake_ups_whatever_the_overruns() {
        assert_eq!(samples_per_second(100_000), 10_000);
        assert_eq!(samples_per_second(300_000), 3333);
        assert_eq!(samples_per_second(1_000_000_000), 1);
        let ring = ring(8);
        let mut s = SampleWindows::new(3);
        let at = |latency_ns, overruns| sample(0, 0, latency_ns, overruns);
        // Warm-up: three wake-ups, one of them two periods late.
        for (l, o) in [(5, 0), (2_500, 2), (7, 0)] {
            s.record(&at(l, o), &ring);
        }
        assert_eq!(s.index(), 1);
        for (l, o) in [(-4, 0), (10, 0), (9, 0), (1, 1)] {
            s.record(&at(l, o), &ring);
        }
        s.finish(&ring);
        let mut windows = Vec::new();
        ring.drain(|w| windows.push(w));
        let brief: Vec<_> = windows
            .iter()
            .map(|w| {
                (
                    w.index, w.cycles, w.min_ns, w.max_ns, w.overruns, w.complete,
                )
            })
            .collect();
        assert_eq!(
            brief,
            [
                (0, 3, 5, 2_500, 2, true),
                (1, 3, -4, 10, 0, true),
                (2, 1, 1, 1, 1, false)
            ]
        );
        // Xenomai's average: the sum over the samples, truncated toward zero.
        assert_eq!(windows[1].avg_ns(), Some(5));
    }
}
