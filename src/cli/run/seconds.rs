//! Per-second figures of a measurement thread: what `rtlat run` writes into its JSON as a
//! time series (`rtlat latency` cuts Xenomai's seconds of `1e9 / period` wake-ups instead,
//! `cli::latency::seconds`, into the same [`Window`]s and [`WindowRing`]).
//!
//! The work is split so that the measurement thread pays almost nothing:
//!
//! - [`SecondWindows`] lives in the measurement thread. Per cycle it compares the wake-up time
//!   with the end of the current second and updates the window's min and max (two compares);
//!   count, sum and overruns are not kept per window but taken, once per second, as the
//!   difference of the running totals the thread keeps anyway (its histogram's
//!   [`Summary`] and the engine's overrun count). When a wake-up crosses the end of the
//!   second, the closed [`Window`] goes into a [`WindowRing`] (a fixed single-producer
//!   single-consumer ring: relaxed stores and one release store, no waiting, no allocation).
//! - The main thread drains the ring into a [`SecondsSeries`], a bounded buffer: once it
//!   holds [`SERIES_CAPACITY`] entries, adjacent pairs are merged (decimation by two) and
//!   each entry covers twice as many seconds, so a 24 h run keeps at most 3600 entries
//!   (32 s each). Allocation, decimation and formatting happen there, never in the
//!   measurement thread. The all-time extremes are exact anyway (the thread's histogram
//!   keeps them), and merging keeps each entry's min and max exact over its seconds.
//!
//! Windows are aligned on the thread's start: window `k` holds the cycles that woke in
//! `[start + k s, start + (k+1) s)`, where the start is the first deadline minus one
//! interval. A stall longer than a second skips windows; the series fills them with empty
//! entries (0 cycles) so that entry `i` always covers the same seconds.

use std::sync::atomic::{AtomicU64, Ordering};

use rtlat::formats::schema::Field;
use rtlat::formats::schema::rtlat::{Second, Seconds};
use rtlat_core::{Sample, Summary};
use serde_json::Number;

/// Nanoseconds per second.
pub const SECOND_NS: u64 = 1_000_000_000;

/// Entries a [`SecondsSeries`] keeps before it merges adjacent pairs: one hour at one second
/// per entry; a day fits at 32 s per entry.
pub const SERIES_CAPACITY: usize = 3600;

/// Closed windows a [`WindowRing`] holds until the main thread drains them (the main thread
/// drains every few milliseconds; this is minutes of slack).
pub const RING_CAPACITY: usize = 128;

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

/// Fields of one ring slot, each an `AtomicU64`: index, cycles, min, max, sum (low and high
/// halves), overruns, complete. Eight words: one cache line per slot.
const FIELDS: usize = 8;

/// A fixed single-producer single-consumer ring of closed windows, allocated (and written)
/// before the run.
#[derive(Debug)]
pub struct WindowRing {
    slots: Box<[[AtomicU64; FIELDS]]>,
    head: AtomicU64,
    tail: AtomicU64,
    lost: AtomicU64,
}

impl Default for WindowRing {
    fn default() -> Self {
        WindowRing::new(RING_CAPACITY)
    }
}

impl WindowRing {
    /// A ring for `capacity` windows (at least 1).
    pub fn new(capacity: usize) -> Self {
        WindowRing {
            slots: (0..capacity.max(1))
                .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
                .collect(),
            head: AtomicU64::new(0),
            tail: AtomicU64::new(0),
            lost: AtomicU64::new(0),
        }
    }

