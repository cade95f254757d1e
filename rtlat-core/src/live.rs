//! A measuring thread's live figures, published without ever blocking it.
//!
//! A sequence lock: the one writer (the measuring thread, or an interrupt handler) bumps a
//! counter to odd, stores the fields with relaxed atomic stores, and bumps it to even; a
//! reader retries until it sees the same even counter before and after its reads. The
//! writer never waits, never allocates and makes no system call; on x86-64 and AArch64 each
//! store is a plain store. No `unsafe`, no lock: atomics only, so it works in a `static` on
//! a microcontroller as well as between two threads.
//!
//! ```
//! use rtlat_core::live::{LiveFigures, LiveStatus};
//!
//! static LIVE: LiveStatus = LiveStatus::new();
//! LIVE.publish(&LiveFigures { cycles: 1, min_ns: 7, act_ns: 7, max_ns: 7, sum_ns: 7, overruns: 0, smis: 0 });
//! assert_eq!(LIVE.read().avg_ns(), 7);
//! ```

use core::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering, fence};

use crate::seqlock;
use crate::word::Word;

/// What a reader shows: the cyclictest `T:` line's figures and rtlat's extras.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LiveFigures {
    /// Cycles measured.
    pub cycles: u64,
    /// Minimum latency, ns (meaningless while `cycles == 0`).
    pub min_ns: i64,
    /// Latest latency, ns.
    pub act_ns: i64,
    /// Maximum latency, ns.
    pub max_ns: i64,
    /// Sum of latencies, ns (wrapping; exact below 292 years of summed latency).
    pub sum_ns: i64,
    /// Deadlines skipped because a wake-up came more than an interval late.
    pub overruns: u64,
    /// System Management Interrupts counted on the thread's CPU since its first cycle
    /// (cyclictest's `--smi`; 0 where nobody counts them).
    pub smis: u64,
}

impl LiveFigures {
    /// Mean latency, ns, truncated toward zero (cyclictest's `Avg:`); 0 before the first cycle.
    pub fn avg_ns(&self) -> i64 {
        if self.cycles == 0 {
            0
        } else {
            self.sum_ns / self.cycles as i64
        }
    }
}

/// One measuring thread's published figures, its kernel id and whether it has finished.
#[derive(Debug, Default)]
pub struct LiveStatus {
    sequence: AtomicU32,
    cycles: Word,
    min_ns: Word,
    act_ns: Word,
    max_ns: Word,
    sum_ns: Word,
    overruns: Word,
    smis: Word,
    tid: AtomicI32,
    finished: AtomicBool,
}

impl LiveStatus {
    /// Nothing published yet (usable in a `static`).
    pub const fn new() -> Self {
        LiveStatus {
            sequence: AtomicU32::new(0),
            cycles: Word::new(),
            min_ns: Word::new(),
            act_ns: Word::new(),
            max_ns: Word::new(),
            sum_ns: Word::new(),
            overruns: Word::new(),
            smis: Word::new(),
            tid: AtomicI32::new(0),
            finished: AtomicBool::new(false),
        }
    }

    /// Publishes `figures` (one writer only).
    #[inline]
    pub fn publish(&self, figures: &LiveFigures) {
        let s = self.sequence.load(Ordering::Relaxed);
        self.sequence.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        self.cycles.set(figures.cycles);
        self.min_ns.set(figures.min_ns as u64);
        self.act_ns.set(figures.act_ns as u64);
        self.max_ns.set(figures.max_ns as u64);
        self.sum_ns.set(figures.sum_ns as u64);
        self.overruns.set(figures.overruns);
        self.smis.set(figures.smis);
        self.sequence.store(s.wrapping_add(2), Ordering::Release);
    }

    /// A consistent copy of the figures (spins only while a publish is under way).
    pub fn read(&self) -> LiveFigures {
        seqlock::read(&self.sequence, || {
            Some(LiveFigures {
                cycles: self.cycles.get(),
                min_ns: self.min_ns.get() as i64,
                act_ns: self.act_ns.get() as i64,
                max_ns: self.max_ns.get() as i64,
                sum_ns: self.sum_ns.get() as i64,
                overruns: self.overruns.get(),
                smis: self.smis.get(),
            })
        })
    }

    /// Records the thread's kernel id once it is known (0 before: cyclictest shows `(    0)`).
    pub fn set_tid(&self, tid: i32) {
        self.tid.store(tid, Ordering::Release);
    }

    /// The thread's kernel id, 0 until it started.
    pub fn tid(&self) -> i32 {
        self.tid.load(Ordering::Acquire)
    }

    /// Marks the thread as done measuring.
    pub fn set_finished(&self) {
        self.finished.store(true, Ordering::Release);
    }

    /// Whether the thread is done measuring.
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_never_see_a_torn_publish() {
        let status = std::sync::Arc::new(LiveStatus::default());
        let writer = {
            let status = status.clone();
            std::thread::spawn(move || {
                for k in 1..=200_000i64 {
                    // Every field derives from k, so a torn read shows as a mismatch.
                    status.publish(&LiveFigures {
                        cycles: k as u64,
                        min_ns: -k,
                        act_ns: k,
                        max_ns: 2 * k,
                        sum_ns: 3 * k,
                        overruns: k as u64,
                        smis: 4 * k as u64,
                    });
                }
                status.set_finished();
            })
        };
        let mut reads = 0u64;
        while !status.finished() {
            let f = status.read();
            let k = f.cycles as i64;
            assert_eq!(
                (f.min_ns, f.act_ns, f.max_ns, f.sum_ns, f.overruns, f.smis),
                (-k, k, 2 * k, 3 * k, k as u64, 4 * k as u64)
            );
            reads += 1;
        }
        writer.join().unwrap();
        assert_eq!(status.read().cycles, 200_000);
        assert!(reads > 0);
    }
}
