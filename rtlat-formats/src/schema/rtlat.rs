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
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub unit: Field<String>,
    /// The thread's TID.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub tid: Field<i64>,
    /// Its real-time priority.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub priority: Field<i64>,
    /// Its interval, µs.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub interval_us: Field<u64>,
    /// Cycles measured.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cycles: Field<Count>,
    /// Smallest latency (`null` without cycles).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub min: Field<Option<Number>>,
    /// Largest latency (`null` without cycles).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<Option<Number>>,
    /// Mean latency (`null` without cycles).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub mean: Field<Option<f64>>,
    /// Standard deviation, from the histogram (`null` without cycles).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub stddev: Field<Option<f64>>,
    /// Missed periods.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub overruns: Field<Option<Count>>,
    /// The cycle of the largest latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max_cycle: Field<Option<u64>>,
    /// `p50`, `p90`, `p99`, `p99.9`, `p99.99` from the histogram.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub percentiles: Field<Entries<Option<i64>>>,
    /// The histogram's bound on a percentile's relative error.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub percentile_relative_error: Field<f64>,
    /// Minor page faults of the measuring thread while it measured.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub minor_page_faults_while_measuring: Field<u64>,
    /// Allocations while measuring.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub allocations_while_measuring: Field<u64>,
    /// `-v` samples that could not be printed.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub lost_verbose_samples: Field<u64>,
    /// Per-second figures.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub seconds: Field<Seconds>,
    /// The log-linear histogram, as rtlat-core serializes it.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub histogram: Field<Histogram>,
    /// What the generic-timer clock's timer did translating deadlines (that clock only).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub deadline_translation: Field<DeadlineTranslation>,
    /// With `--backend xenomai`: the overruns Xenomai itself reported
    /// (`rt_task_wait_period`'s `-ETIMEDOUT` counts), beside rtlat's own count (`overruns`).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub xenomai_overruns: Field<u64>,
    /// With `--smi`: the System Management Interrupts the thread's CPU counted
    /// (`MSR_SMI_COUNT`) from its start to its last wake-up.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub smis: Field<u64>,
    /// With `--explain`: how spikes were looked for (threshold, sampler, tracer).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub explain: Field<Explain>,
    /// With `--explain`: the spikes explained, in the order they happened (the run's
    /// maximum is always among them, marked `max`).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub spikes: Field<Vec<Field<Spike>>>,
    /// With `--timerlat`: the kernel's timerlat tracer's figures on the thread's CPU.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub timerlat: Field<Timerlat>,
}

/// The timerlat tracer's figures on one measuring thread's CPU (`rtlat run --timerlat`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timerlat {
    /// Who the tracer woke: `"user"` (this thread, through `timerlat_fd`) or `"kernel"`
    /// (the tracer's own `timerlat/N` thread on the same CPU, beside this one).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub workload: Field<String>,
    /// The CPU traced.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cpu: Field<u64>,
    /// `osnoise/timerlat_period_us`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub period_us: Field<u64>,
    /// How late the tracer's timer IRQ ran.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub irq: Field<TimerlatPart>,
    /// How late the woken thread ran, in the kernel.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub thread: Field<TimerlatPart>,
    /// How late the thread was back in the kernel at its next `read` (user workload only):
    /// its return to user space and its work there included.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub user: Field<TimerlatPart>,
    /// Events the kernel's ring buffer dropped on this CPU before they were read.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub lost_events: Field<u64>,
    /// With `--explain`: the worst wake-ups, each in parts that add up to its latency (the
    /// `user-ret` latency where the trace has it, else the thread latency), worst first.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub spikes: Field<Vec<Field<TimerlatSpike>>>,
}

/// One wake-up of the timerlat tracer in parts (`rtlat run --timerlat --explain`), ns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimerlatSpike {
    /// The tracer's period count on the CPU.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub seq: Field<u64>,
    /// The thread latency: the whole the parts add up to, unless `user` is larger.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub thread: Field<u64>,
    /// The IRQ latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub irq: Field<u64>,
    /// The return from user space (user workload), when the trace had it: then the whole
    /// the parts add up to (the thread's parts, then its way back to its wait).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub user: Field<Option<u64>>,
    /// The parts.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub parts: Field<Vec<Field<TimerlatSpikePart>>>,
}