    /// Adds a window (producer only: the measurement thread). Never waits: when the ring is
    /// full the window is counted as lost.
    pub fn push(&self, w: &Window) {
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        let capacity = self.slots.len() as u64;
        if head - tail >= capacity {
            self.lost.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let slot = &self.slots[(head % capacity) as usize];
        let sum = w.sum_ns as u128;
        let words = [
            w.index,
            w.cycles,
            w.min_ns as u64,
            w.max_ns as u64,
            sum as u64,
            (sum >> 64) as u64,
            w.overruns,
            u64::from(w.complete),
        ];
        for (field, word) in slot.iter().zip(words) {
            field.store(word, Ordering::Relaxed);
        }
        self.head.store(head + 1, Ordering::Release);
    }

    /// Takes every window pushed so far, oldest first (consumer only: the main thread).
    pub fn drain(&self, mut each: impl FnMut(Window)) {
        let head = self.head.load(Ordering::Acquire);
        let mut tail = self.tail.load(Ordering::Relaxed);
        let capacity = self.slots.len() as u64;
        while tail < head {
            let slot = &self.slots[(tail % capacity) as usize];
            let word = |i: usize| slot[i].load(Ordering::Relaxed);
            each(Window {
                index: word(0),
                cycles: word(1),
                min_ns: word(2) as i64,
                max_ns: word(3) as i64,
                sum_ns: (u128::from(word(4)) | (u128::from(word(5)) << 64)) as i128,
                overruns: word(6),
                complete: word(7) != 0,
            });
            tail += 1;
        }
        self.tail.store(tail, Ordering::Release);
    }

    /// Windows that did not fit (the main thread did not drain for minutes).
    pub fn lost(&self) -> u64 {
        self.lost.load(Ordering::Relaxed)
    }
}

/// The measurement thread's side: cuts the run into seconds.
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
    pub fn record(&mut self, sample: &Sample, totals: &Summary, overruns: u64, ring: &WindowRing) {
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
    fn close(&mut self, sample: &Sample, totals: &Summary, overruns: u64, ring: &WindowRing) {
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

    fn push(&mut self, count: u64, sum: i128, overruns: u64, complete: bool, ring: &WindowRing) {
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
    pub fn finish(&mut self, totals: &Summary, overruns: u64, ring: &WindowRing) {
        if totals.count() > self.start_count {
            self.push(totals.count(), totals.sum(), overruns, false, ring);
        }
    }
}

/// One entry of a [`SecondsSeries`]: `seconds` consecutive windows merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Index of the entry: it covers seconds `[slot·period, (slot+1)·period)`.
    pub slot: u64,
    /// Cycles.
    pub cycles: u64,
    /// Smallest latency, ns (meaningless when `cycles == 0`).
    pub min_ns: i64,
    /// Largest latency, ns (meaningless when `cycles == 0`).
    pub max_ns: i64,
    /// Sum of latencies, ns.
    pub sum_ns: i128,
    /// Deadlines skipped.
    pub overruns: u64,
}

impl Entry {
    fn empty(slot: u64) -> Entry {
        Entry {
            slot,
            cycles: 0,
            min_ns: i64::MAX,
            max_ns: i64::MIN,
            sum_ns: 0,
            overruns: 0,
        }
    }

    fn add(&mut self, cycles: u64, min: i64, max: i64, sum: i128, overruns: u64) {
        if cycles > 0 {
            self.min_ns = self.min_ns.min(min);
            self.max_ns = self.max_ns.max(max);
        }
        self.cycles = self.cycles.saturating_add(cycles);
        self.sum_ns = self.sum_ns.saturating_add(sum);
        self.overruns = self.overruns.saturating_add(overruns);
    }

    /// Mean latency, ns, truncated toward zero; `None` when empty.
    pub fn avg_ns(&self) -> Option<i64> {
        (self.cycles > 0).then(|| (self.sum_ns / i128::from(self.cycles)) as i64)
    }
}

/// The main thread's bounded per-second series of one thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecondsSeries {
    capacity: usize,
    /// Seconds per entry: 1, 2, 4, …
    period: u64,
    entries: Vec<Entry>,
    /// The next window index expected (earlier ones are in, later ones fill gaps).
    next_index: u64,
    /// Windows the ring could not hold.
    lost: u64,
}

impl Default for SecondsSeries {
    fn default() -> Self {
        SecondsSeries::new(SERIES_CAPACITY)
    }
}

impl SecondsSeries {
    /// An empty series that keeps at most `capacity` entries (at least 2).
    pub fn new(capacity: usize) -> Self {
        SecondsSeries {
            capacity: capacity.max(2),
            period: 1,
            entries: Vec::new(),
            next_index: 0,
            lost: 0,
        }
    }

