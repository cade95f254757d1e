//! `rtlat noise --json`: oslat's JSON (rt-tests 2.40) with its keys and meanings, and an
//! `"rtlat"` object per thread with the exact figures in ns. oslat's values are its own µs:
//! a gap counts as its whole µs plus one (a gap under 1 µs is 1), so `min` is 1 on any
//! machine whose loop is faster than 1 µs; `rtlat` has the gaps as measured.

use serde::Serialize;

use super::Entries;
use super::cyclictest::Sysinfo;

/// The whole document, keys in oslat's order (two end in a colon, as rt-tests writes them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// 1.
    pub file_version: u64,
    /// The command line, argv joined by spaces.
    #[serde(rename = "cmdline:")]
    pub cmdline: String,
    /// The rt-tests release whose layout this is (`"2.40"`).
    #[serde(rename = "rt_test_version:")]
    pub rt_test_version: String,
    /// Start, RFC 2822 local time.
    pub start_time: String,
    /// End, RFC 2822 local time.
    pub end_time: String,
    /// The exit status.
    pub return_code: i32,
    /// uname's fields.
    pub sysinfo: Sysinfo,
    /// How many polling threads.
    pub num_threads: u64,
    /// The threads by number (`"0"`, `"1"` …).
    pub thread: Entries<Thread>,
    /// rtlat's figures for the run.
    pub rtlat: RunExtra,
}

/// One polling thread, in oslat's µs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thread {
    /// Its CPU.
    pub cpu: u64,
    /// The counter's rate, MHz (rtlat reads `CLOCK_MONOTONIC`: 1000).
    pub freq: u64,
    /// The smallest gap, oslat's µs.
    pub min: u64,
    /// The mean of the gaps' oslat µs.
    pub avg: f64,
    /// The largest gap, oslat's µs.
    pub max: u64,
    /// Seconds polled.
    pub duration: f64,
    /// `{"µs": count}`, the non-empty buckets; the last bucket holds every longer gap.
    pub histogram: Entries<u64>,
    /// The same gaps, exact.
    pub rtlat: ThreadExtra,
}

/// A thread's gaps as measured, ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadExtra {
    /// `"ns"`.
    pub unit: String,
    /// Gaps recorded (loop steps).
    pub gaps: u64,
    /// The smallest gap: the loop's own step.
    pub min: Option<i64>,
    /// The mean gap.
    pub mean: Option<f64>,
    /// The largest gap.
    pub max: Option<i64>,
    /// Percentiles 50, 99, 99.9, 99.99, 99.999 (within 0.8 %).
    pub percentiles: Entries<Option<i64>>,
    /// Gaps above the threshold (`--threshold`).
    pub spikes: u64,
    /// Their sum.
    pub spike_total: u64,
    /// The share of the time polled that went to those gaps, 0..1.
    pub spike_share: f64,
    /// The thread's kernel id.
    pub tid: i32,
    /// Allocations while polling (always 0).
    pub allocations: u64,
}

/// The run as a whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunExtra {
    /// rtlat's version.
    pub version: String,
    /// `"noise"`.
    pub command: String,
    /// The spike threshold, ns.
    pub threshold_ns: u64,
    /// `--fail-above`, ns (`null`: not given).
    pub fail_above_ns: Option<u64>,
    /// `"SCHED_FIFO"` or `"SCHED_OTHER"`.
    pub policy: String,
    /// The real-time priority (0 for SCHED_OTHER).
    pub priority: i32,
}