/// A part of a wake-up's thread latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimerlatSpikePart {
    /// `irq_delay`, `irq_latency`, `blocking_thread`, `nmi_interference`,
    /// `irq_interference`, `softirq_interference`, `thread_interference` or
    /// `irq_duration_and_switch`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub part: Field<String>,
    /// The IRQ, softirq or thread (`comm:pid`) as the trace names it (empty otherwise).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub name: Field<String>,
    /// How much, ns.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub ns: Field<u64>,
    /// Its share of the wake-up's latency (`user` where present, else `thread`), %.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub percent: Field<f64>,
    /// What to do about it.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub remedy: Field<String>,
    /// The `rtlat audit` check that covers it, if one does.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub audit: Field<Option<String>>,
}

/// One part of the timerlat figures, ns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimerlatPart {
    /// Samples.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub samples: Field<Count>,
    /// Smallest (`null` without samples).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub min: Field<Option<Number>>,
    /// Largest.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<Option<Number>>,
    /// Mean.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub mean: Field<Option<f64>>,
    /// `p50` … `p99.99`, from the log-linear histogram.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub percentiles: Field<Entries<Option<i64>>>,
    /// The log-linear histogram, as rtlat-core serializes it.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub histogram: Field<Histogram>,
}

/// How `--explain` looked for the causes of spikes (one measuring thread).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Explain {
    /// The threshold a latency had to exceed to be explained, ns (`--explain-above`, `-b`,
    /// or the thread's p99.9 as it was known when the latency came).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub threshold_ns: Field<i64>,
    /// Where the threshold came from: `"explain-above"`, `"break"` or `"p99.9"`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub threshold_from: Field<String>,
    /// Latencies above the threshold in all (kept or not).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub above_threshold: Field<u64>,
    /// Those whose record was not kept (only the worst are kept, a bounded number).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub left_off: Field<u64>,
    /// Cycles the explainer did not see (overwritten in its tap before it read them), kept
    /// out of `above_threshold`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub unseen: Field<u64>,
    /// The evidence sampler's period, ns.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub sampler_period_ns: Field<u64>,
    /// The CPUs the sampler ran on (`[]`: any, no CPU was free of measuring threads).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub sampler_cpus: Field<Vec<u64>>,
    /// The osnoise/timerlat tracer path: `"used (osnoise tracer)"`, `"absent: <why>"` (the
    /// kernel has none), or `"not used: <why>"` (it has one but could not take it).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub tracer: Field<String>,
}

/// One explained spike: a latency above the threshold (or the run's maximum) and what
/// happened on its CPU between the previous wake-up and the late one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Spike {
    /// The cycle (from 0).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cycle: Field<u64>,
    /// The latency, ns.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub latency: Field<i64>,
    /// When it woke, seconds since the thread's start (the `seconds` entries' `t`).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub t: Field<Number>,
    /// The late wake-up on `CLOCK_MONOTONIC`, ns.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub wake_ns: Field<u64>,
    /// The CPU it ran on (`null`: unknown).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cpu: Field<Option<u64>>,
    /// Whether it is the thread's largest latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<bool>,
    /// The window the evidence covers, ns on `CLOCK_MONOTONIC`: `[from, to]`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub evidence_ns: Field<Vec<u64>>,
    /// The likely causes, most likely first; `[]`: no cause found (never a guess).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub causes: Field<Vec<Field<SpikeCause>>>,
    /// Why there is no verdict, when there is none (e.g. the evidence was no longer kept).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub unexplained: Field<String>,
}

/// One likely cause of a spike.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpikeCause {
    /// The evidence and its remedy, one line (e.g. `IRQ 24 (enp1s0) fired 3× on CPU 2: move
    /// it with rtlat irq --away-from 2`).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub text: Field<String>,
    /// The `rtlat audit` check that covers it (`null`: none).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub audit: Field<Option<String>>,
    /// The rank key: an estimate of the time taken from the measuring thread, ns, plus a
    /// large boost for events that are never normal.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub score: Field<u64>,
}

/// The run's `"rtlat"` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunExtra {
    /// rtlat's version.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub version: Field<String>,
    /// `"ns"`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub unit: Field<String>,
    /// Missed periods of all threads.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub overruns: Field<u64>,
    /// TID of the thread that broke the run (`-b`), `null` if none.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub break_thread: Field<Option<i64>>,
    /// The run's configuration as rtlat resolved it (see `rtlat run --help`).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub config: Field<Map<String, Value>>,
    /// How the machine was tuned when the run started ([`super::provenance`]).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub provenance: Field<super::provenance::Provenance>,
}

