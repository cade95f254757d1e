//! Busy-poll noise: the gaps between consecutive reads of a clock by a loop that does nothing
//! else (oslat's measurement, and hwlat's with interrupts off). Every gap longer than the
//! loop's own step is time the CPU spent elsewhere: an interrupt, another task, an SMI, a
//! hypervisor exit.
//!
//! [`Gaps`] is the loop's state: the last reading, and the spikes (gaps above a threshold)
//! with their total. Each gap also goes to a [`Record`] of the caller's (a histogram, a
//! [`Summary`](crate::Summary)). No allocation, no division, one predictable branch.
//!
//! ```
//! use rtlat_core::{Summary, gaps::Gaps};
//!
//! let mut summary = Summary::new();
//! let mut gaps = Gaps::new(1_000, 500);
//! for now in [1_030, 1_060, 2_060, 2_090] {
//!     gaps.poll(now, &mut summary);
//! }
//! assert_eq!(summary.max(), Some(1_000));
//! assert_eq!((gaps.spikes(), gaps.spike_total_ns()), (1, 1_000));
//! ```

use crate::stats::Record;

/// The state of a polling loop: its last clock reading and the gaps above the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gaps {
    last_ns: u64,
    threshold_ns: u64,
    spikes: u64,
    spike_total_ns: u64,
}

impl Gaps {
    /// A loop that read `start_ns` first; gaps longer than `threshold_ns` are spikes.
    pub const fn new(start_ns: u64, threshold_ns: u64) -> Gaps {
        Gaps {
            last_ns: start_ns,
            threshold_ns,
            spikes: 0,
            spike_total_ns: 0,
        }
    }

    /// The loop read `now_ns`: the gap since the last reading, recorded into `record` and
    /// counted as a spike when above the threshold. A reading earlier than the last (a clock
    /// that went backwards) is a gap of 0; a gap above `i64::MAX` ns is recorded as
    /// `i64::MAX`.
    #[inline(always)]
    pub fn poll<R: Record + ?Sized>(&mut self, now_ns: u64, record: &mut R) -> u64 {
        let gap = now_ns.saturating_sub(self.last_ns);
        self.last_ns = now_ns;
        record.record(gap.min(i64::MAX as u64) as i64);
        if gap > self.threshold_ns {
            self.spike(gap);
        }
        gap
    }

    #[cold]
    #[inline(never)]
    fn spike(&mut self, gap: u64) {
        self.spikes += 1;
        self.spike_total_ns = self.spike_total_ns.saturating_add(gap);
    }

    /// Starts again from `now_ns` after a pause that is not measured (hwnoise's part of each
    /// window that does not sample): the next gap is counted from there.
    pub fn resume(&mut self, now_ns: u64) {
        self.last_ns = now_ns;
    }

    /// The last reading.
    pub const fn last_ns(&self) -> u64 {
        self.last_ns
    }

    /// The threshold: gaps above it are spikes.
    pub const fn threshold_ns(&self) -> u64 {
        self.threshold_ns
    }

    /// How many gaps were above the threshold.
    pub const fn spikes(&self) -> u64 {
        self.spikes
    }

    /// The sum of the gaps above the threshold, ns (saturating).
    pub const fn spike_total_ns(&self) -> u64 {
        self.spike_total_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Summary;
    use proptest::prelude::*;

    #[test]
    fn a_gap_at_the_threshold_is_not_a_spike_one_above_is() {
        let mut summary = Summary::new();
        let mut gaps = Gaps::new(0, 100);
        assert_eq!(gaps.poll(100, &mut summary), 100);
        assert_eq!(gaps.spikes(), 0);
        assert_eq!(gaps.poll(201, &mut summary), 101);
        assert_eq!((gaps.spikes(), gaps.spike_total_ns()), (1, 101));
        assert_eq!(summary.count(), 2);
    }

    #[test]
    fn a_clock_going_back_is_a_zero_gap_and_a_huge_one_saturates() {
        let mut summary = Summary::new();
        let mut gaps = Gaps::new(1_000, u64::MAX);
        assert_eq!(gaps.poll(900, &mut summary), 0);
        assert_eq!(gaps.last_ns(), 900);
        let mut gaps = Gaps::new(0, 0);
        gaps.poll(u64::MAX, &mut summary);
        gaps.poll(u64::MAX, &mut summary);
        assert_eq!(summary.max(), Some(i64::MAX));
        assert_eq!(gaps.spike_total_ns(), u64::MAX);
        assert_eq!(gaps.spikes(), 1, "the zero gap after it is no spike");
    }

    #[test]
    fn resuming_skips_the_pause() {
        let mut summary = Summary::new();
        let mut gaps = Gaps::new(0, 50);
        gaps.poll(10, &mut summary);
        gaps.resume(1_000_000);
        assert_eq!(gaps.poll(1_000_020, &mut summary), 20);
        assert_eq!(gaps.spikes(), 0);
        assert_eq!(summary.max(), Some(20));
    }

    proptest! {
        #[test]
        fn the_gaps_add_up_to_the_span_and_spikes_are_those_above(
            start in 0u64..1 << 40,
            steps in proptest::collection::vec(0u64..1 << 20, 0..200),
            threshold in 0u64..1 << 20,
        ) {
            let mut summary = Summary::new();
            let mut gaps = Gaps::new(start, threshold);
            let mut now = start;
            for step in &steps {
                now += step;
                prop_assert_eq!(gaps.poll(now, &mut summary), *step);
            }
            prop_assert_eq!(summary.sum(), (now - start) as i128);
            prop_assert_eq!(summary.count(), steps.len() as u64);
            let above: Vec<u64> = steps.iter().copied().filter(|s| *s > threshold).collect();
            prop_assert_eq!(gaps.spikes(), above.len() as u64);
            prop_assert_eq!(gaps.spike_total_ns(), above.iter().sum::<u64>());
        }
    }
}
