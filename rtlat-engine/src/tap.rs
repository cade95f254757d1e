//! The wake-up tap: one store per cycle, for readers that need every cycle's latency and
//! wake-up time while the run goes on (`rtlat run --explain`).
//!
//! The measuring thread stores cycle `k`'s wake-up time (clock ticks) into slot `k mod
//! 4096` with one relaxed store ([`WakeTap::record`]); it never reads, waits or counts. A
//! [`TapReader`] on another thread takes the cycles the thread has published as done (its
//! [live figures](rtlat_core::live), published at most 1 ms apart, release ordered after the
//! stores) and rebuilds each cycle's deadline exactly as the cycle engine moves it (one
//! interval on, or past the deadlines a late wake-up skipped: rtlat-core `cycle.rs`,
//! [`Skip`](rtlat_core::cycle::Skip)), so latency = wake-up − deadline, the engine's own
//! figure, with nothing but the wake-up stored. A reader more than 4096 cycles behind has lost
//! the cycles overwritten: it counts them, and takes the deadline of the next cycle it reads
//! as the grid point (first deadline + j·interval) at or before its wake-up.

use std::sync::atomic::{AtomicU64, Ordering};

/// Slots in a tap: 4096 cycles (4 s at 1 ms, 0.4 s at 100 µs; the reader drains every
/// 10 ms).
pub const TAP_SLOTS: usize = 4096;
const MASK: u64 = TAP_SLOTS as u64 - 1;

/// One measuring thread's wake-up tap (see the module docs).
#[derive(Debug)]
pub struct WakeTap {
    slots: Box<[AtomicU64; TAP_SLOTS]>,
    /// The first deadline (clock ticks), set once before the first cycle; 0: not yet.
    first_deadline: AtomicU64,
}

impl Default for WakeTap {
    fn default() -> Self {
        WakeTap::new()
    }
}

impl WakeTap {
    /// A tap, allocated (and written) now, before the run.
    pub fn new() -> WakeTap {
        let slots: Box<[AtomicU64]> = (0..TAP_SLOTS).map(|_| AtomicU64::new(0)).collect();
        WakeTap {
            slots: slots
                .try_into()
                .unwrap_or_else(|_| unreachable!("TAP_SLOTS slots were made")),
            first_deadline: AtomicU64::new(0),
        }
    }

    /// The measuring thread, before its first cycle: its first deadline (clock ticks).
    pub fn start(&self, first_deadline: u64) {
        self.first_deadline.store(first_deadline, Ordering::Release);
    }

    /// The measuring thread, every cycle: cycle `cycle` woke at `wake_ticks`. One store (the
    /// index is masked to the array's size: no bounds check).
    #[inline(always)]
    pub fn record(&self, cycle: u64, wake_ticks: u64) {
        self.slots[(cycle & MASK) as usize].store(wake_ticks, Ordering::Relaxed);
    }

    fn wake(&self, cycle: u64) -> u64 {
        self.slots[(cycle & MASK) as usize].load(Ordering::Relaxed)
    }
}

/// Reads a [`WakeTap`] on another thread: every cycle's (cycle, latency, wake-up) in order.
#[derive(Debug, Clone)]
pub struct TapReader {
    interval: u64,
    first: Option<u64>,
    /// The next cycle to read and its deadline.
    next: u64,
    deadline: u64,
    lost: u64,
}

impl TapReader {
    /// A reader of a tap whose thread's interval is `interval_ticks` (at least 1).
    pub fn new(interval_ticks: u64) -> TapReader {
        TapReader {
            interval: interval_ticks.max(1),
            first: None,
            next: 0,
            deadline: 0,
            lost: 0,
        }
    }