    /// Seconds each entry covers.
    pub fn period_s(&self) -> u64 {
        self.period
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Windows lost in the ring (never, unless the main thread stalled for minutes).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Takes everything `ring` holds.
    pub fn drain(&mut self, ring: &WindowRing) {
        ring.drain(|w| self.push(&w));
        self.lost = ring.lost();
    }

    /// Adds a window. Windows come in increasing index order; skipped indices become empty
    /// seconds. A window with an index already passed is merged into the latest entry.
    pub fn push(&mut self, w: &Window) {
        let index = w.index.max(self.next_index.saturating_sub(1));
        // Empty seconds for a stall, entry by entry (at most `capacity` entries, so a huge
        // gap costs at most a few decimations).
        while self.next_index < index {
            // The entry holding `next_index` (its slot is in the period after any
            // decimation `entry_at` made), then on to the next entry boundary: the seconds
            // in between are empty too.
            let slot = self.entry_at(self.next_index / self.period).slot;
            let next_entry = slot.saturating_add(1).saturating_mul(self.period);
            self.next_index = next_entry.min(index);
        }
        let entry = self.entry_at(index / self.period);
        entry.add(w.cycles, w.min_ns, w.max_ns, w.sum_ns, w.overruns);
        self.next_index = index.saturating_add(1);
    }

    /// The entry for `slot` (which is the last one or the one after it), decimating first if
    /// a new entry would not fit.
    fn entry_at(&mut self, mut slot: u64) -> &mut Entry {
        if self.entries.last().is_none_or(|e| e.slot != slot) {
            while self.entries.len() >= self.capacity {
                self.decimate();
                slot /= 2;
                if self.entries.last().is_some_and(|e| e.slot == slot) {
                    break;
                }
            }
            if self.entries.last().is_none_or(|e| e.slot != slot) {
                self.entries.push(Entry::empty(slot));
            }
        }
        let last = self.entries.len() - 1;
        &mut self.entries[last]
    }

    /// Merges adjacent pairs: each entry then covers twice the seconds.
    fn decimate(&mut self) {
        self.period = self.period.saturating_mul(2);
        let mut merged: Vec<Entry> = Vec::with_capacity(self.capacity);
        for e in &self.entries {
            let slot = e.slot / 2;
            match merged.last_mut() {
                Some(m) if m.slot == slot => {
                    m.add(e.cycles, e.min_ns, e.max_ns, e.sum_ns, e.overruns)
                }
                _ => {
                    let mut m = Entry::empty(slot);
                    m.add(e.cycles, e.min_ns, e.max_ns, e.sum_ns, e.overruns);
                    merged.push(m);
                }
            }
        }
        self.entries = merged;
    }

    /// The JSON object: `{"period_s": s, "entries": [{"t", "cycles", "min", "avg", "max",
    /// "overruns"}, …]}`, times in seconds since the thread's start, latencies in ns (`null`
    /// for a second without cycles).
    pub fn to_json(&self) -> Seconds {
        let period = self.period_s();
        let entries = self
            .entries()
            .iter()
            .map(|e| {
                let some = e.cycles > 0;
                Field::from(Second {
                    t: Number::from(e.slot.saturating_mul(period)).into(),
                    cycles: e.cycles.into(),
                    min: some.then_some(e.min_ns).into(),
                    avg: e.avg_ns().into(),
                    max: some.then_some(e.max_ns).into(),
                    overruns: e.overruns.into(),
                })
            })
            .collect::<Vec<_>>();
        Seconds {
            period_s: Number::from(period).into(),
            entries: entries.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let ring = WindowRing::new(64);
        let mut windows = SecondWindows::new(origin, SECOND_NS);
        let mut totals = Summary::new();
        let mut overruns = 0;
        for (k, &(wake, latency, over)) in samples.iter().enumerate() {
            use rtlat_core::Record;
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
    fn a_stall_skips_windows_and_the_series_fills_them_empty() {
        let s = SECOND_NS;
        let windows = cut(0, &[(10, 1, 0), (s + 1, 2, 0), (4 * s + 7, 9, 3500)]);
        let indices: Vec<u64> = windows.iter().map(|w| w.index).collect();
        assert_eq!(indices, vec![0, 1, 4]);
        let mut series = SecondsSeries::default();
        for w in &windows {
            series.push(w);
        }
        let cycles: Vec<u64> = series.entries().iter().map(|e| e.cycles).collect();
        assert_eq!(cycles, vec![1, 1, 0, 0, 1]);
        assert_eq!(series.entries()[4].overruns, 3500);
        let doc = serde_json::to_value(series.to_json()).unwrap();
        assert_eq!(doc["period_s"], 1);
        assert_eq!(doc["entries"][2]["min"], serde_json::Value::Null);
        assert_eq!(doc["entries"][4]["t"], 4);
    }

    #[test]
    fn a_day_of_seconds_stays_bounded_and_loses_nothing() {
        let mut series = SecondsSeries::default();
        let (mut cycles, mut overruns, mut sum) = (0u64, 0u64, 0i128);
        for k in 0..86_400u64 {
            let w = Window {
                index: k,
                cycles: 1000 + k % 7,
                min_ns: (k % 13) as i64 - 5,
                max_ns: 50_000 + (k % 1009) as i64 + if k == 77_777 { 9_000_000 } else { 0 },
                sum_ns: 20_000_000,
                overruns: k % 2,
                complete: true,
            };
            cycles += w.cycles;
            overruns += w.overruns;
            sum += w.sum_ns;
            series.push(&w);
            assert!(series.entries().len() <= SERIES_CAPACITY);
        }
        assert_eq!(series.period_s(), 32, "3600 × 32 s ≥ 86 400 s");
        assert_eq!(series.entries().len(), 86_400usize.div_ceil(32));
        let e = series.entries();
        assert_eq!(e.iter().map(|e| e.cycles).sum::<u64>(), cycles);
        assert_eq!(e.iter().map(|e| e.overruns).sum::<u64>(), overruns);
        assert_eq!(e.iter().map(|e| e.sum_ns).sum::<i128>(), sum);
        assert_eq!(e.iter().map(|e| e.min_ns).min(), Some(-5));
        assert_eq!(
            e.iter().map(|e| e.max_ns).max(),
            Some(9_050_000 + 77_777 % 1009)
        );
        // The all-time worst second is inside the entry covering it.
        let worst = &e[(77_777 / 32) as usize];
        assert_eq!(worst.slot, 77_777 / 32);
        assert!(worst.max_ns > 9_000_000);
        // Entries are contiguous and start at t = 0.
        for (i, entry) in e.iter().enumerate() {
            assert_eq!(entry.slot, i as u64);
        }
        let doc = serde_json::to_value(series.to_json()).unwrap();
        assert_eq!(doc["entries"][1]["t"], 32);
    }

    #[test]
    fn a_long_gap_decimates_instead_of_growing() {
        let mut series = SecondsSeries::new(8);
        let w = |index| Window {
            index,
            cycles: 1,
            min_ns: 1,
            max_ns: 1,
            sum_ns: 1,
            overruns: 0,
            complete: true,
        };
        series.push(&w(0));
        series.push(&w(1_000));
        assert!(series.entries().len() <= 8);
        assert_eq!(series.period_s(), 128, "8 entries × 128 s hold 1001 s");
        assert_eq!(series.entries().iter().map(|e| e.cycles).sum::<u64>(), 2);
        assert_eq!(series.entries().last().unwrap().slot, 1_000 / 128);
    }

    #[test]
    fn the_ring_counts_what_does_not_fit_and_keeps_order() {
        let ring = WindowRing::new(2);
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
}
