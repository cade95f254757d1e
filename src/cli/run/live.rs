//! A measurement thread's live figures, published without ever blocking it.
//!
//! A sequence lock: the one writer (the measurement thread) bumps a counter to odd, stores the
//! fields with relaxed atomic stores, and bumps it to even; a reader retries until it sees the
//! same even counter before and after its reads. The writer never waits, never allocates and
//! makes no system call; on x86-64 and AArch64 each store is a plain store.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, Ordering, fence};

/// What the main thread shows: the cyclictest `T:` line's figures and rtlat's extras.
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

/// One thread's published figures.
#[derive(Debug, Default)]
pub struct LiveStatus {
    sequence: AtomicU64,
    cycles: AtomicU64,
    min_ns: AtomicI64,
    act_ns: AtomicI64,
    max_ns: AtomicI64,
    sum_ns: AtomicI64,
    overruns: AtomicU64,
    tid: AtomicI32,
    finished: AtomicBool,
}

impl LiveStatus {
    /// Publishes `figures` (measurement thread only: one writer).
    #[inline]
    pub fn publish(&self, figures: &LiveFigures) {
        let s = self.sequence.load(Ordering::Relaxed);
        self.sequence.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        self.cycles.store(figures.cycles, Ordering::Relaxed);
        self.min_ns.store(figures.min_ns, Ordering::Relaxed);
        self.act_ns.store(figures.act_ns, Ordering::Relaxed);
        self.max_ns.store(figures.max_ns, Ordering::Relaxed);
        self.sum_ns.store(figures.sum_ns, Ordering::Relaxed);
        self.overruns.store(figures.overruns, Ordering::Relaxed);
        self.sequence.store(s.wrapping_add(2), Ordering::Release);
    }

    /// A consistent copy of the figures (spins only while a publish is under way).
    pub fn read(&self) -> LiveFigures {
        loop {
            let before = self.sequence.load(Ordering::Acquire);
            if before % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let figures = LiveFigures {
                cycles: self.cycles.load(Ordering::Relaxed),
                min_ns: self.min_ns.load(Ordering::Relaxed),
                act_ns: self.act_ns.load(Ordering::Relaxed),
                max_ns: self.max_ns.load(Ordering::Relaxed),
                sum_ns: self.sum_ns.load(Ordering::Relaxed),
                overruns: self.overruns.load(Ordering::Relaxed),
            };
            fence(Ordering::Acquire);
            if self.sequence.load(Ordering::Relaxed) == before {
                return figures;
            }
        }
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
                (f.min_ns, f.act_ns, f.max_ns, f.sum_ns, f.overruns),
                (-k, k, 2 * k, 3 * k, k as u64)
            );
            reads += 1;
        }
        writer.join().unwrap();
        assert_eq!(status.read().cycles, 200_000);
        assert!(reads > 0);
    }
}
