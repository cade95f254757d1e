//! The reader's side of the per-second windows (`rtlat run`'s time series): the measuring
//! thread cuts them (rtlat-core's [`SecondWindows`](rtlat_core::windows::SecondWindows))
//! and pushes them into a [`WindowRing`]; the main thread drains the ring into a
//! [`SecondsSeries`], a bounded buffer: once it holds [`SERIES_CAPACITY`] entries, adjacent
//! pairs are merged (decimation by two) and each entry covers twice as many seconds, so a
//! 24 h run keeps at most 3600 entries (32 s each). Allocation and decimation happen there,
//! never in the measuring thread. The all-time extremes are exact anyway (the thread's
//! histogram keeps them), and merging keeps each entry's min and max exact over its seconds.
//!
//! A stall longer than a second skips windows; the series fills them with empty entries (0
//! cycles) so that entry `i` always covers the same seconds.

use rtlat_core::windows::{Window, WindowRing, WindowSlot};

/// Entries a [`SecondsSeries`] keeps before it merges adjacent pairs: one hour at one second
/// per entry; a day fits at 32 s per entry.
pub const SERIES_CAPACITY: usize = 3600;

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
    pub fn drain<S: AsRef<[WindowSlot]>>(&mut self, ring: &WindowRing<S>) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_skips_windows_and_the_series_fills_them_empty() {
        let window = |index, cycles, overruns| Window {
            index,
            cycles,
            min_ns: 1,
            max_ns: 9,
            sum_ns: 10,
            overruns,
            complete: true,
        };
        let windows = [window(0, 1, 0), window(1, 1, 0), window(4, 1, 3500)];
        let mut series = SecondsSeries::default();
        for w in &windows {
            series.push(w);
        }
        let cycles: Vec<u64> = series.entries().iter().map(|e| e.cycles).collect();
        assert_eq!(cycles, vec![1, 1, 0, 0, 1]);
        assert_eq!(series.entries()[4].overruns, 3500);
        assert_eq!(series.period_s(), 1);
        assert_eq!(series.entries()[2].avg_ns(), None, "an empty second");
        assert_eq!(series.entries()[4].slot, 4);
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
        assert_eq!(e[1].slot * series.period_s(), 32);
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
}