    /// Cycles overwritten before they were read.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// Takes the cycles before `done` (the thread's published cycle count; after the thread
    /// ended, its final count): `each(cycle, latency_ticks, wake_ticks)`, oldest first.
    /// `done` must come from a read that synchronizes with the thread's publication (its live
    /// figures, or joining it), so the slots below it hold their cycle's wake-up.
    pub fn drain(&mut self, tap: &WakeTap, done: u64, mut each: impl FnMut(u64, i64, u64)) {
        let first = match self.first {
            Some(first) => first,
            None => {
                let first = tap.first_deadline.load(Ordering::Acquire);
                if first == 0 || done == 0 {
                    return;
                }
                self.first = Some(first);
                self.deadline = first;
                first
            }
        };
        // `done` may be a millisecond old and the thread writes on while this reads: a
        // quarter of the slots is the margin.
        if done.saturating_sub(self.next) > TAP_SLOTS as u64 * 3 / 4 {
            // Overwritten: skip to the oldest cycle still held (with a margin, as the thread
            // goes on writing while this reads) and resynchronise on the grid.
            let resume = done - TAP_SLOTS as u64 / 2;
            self.lost += resume - self.next;
            self.next = resume;
            let wake = tap.wake(resume);
            self.deadline = first + wake.saturating_sub(first) / self.interval * self.interval;
        }
        while self.next < done {
            let wake = tap.wake(self.next);
            let late = wake.wrapping_sub(self.deadline) as i64;
            each(self.next, late, wake);
            // The engine's move past this deadline (rtlat-core cycle.rs, `move_on`).
            let skipped = if late > self.interval as i64 {
                (late as u64 - 1) / self.interval
            } else {
                0
            };
            self.deadline = self
                .deadline
                .wrapping_add(self.interval.wrapping_mul(1 + skipped));
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's schedule with skips, replayed: every latency comes back exactly.
    #[test]
    fn the_reader_rebuilds_every_latency_from_the_wake_ups() {
        let tap = WakeTap::new();
        let interval = 1_000u64;
        let first = 50_000u64;
        tap.start(first);
        // (latency) per cycle: on time, late within an interval, late by 3.5 intervals
        // (3 deadlines skipped), exactly one interval late, early.
        let latencies = [10i64, 900, 3_500, 1_000, -5, 20];
        let mut deadline = first;
        let mut expected = Vec::new();
        for (cycle, &late) in latencies.iter().enumerate() {
            let wake = deadline.wrapping_add_signed(late);
            tap.record(cycle as u64, wake);
            expected.push((cycle as u64, late, wake));
            let skipped = if late > interval as i64 {
                (late as u64 - 1) / interval
            } else {
                0
            };
            deadline += interval * (1 + skipped);
        }
        let mut reader = TapReader::new(interval);
        let mut got = Vec::new();
        reader.drain(&tap, 3, |c, l, w| got.push((c, l, w)));
        reader.drain(&tap, latencies.len() as u64, |c, l, w| got.push((c, l, w)));
        assert_eq!(got, expected);
        assert_eq!(reader.lost(), 0);
    }

    #[test]
    fn a_reader_far_behind_counts_the_lost_cycles_and_resynchronises() {
        let tap = WakeTap::new();
        let interval = 1_000u64;
        tap.start(1_000_000);
        let cycles = 3 * TAP_SLOTS as u64;
        for k in 0..cycles {
            tap.record(k, 1_000_000 + k * interval + 7);
        }
        let mut reader = TapReader::new(interval);
        let mut got = Vec::new();
        reader.drain(&tap, cycles, |c, l, _| got.push((c, l)));
        assert_eq!(reader.lost() + got.len() as u64, cycles);
        assert!(reader.lost() > 0);
        assert!(
            got.iter().all(|&(_, l)| l == 7),
            "resynchronised on the grid"
        );
        assert_eq!(got.last().map(|g| g.0), Some(cycles - 1));
    }

    #[test]
    fn nothing_is_read_before_the_thread_starts() {
        let tap = WakeTap::new();
        let mut reader = TapReader::new(1_000);
        reader.drain(&tap, 5, |_, _, _| panic!("no first deadline yet"));
        tap.start(10);
        reader.drain(&tap, 0, |_, _, _| panic!("no cycle done yet"));
    }
}
