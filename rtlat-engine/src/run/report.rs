//! What one of `rtlat run`'s measuring threads hands back when it is done: data, formatted
//! by the command line.

use rtlat_core::cycle::Sample;
use rtlat_core::{Summary, SymmetricLogHistogram, SymmetricLogLinear};

use crate::seconds::SecondsSeries;
use crate::timers::TranslationFigures;

/// The log-linear histogram every thread keeps: 64 sub-buckets per octave (≤ 0.78 % error),
/// ±34 s, `u64` counters so a run of any length never saturates. Value 0 sits in the middle
/// of the counters by the layout's type, so a cycle's record finds its counter with one
/// compare and no zero index to load.
pub type RunHistogram = SymmetricLogHistogram<6, 3840, u64>;

/// The layout of every [`RunHistogram`].
pub const RUN_LAYOUT: SymmetricLogLinear<6> = SymmetricLogLinear::new();

/// A new, empty [`RunHistogram`] on the heap (30 KiB).
pub fn new_run_histogram() -> Box<RunHistogram> {
    // The layout is a constant that fits 3840 counters (checked by a test below).
    Box::new(RunHistogram::new(RUN_LAYOUT).unwrap_or_else(|_| unreachable!("checked by test")))
}

/// cyclictest's `-h`/`-H` histogram of one thread: fixed-width buckets from 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinearReport {
    /// Bucket width, ns (1000 for µs buckets, 1 with `-N`).
    pub width_ns: u64,
    /// Count per bucket.
    pub counts: Vec<u64>,
    /// Samples beyond the last bucket, plus those below 0 (cyclictest shows a negative value
    /// wrapped to a huge one, so it lands here too).
    pub overflows: u64,
    /// Of `overflows`, the samples below 0 (early wake-ups).
    pub underflows: u64,
    /// Cycle numbers of the first overflows (as many as there are buckets, like cyclictest).
    pub overflow_cycles: Vec<u64>,
}

impl ThreadReport {
    /// Exact count, min, max and sum of the latencies, ns.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }
}

/// The complete result of one measurement thread.
#[derive(Debug, Clone)]
pub struct ThreadReport {
    /// Thread number (0-based).
    pub index: usize,
    /// Kernel thread id.
    pub tid: i32,
    /// CPU it was pinned to.
    pub cpu: Option<usize>,
    /// RT priority.
    pub priority: i32,
    /// Interval, µs.
    pub interval_us: u64,
    /// The last latency, ns.
    pub last_ns: i64,
    /// Deadlines skipped because a wake-up came more than an interval late.
    pub overruns: u64,
    /// The largest latency and the cycle it happened in.
    pub max_at: Option<(i64, u64)>,
    /// Exact count, min, max and sum of the latencies, ns.
    pub summary: Summary,
    /// Every latency, log-linear, when the run kept it (its output reads percentiles or the
    /// distribution: `--json`, `-h`); its summary is `summary`.
    pub histogram: Option<Box<RunHistogram>>,
    /// cyclictest's fixed-width histogram, when `-h`/`-H` asked for one.
    pub linear: Option<LinearReport>,
    /// The sample that crossed the `-b` threshold, when this thread broke the run.
    pub broke: Option<Sample>,
    /// Minor page faults the thread took while measuring.
    pub minor_faults: u64,
    /// Allocations the thread made while measuring (rtlat's counting allocator).
    pub allocations: u64,
    /// `--spike`: the first latencies above the trigger, with their wake-up time (clock ns).
    pub spikes: Vec<(i64, u64)>,
    /// `--spike`: how many latencies crossed the trigger in all.
    pub spikes_total: u64,
    /// What the timer did translating deadlines to the clock it sleeps on (only the
    /// generic-timer clock's timer translates).
    pub translation: Option<TranslationFigures>,
    /// The overruns the timer's own system reported (Xenomai's), where it counts them.
    pub reported_overruns: Option<u64>,
    /// `--smi`: the System Management Interrupts its CPU counted from the thread's start to
    /// its last wake-up (`None`: not counted).
    pub smis: Option<u64>,
    /// Per-second min/avg/max/overruns, bounded (filled by the main thread from the
    /// thread's window ring; empty when the thread hands its report back).
    pub seconds: SecondsSeries,
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_run_histogram_layout_fits() {
        let h = super::new_run_histogram();
        assert_eq!(h.bucket_count(), 3838);
        assert!(
            h.bucket(3837).unwrap().high >= 10_000_000_000,
            "covers 10 s"
        );
    }
}
