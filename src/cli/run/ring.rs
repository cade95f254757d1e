//! The `-v` sample stream: a single-producer single-consumer ring of (cycle, latency) pairs.
//!
//! The measurement thread pushes with two relaxed stores and one release store, never waits,
//! and counts what did not fit instead of losing it silently (cyclictest's `-v` ring drops
//! samples without a word). The main thread drains it while the run goes on.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// A fixed-capacity ring of samples, allocated before the run.
#[derive(Debug)]
pub struct SampleRing {
    cycles: Box<[AtomicU64]>,
    values: Box<[AtomicI64]>,
    head: AtomicU64,
    tail: AtomicU64,
    lost: AtomicU64,
}

impl SampleRing {
    /// A ring for `capacity` samples (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        SampleRing {
            cycles: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
            values: (0..capacity).map(|_| AtomicI64::new(0)).collect(),
            head: AtomicU64::new(0),
            tail: AtomicU64::new(0),
            lost: AtomicU64::new(0),
        }
    }

    /// Adds a sample (producer only); counts it as lost when the ring is full.
    #[inline]
    pub fn push(&self, cycle: u64, value: i64) {
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        let capacity = self.cycles.len() as u64;
        if head - tail >= capacity {
            self.lost.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let slot = (head % capacity) as usize;
        self.cycles[slot].store(cycle, Ordering::Relaxed);
        self.values[slot].store(value, Ordering::Relaxed);
        self.head.store(head + 1, Ordering::Release);
    }

    /// Takes every sample pushed so far, oldest first (consumer only).
    pub fn drain(&self, mut each: impl FnMut(u64, i64)) {
        let head = self.head.load(Ordering::Acquire);
        let mut tail = self.tail.load(Ordering::Relaxed);
        let capacity = self.cycles.len() as u64;
        while tail < head {
            let slot = (tail % capacity) as usize;
            each(
                self.cycles[slot].load(Ordering::Relaxed),
                self.values[slot].load(Ordering::Relaxed),
            );
            tail += 1;
        }
        self.tail.store(tail, Ordering::Release);
    }

    /// Samples that did not fit and were not printed.
    pub fn lost(&self) -> u64 {
        self.lost.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::SampleRing;

    #[test]
    fn full_ring_counts_losses_and_keeps_order() {
        let ring = SampleRing::new(4);
        for c in 0..6 {
            ring.push(c, c as i64 * 10);
        }
        let mut got = Vec::new();
        ring.drain(|c, v| got.push((c, v)));
        assert_eq!(got, vec![(0, 0), (1, 10), (2, 20), (3, 30)]);
        assert_eq!(ring.lost(), 2);
        ring.push(6, 60);
        got.clear();
        ring.drain(|c, v| got.push((c, v)));
        assert_eq!(got, vec![(6, 60)]);
    }

    #[test]
    fn concurrent_producer_and_consumer_lose_nothing_they_do_not_count() {
        let ring = std::sync::Arc::new(SampleRing::new(64));
        let producer = {
            let ring = ring.clone();
            std::thread::spawn(move || {
                for c in 0..100_000u64 {
                    ring.push(c, -(c as i64));
                }
            })
        };
        let mut seen = 0u64;
        let mut last = None;
        loop {
            let done = producer.is_finished();
            ring.drain(|c, v| {
                assert_eq!(v, -(c as i64));
                assert!(last.is_none_or(|l| c > l), "in order");
                last = Some(c);
                seen += 1;
            });
            if done {
                break;
            }
        }
        producer.join().unwrap();
        ring.drain(|_, _| seen += 1);
        assert_eq!(
            seen + ring.lost(),
            100_000,
            "every sample is either printed or counted as lost"
        );
    }
}
