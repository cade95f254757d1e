//! The spikes `rtlat run --explain` explained, as read back from its `--json` file: one type
//! for the reader that makes them ([`crate::rtlat_json`]), `rtlat compare` that prints them
//! and writes them in its `--json` document (under `files[].explained`, in this type's serde
//! form: every key present, `null` where the run file does not say) and `rtlat plot` that
//! marks them. The run file's own objects, lenient when read, are
//! [`rtlat::Explain`](super::rtlat::Explain) and [`rtlat::Spike`](super::rtlat::Spike).

use serde::Serialize;

/// How `rtlat run --explain` looked for the causes of a thread's spikes (its
/// `thread.N.rtlat.explain` object); each fact `None` where the file does not state it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExplainRecord {
    /// The latency a spike had to exceed to be explained, ns.
    pub threshold_ns: Option<i64>,
    /// Where that threshold came from: `explain-above`, `break` or `p99.9`.
    pub threshold_from: Option<String>,
    /// Latencies above the threshold in all, their records kept or not.
    pub above_threshold: Option<u64>,
    /// Those whose record was not kept (only the worst are).
    pub left_off: Option<u64>,
    /// Latencies the explainer did not see (its sample stream was full).
    pub unseen: Option<u64>,
    /// The evidence sampler's period, ns.
    pub sampler_period_ns: Option<u64>,
    /// The CPUs the sampler ran on (empty: any).
    pub sampler_cpus: Option<Vec<u64>>,
    /// The osnoise/timerlat tracer path: `used`, or `absent: <why>`.
    pub tracer: Option<String>,
}

/// One spike `rtlat run --explain` explained: a latency above the threshold (or the
/// thread's largest) and its likely causes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpikeRecord {
    /// The cycle (from 0), where the file states it.
    pub cycle: Option<u64>,
    /// The latency, ns (`latency_ns` in `rtlat compare --json`).
    #[serde(rename = "latency_ns")]
    pub latency: i64,
    /// When it woke, seconds since the thread's start (as the per-second entries' `t`;
    /// `t_s` in `rtlat compare --json`).
    #[serde(rename = "t_s")]
    pub t: f64,
    /// The CPU it ran on, where known.
    pub cpu: Option<u64>,
    /// Whether it is the thread's largest latency.
    pub max: bool,
    /// The likely causes, most likely first: `Some(empty)` when none was found, `None` when
    /// the file gives no list.
    pub causes: Option<Vec<CauseRecord>>,
    /// Why there is no verdict, when there is none.
    pub unexplained: Option<String>,
}

/// One wake-up `rtlat run --timerlat --explain` split into the tracer's parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimerlatSpikeRecord {
    /// The tracer's period count on the CPU, where the file states it.
    pub seq: Option<u64>,
    /// The thread latency, ns.
    pub thread_ns: u64,
    /// The IRQ latency, ns, where stated.
    pub irq_ns: Option<u64>,
    /// The return from user space, ns, where the trace had it.
    pub user_ns: Option<u64>,
    /// The parts, as the file lists them (IRQ ones first, then the interference largest
    /// first, the remainder last); they add up to [`TimerlatSpikeRecord::whole_ns`].
    pub parts: Vec<TimerlatPartRecord>,
}

impl TimerlatSpikeRecord {
    /// The whole the parts add up to: the `user-ret` latency where stated (a thread held up
    /// on its way back to its wait), else the thread latency.
    pub fn whole_ns(&self) -> u64 {
        self.user_ns
            .map_or(self.thread_ns, |u| u.max(self.thread_ns))
    }
}

/// One part of a [`TimerlatSpikeRecord`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimerlatPartRecord {
    /// `irq_latency`, `blocking_thread`, `thread_interference`, …
    pub part: String,
    /// The IRQ, softirq or thread as the trace names it (empty otherwise).
    pub name: String,
    /// How much, ns.
    pub ns: u64,
}

/// One likely cause of a [`SpikeRecord`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CauseRecord {
    /// The evidence and its remedy, one line.
    pub text: String,
    /// The `rtlat audit` check that covers it, if one does.
    pub audit: Option<String>,
    /// The rank key (an estimate of the time taken from the thread, ns, plus a boost for
    /// events that are never normal), where the file states it.
    pub score: Option<u64>,
}