/// rtlat-core's serialized histogram: layout, exact summary, underflow and overflow counts,
/// and the non-empty buckets with inclusive bounds, the underflow and overflow guards
/// included with bounds running to `i64::MIN`/`i64::MAX`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Histogram {
    /// The bucket layout.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub layout: Field<Layout>,
    /// The layout's number of buckets.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub buckets_total: Field<u64>,
    /// Exact count, min, max and sum.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub summary: Field<Summary>,
    /// Values below the first bucket.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub underflow: Field<Count>,
    /// Values beyond the last bucket.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub overflow: Field<Count>,
    /// The non-empty buckets.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub buckets: Field<Vec<Field<Bucket>>>,
}

/// A histogram's layout: `log-linear` with `precision` and `zero`, or `linear` with `low`
/// and `width`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layout {
    /// `"log-linear"` or `"linear"`.
    #[serde(skip_serializing_if = "Field::is_absent")]
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
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub count: Field<u64>,
    /// Smallest.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub min: Field<Option<i64>>,
    /// Largest.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<Option<i64>>,
    /// Sum.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub sum: Field<Number>,
}

/// One bucket, bounds inclusive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bucket {
    /// Low bound, ns.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub low: Field<i64>,
    /// High bound, ns.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub high: Field<i64>,
    /// Values in it.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub count: Field<Count>,
}

/// Per-second figures: `entries` each cover `period_s` seconds (bounded: adjacent entries
/// merge as a long run goes on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Seconds {
    /// Seconds each entry covers.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub period_s: Field<Number>,
    /// The entries, oldest first.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub entries: Field<Vec<Field<Second>>>,
}

/// One entry of [`Seconds`]: latencies in ns, `null` for a window without cycles.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Second {
    /// Start, seconds since the thread's start.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub t: Field<Number>,
    /// Cycles in the window.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cycles: Field<u64>,
    /// Smallest latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub min: Field<Option<i64>>,
    /// Mean latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub avg: Field<Option<i64>>,
    /// Largest latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<Option<i64>>,
    /// Missed periods.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub overruns: Field<u64>,
}

/// The generic-timer clock's deadline translation (to CLOCK_MONOTONIC).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeadlineTranslation {
    /// Wake-ups before the deadline on the measured clock, finished on it.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub early_wakeups: Field<u64>,
    /// CLOCK_MONOTONIC's rate against the measured clock's stated rate, ppm.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub slew_ppm: Field<i64>,
    /// Rate measurements taken.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub calibrations: Field<u64>,
    /// Rate measurements refused.
    #[serde(skip_serializing_if = "Field::is_absent")]
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
    Explain,
    Spike,
    SpikeCause,
    DeadlineTranslation,
    Timerlat,
    TimerlatPart,
    TimerlatSpike,
    TimerlatSpikePart
);

/// The run's configuration as rtlat resolved it: the run object's `config` (written from
/// this type; read back as a list of settings, whatever keys a file's version has).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunConfig {
    /// The measuring threads.
    pub threads: Vec<ThreadConfig>,
    /// `-l`: cycles per thread (0: no limit).
    pub loops: u64,
    /// `-D`: duration, seconds.
    pub duration_s: Option<f64>,
    /// `"abs"` or `"rel"` sleeps.
    pub timer: String,
    /// The clock measured (`CLOCK_MONOTONIC` …).
    pub clock: String,
    /// `-m`: memory locked.
    pub mlockall: bool,
    /// The `/dev/cpu_dma_latency` value held.
    pub cpu_dma_latency_us: Option<u32>,
    /// `-h`: histogram buckets.
    pub histogram_buckets: Option<u32>,
    /// `"us"` or `"ns"` (`-N`).
    pub unit: String,
    /// `-b`: the latency that stops the run, µs.
    pub breaktrace: Option<u64>,
    /// `--fail-above`, µs.
    pub fail_above_us: Option<u64>,
    /// `--backend`: `"linux"` or `"xenomai"`.
    pub backend: String,
    /// With `--backend xenomai`: the Xenomai core (`"mercury"`, `"cobalt"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xenomai_core: Option<String>,
    /// `--profile`: the board profile and its audit (`null` without one).
    pub profile: Option<Profile>,
}

/// One measuring thread of a [`RunConfig`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadConfig {
    /// Its number.
    pub index: u32,
    /// Its CPU.
    pub cpu: usize,
    /// `SCHED_FIFO` …
    pub policy: String,
    /// Its priority.
    pub priority: u8,
    /// Its interval, µs.
    pub interval_us: u64,
}

/// A board profile in a [`RunConfig`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    /// Its name.
    pub name: String,
    /// What board it is.
    pub description: String,
    /// The cpufreq governor held during the run.
    pub governor: String,
    /// The fixed frequency, kHz, if the profile sets one.
    pub frequency_khz: Option<u32>,
    /// The profile's audit checks of the machine.
    pub audit: Vec<super::audit::Finding>,
}
