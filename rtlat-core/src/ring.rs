//! Single-producer single-consumer rings a measuring thread pushes into and a reader drains
//! while the run goes on: the [`SampleRing`] of (cycle, latency, wake-up) samples (`-v`,
//! `--explain`, the monitor), and the ring of
//! closed per-second windows ([`WindowRing`](crate::windows::WindowRing)).
//!
//! The producer pushes with relaxed stores and one release store, never waits, and counts
//! what did not fit instead of losing it silently (cyclictest's `-v` ring drops samples
//! without a word). The storage is the caller's: an array (`[Slot<W>; N]`, in a `static` on
//! a microcontroller) or a boxed slice allocated before the run; anything that is
//! `AsRef<[Slot<W>]>`.
//!
//! ```
//! use rtlat_core::ring::{SampleRing, Slot};
//!
//! let ring = SampleRing::new([const { Slot::new() }; 4]);
//! for cycle in 0..6 {
//!     ring.push(cycle, -(cycle as i64), 1000 * cycle);
//! }
//! let mut seen = 0;
//! ring.drain(|cycle, latency, wake| {
//!     assert_eq!((latency, wake), (-(cycle as i64), 1000 * cycle));
//!     seen += 1;
//! });
//! assert_eq!((seen, ring.lost()), (4, 2));
//! ```
//!
//! The indices are `usize`: on a 32-bit target they wrap after 2^32 pushes, which keeps
//! the order only when the capacity is a power of two.

use core::sync::atomic::{AtomicUsize, Ordering};

use crate::word::Word;

/// One ring entry: `W` 64-bit words.
#[derive(Debug)]
pub struct Slot<const W: usize>([Word; W]);

impl<const W: usize> Slot<W> {
    /// An empty slot (usable in `const` array initialisers).
    pub const fn new() -> Self {
        Slot([const { Word::new() }; W])
    }
}

impl<const W: usize> Default for Slot<W> {
    fn default() -> Self {
        Slot::new()
    }
}

/// A ring of `W`-word entries over the storage `S`.
#[derive(Debug)]
pub struct Ring<S, const W: usize> {
    slots: S,
    head: AtomicUsize,
    tail: AtomicUsize,
    lost: Word,
}

impl<S: AsRef<[Slot<W>]>, const W: usize> Ring<S, W> {
    /// A ring over `slots` (its capacity; an empty one counts every push as lost).
    pub const fn new(slots: S) -> Self {
        Ring {
            slots,
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            lost: Word::new(),
        }
    }

    /// Adds an entry (producer only); counts it as lost when the ring is full.
    #[inline]
    pub fn push(&self, words: [u64; W]) {
        let slots = self.slots.as_ref();
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        if head.wrapping_sub(tail) >= slots.len() {
            // Only the producer writes this counter: a load and a store, no atomic add.
            self.lost.set(self.lost.get().wrapping_add(1));
            return;
        }
        let slot = &slots[head % slots.len()];
        for (field, word) in slot.0.iter().zip(words) {
            field.set(word);
        }
        self.head.store(head.wrapping_add(1), Ordering::Release);
    }

    /// Takes every entry pushed so far, oldest first (consumer only).
    pub fn drain(&self, mut each: impl FnMut([u64; W])) {
        let slots = self.slots.as_ref();
        let head = self.head.load(Ordering::Acquire);
        let mut tail = self.tail.load(Ordering::Relaxed);
        while tail != head {
            let slot = &slots[tail % slots.len()];
            each(core::array::from_fn(|i| slot.0[i].get()));
            tail = tail.wrapping_add(1);
        }
        self.tail.store(tail, Ordering::Release);
    }

    /// Entries that did not fit.
    pub fn lost(&self) -> u64 {
        self.lost.get()
    }

    /// How many entries the ring holds.
    pub fn capacity(&self) -> usize {
        self.slots.as_ref().len()
    }
}

/// A measuring thread's sample stream: (cycle, latency ns, wake-up clock ticks) for `-v`'s
/// lines, `--explain`'s spikes (which need the wake-up on the clock) and the monitor.
#[derive(Debug)]
pub struct SampleRing<S>(Ring<S, 3>);

impl<S: AsRef<[Slot<3>]>> SampleRing<S> {
    /// A ring over `slots`.
    pub const fn new(slots: S) -> Self {
        SampleRing(Ring::new(slots))
    }

    /// Adds a sample (producer only); counts it as lost when the ring is full.
    #[inline]
    pub fn push(&self, cycle: u64, latency_ns: i64, wake_ticks: u64) {
        self.0.push([cycle, latency_ns as u64, wake_ticks]);
    }

    /// Takes every sample pushed so far, oldest first (consumer only): `each(cycle,
    /// latency_ns, wake_ticks)`.
    pub fn drain(&self, mut each: impl FnMut(u64, i64, u64)) {
        self.0
            .drain(|[cycle, latency, wake]| each(cycle, latency as i64, wake));
    }

    /// Samples that did not fit and were not taken.
    pub fn lost(&self) -> u64 {
        self.0.lost()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(capacity: usize) -> SampleRing<Vec<Slot<3>>> {
        SampleRing::new((0..capacity).map(|_| Slot::new()).collect())
    }

    #[test]
    fn full_ring_counts_losses_and_keeps_order() {
        let ring = ring(4);
        for c in 0..6 {
            ring.push(c, c as i64 * 10, c + 100);
        }
        let mut got = Vec::new();
        ring.drain(|c, v, w| {
            assert_eq!(w, c + 100);
            got.push((c, v))
        });
        assert_eq!(got, vec![(0, 0), (1, 10), (2, 20), (3, 30)]);
        assert_eq!(ring.lost(), 2);
        ring.push(6, 60, 106);
        got.clear();
        ring.drain(|c, v, w| {
            assert_eq!(w, c + 100);
            got.push((c, v))
        });
        assert_eq!(got, vec![(6, 60)]);
    }

    #[test]
    fn an_empty_ring_counts_every_push_as_lost() {
        let ring = ring(0);
        ring.push(1, 1, 1);
        ring.drain(|_, _, _| panic!("nothing to drain"));
        assert_eq!(ring.lost(), 1);
    }

    #[test]
    fn concurrent_producer_and_consumer_lose_nothing_they_do_not_count() {
        let ring = std::sync::Arc::new(ring(64));
        let producer = {
            let ring = ring.clone();
            std::thread::spawn(move || {
                for c in 0..100_000u64 {
                    ring.push(c, -(c as i64), c);
                }
            })
        };
        let mut seen = 0u64;
        let mut last = None;
        loop {
            let done = producer.is_finished();
            ring.drain(|c, v, w| {
                assert_eq!((v, w), (-(c as i64), c));
                assert!(last.is_none_or(|l| c > l), "in order");
                last = Some(c);
                seen += 1;
            });
            if done {
                break;
            }
        }
        producer.join().unwrap();
        ring.drain(|_, _, _| seen += 1);
        assert_eq!(
            seen + ring.lost(),
            100_000,
            "every sample is either printed or counted as lost"
        );
    }
}
