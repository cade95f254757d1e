//! Xenomai `latency`'s "seconds": not wall-clock seconds but `1e9 / period` wake-ups each
//! (Xenomai's `nsamples`, integer division). A wake-up that comes more than a period late
//! is one sample (its latency measured from the first deadline it missed) and the deadlines
//! it skipped are counted as overruns, so a second with overruns lasts longer than a
//! second. The warm-up second is counted the same way.
//!
//! [`SampleSeconds`] lives in the sampling thread: per wake-up a count, a sum, two compares
//! and the overruns; when the count reaches `nsamples`, the window goes into the
//! [`WindowRing`] the main thread drains (no waiting, no allocation).

use rtlat_core::Sample;

use crate::cli::run::seconds::{SECOND_NS, Window, WindowRing};

/// Wake-ups in one of Xenomai's seconds at `period_ns` (at least 1).
pub fn samples_per_second(period_ns: u64) -> u64 {
    (SECOND_NS / period_ns.max(1)).max(1)
}

/// Cuts the run into windows of `nsamples` wake-ups: window 0 is the warm-up second.
#[derive(Debug, Clone)]
pub struct SampleSeconds {
    nsamples: u64,
    index: u64,
    count: u64,
    sum: i128,
    min: i64,
    max: i64,
    overruns: u64,
}

impl SampleSeconds {
    /// Windows of `nsamples` wake-ups (at least 1).
    pub fn new(nsamples: u64) -> Self {
        SampleSeconds {
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
    pub fn record(&mut self, sample: &Sample, ring: &WindowRing) {
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

    fn push(&mut self, complete: bool, ring: &WindowRing) {
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
    pub fn finish(&mut self, ring: &WindowRing) {
        if self.count > 0 {
            self.push(false, ring);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(latency_ns: i64, overruns: u64) -> Sample {
        Sample {
            cycle: 0,
            latency_ns,
            overruns,
            wake_ticks: 0,
        }
    }

    #[test]
    fn a_second_is_nsamples_wake_ups_whatever_the_overruns() {
        assert_eq!(samples_per_second(100_000), 10_000);
        assert_eq!(samples_per_second(300_000), 3333);
        assert_eq!(samples_per_second(1_000_000_000), 1);
        let ring = WindowRing::new(8);
        let mut s = SampleSeconds::new(3);
        // Warm-up: three wake-ups, one of them two periods late.
        for (l, o) in [(5, 0), (2_500, 2), (7, 0)] {
            s.record(&sample(l, o), &ring);
        }
        assert_eq!(s.index(), 1);
        for (l, o) in [(-4, 0), (10, 0), (9, 0), (1, 1)] {
            s.record(&sample(l, o), &ring);
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
