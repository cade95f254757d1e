//! rtlat's objects in its `--json` file: one `"rtlat"` object per thread after cyclictest's
//! keys ([`ThreadExtra`]) and one for the run after `"thread"` ([`RunExtra`]). Everything in
//! ns.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::{Count, Entries, Field, objects};

/// A thread's `"rtlat"` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThreadExtra {
    /// `"ns"`.
    pub unit: Field<String>,
    /// The thread's TID.
    pub tid: Field<i64>,
    /// Its real-time priority.
    pub priority: Field<i64>,
    /// Its interval, µs.
    pub interval_us: Field<u64>,
    /// Cycles measured.
    pub cycles: Field<Count>,
    /// Smallest latency (`null` without cycles).
    pub min: Field<Option<Number>>,
    /// Largest latency (`null` without cycles).
    pub max: Field<Option<Number>>,
    /// Mean latency (`null` without cycles).
    pub mean: Field<Option<f64>>,
    /// Standard deviation, from the histogram (`null` without cycles).
    pub stddev: Field<Option<f64>>,
    /// Missed periods.
    pub overruns: Field<Option<Count>>,
    /// The cycle of the largest latency.
    pub max_cycle: Field<Option<u64>>,
    /// `p50`, `p90`, `p99`, `p99.9`, `p99.99` from the histogram.
    pub percentiles: Field<Entries<Option<i64>>>,
    /// The histogram's bound on a percentile's relative error.
    pub percentile_relative_error: Field<f64>,
    /// Minor page faults of the measuring thread while it measured.
    pub minor_page_faults_while_measuring: Field<u64>,
    /// Allocations while measuring.
    pub allocations_while_measuring: Field<u64>,
    /// `-v` samples that could not be printed.
    pub lost_verbose_samples: Field<u64>,
    /// Per-second figures.
    pub seconds: Field<Seconds>,
    /// The log-linear histogram, as rtlat-core serializes it.
    pub histogram: Field<Histogram>,
    /// What the generic-timer clock's timer did translating deadlines (that clock only).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub deadline_translation: Field<DeadlineTranslation>,
}

/// The run's `"rtlat"` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunExtra {
    /// rtlat's version.
    pub version: Field<String>,
    /// `"ns"`.
    pub unit: Field<String>,
    /// Missed periods of all threads.
    pub overruns: Field<u64>,
    /// TID of the thread that broke the run (`-b`), `null` if none.
    pub break_thread: Field<Option<i64>>,
    /// The run's configuration as rtlat resolved it (see `rtlat run --help`).
    pub config: Field<Map<String, Value>>,
}

/// rtlat-core's serialized histogram: layout, exact summary, underflow and overflow counts,
/// and the non-empty buckets with inclusive bounds, the underflow and overflow guards
/// included with bounds running to `i64::MIN`/`i64::MAX`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Histogram {
    /// The bucket layout.
    pub layout: Field<Layout>,
    /// The layout's number of buckets.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub buckets_total: Field<u64>,
    /// Exact count, min, max and sum.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub summary: Field<Summary>,
    /// Values below the first bucket.
    pub underflow: Field<Count>,
    /// Values beyond the last bucket.
    pub overflow: Field<Count>,
    /// The non-empty buckets.
    pub buckets: Field<Vec<Field<Bucket>>>,
}

/// A histogram's layout: `log-linear` with `precision` and `zero`, or `linear` with `low`
/// and `width`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layout {
    /// `"log-linear"` or `"linear"`.
    pub kind: Field<String>,
    /// Log-linear: sub-buckets per octave, as a power of two.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub precision: Field<Count>,
    /// Log-linear: the value of bucket zero.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub zero: Field<i64>,
    /// Linear: the first bucket's low bound.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub low: Field<i64>,
    /// Linear: the buckets' width.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub width: Field<Count>,
}

/// A histogram's exact summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// Values recorded.
    pub count: Field<u64>,
    /// Smallest.
    pub min: Field<Option<i64>>,
    /// Largest.
    pub max: Field<Option<i64>>,
    /// Sum.
    pub sum: Field<Number>,
}

/// One bucket, bounds inclusive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bucket {
    /// Low bound, ns.
    pub low: Field<i64>,
    /// High bound, ns.
    pub high: Field<i64>,
    /// Values in it.
    pub count: Field<Count>,
}

/// Per-second figures: `entries` each cover `period_s` seconds (bounded: adjacent entries
/// merge as a long run goes on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Seconds {
    /// Seconds each entry covers.
    pub period_s: Field<Number>,
    /// The entries, oldest first.
    pub entries: Field<Vec<Field<Second>>>,
}

/// One entry of [`Seconds`]: latencies in ns, `null` for a window without cycles.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Second {
    /// Start, seconds since the thread's start.
    pub t: Field<Number>,
    /// Cycles in the window.
    pub cycles: Field<u64>,
    /// Smallest latency.
    pub min: Field<Option<i64>>,
    /// Mean latency.
    pub avg: Field<Option<i64>>,
    /// Largest latency.
    pub max: Field<Option<i64>>,
    /// Missed periods.
    pub overruns: Field<u64>,
}

/// The generic-timer clock's deadline translation (to CLOCK_MONOTONIC).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeadlineTranslation {
    /// Wake-ups before the deadline on the measured clock, finished on it.
    pub early_wakeups: Field<u64>,
    /// CLOCK_MONOTONIC's rate against the measured clock's stated rate, ppm.
    pub slew_ppm: Field<i64>,
    /// Rate measurements taken.
    pub calibrations: Field<u64>,
    /// Rate measurements refused.
    pub refused: Field<u64>,
}

objects!(
    ThreadExtra,
    RunExtra,
    Histogram,
    Layout,
    Summary,
    Bucket,
    Seconds,
    Second,
    DeadlineTranslation
);
