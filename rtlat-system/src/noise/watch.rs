//! The spike watch: one measuring thread's samples in, a record of each spike out, explained
//! while its evidence is still in the [sampler](super::sampler)'s ring (`rtlat run --explain`).
//!
//! The measuring loop never calls this. It stores each cycle's wake-up (one store: rtlat-engine
//! `tap`), and a non-real-time thread reads every cycle's (cycle, latency, wake-up) back from
//! there into [`SpikeWatch::observe`] and calls
//! [`SpikeWatch::settle`] every few milliseconds: each latency above the threshold (and each
//! new maximum) waits there until the sampler has sampled past its wake-up, then is explained
//! against the intervals around it ([`explain`]). The sampler keeps
//! 2 s of intervals, so a spike is explained within about 2 s of happening, and a run of any
//! length keeps a record for each spike (the worst [`SpikeWatch::new`]'s `nodes` of them)
//! and always for its maximum.
//!
//! The threshold is `--explain-above`, or `-b`'s value, or else the thread's p99.9 as known
//! when the latency came (from 1 000 samples on; before that only new maxima are explained).

use std::cell::RefCell;
use std::time::{Duration, Instant};

use rtlat_core::{LogHistogram, LogLinear};

use super::sampler::Sampler;
use super::verdict::{Cause, Spike, explain};

/// Samples before the running p99.9 is used as the threshold.
pub const P999_AFTER: u64 = 1_000;
/// Spikes waiting for the sampler at most (more are counted as left off).
const PENDING_MAX: usize = 4_096;

/// Where a spike's threshold comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    /// A fixed threshold, ns (`--explain-above`).
    ExplainAbove(i64),
    /// A fixed threshold, ns (`-b`).
    Break(i64),
    /// The thread's p99.9 as known when the latency came.
    P999,
}

impl Threshold {
    /// Its name in the run's JSON: `"explain-above"`, `"break"` or `"p99.9"`.
    pub fn name(self) -> &'static str {
        match self {
            Threshold::ExplainAbove(_) => "explain-above",
            Threshold::Break(_) => "break",
            Threshold::P999 => "p99.9",
        }
    }
}

/// The measuring thread a watch follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchedThread {
    /// The CPU it is pinned to (`None`: it may run anywhere; each spike's CPU is then the
    /// one the sampler saw it on).
    pub cpu: Option<usize>,
    /// Its thread id.
    pub tid: u32,
    /// Its interval, ns.
    pub interval_ns: u64,
}

/// What is known of one spike's cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The likely causes, most likely first (empty: no cause found).
    Causes(Vec<Cause>),
    /// No verdict, and why (e.g. the evidence was no longer kept).
    Unexplained(String),
}

/// One spike's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpikeRecord {
    /// Its cycle (from 0).
    pub cycle: u64,
    /// Its latency, ns.
    pub latency_ns: i64,
    /// The late wake-up, ns on `CLOCK_MONOTONIC`.
    pub wake_ns: u64,
    /// The window the evidence covers, ns on `CLOCK_MONOTONIC` (the previous deadline to
    /// the late wake-up).
    pub window_ns: (u64, u64),
    /// The CPU it woke on, when known.
    pub cpu: Option<usize>,
    /// Whether it is the thread's largest latency.
    pub max: bool,
    /// What is known of its cause.
    pub verdict: Verdict,
}

impl SpikeRecord {
    /// The causes (empty when there is no verdict or no cause was found).
    pub fn causes(&self) -> &[Cause] {
        match &self.verdict {
            Verdict::Causes(causes) => causes,
            Verdict::Unexplained(_) => &[],
        }
    }
}

/// One thread's spikes at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Findings {
    /// The threshold's source.
    pub threshold: Threshold,
    /// The threshold at the end, ns (`None`: never known, fewer than [`P999_AFTER`]
    /// samples).
    pub threshold_ns: Option<i64>,
    /// Latencies above the threshold (as known when each came), kept or not.
    pub above_threshold: u64,
    /// Spikes above the threshold whose record was not kept.
    pub left_off: u64,
    /// Cycles the watch did not see (overwritten in the tap before they were read).
    pub unseen: u64,
    /// The records kept, in the order the spikes happened; the maximum is among them.
    pub spikes: Vec<SpikeRecord>,
}

#[derive(Debug, Clone, Copy)]
struct Candidate {
    cycle: u64,
    latency_ns: i64,
    wake_ns: u64,
    /// Above the threshold (not only a new maximum).
    above: bool,
}

/// One measuring thread's spike watch (see the module docs).
#[derive(Debug)]
pub struct SpikeWatch {
    thread: WatchedThread,
    threshold: Threshold,
    /// The threshold now (`i64::MAX`: not known yet).
    threshold_ns: i64,
    nodes: usize,
    histogram: Box<LogHistogram<6, 3840, u64>>,
    seen: u64,
    /// The largest latency seen and its cycle.
    max: Option<(i64, u64)>,
    pending: Vec<Candidate>,
    kept: Vec<SpikeRecord>,
    /// The record of the largest latency when it is not above the threshold.
    max_record: Option<SpikeRecord>,
    above: u64,
    left_off: u64,
    origin_ns: Option<u64>,
    /// The last verdict and what it was made from (see `record`).
    last_verdict: RefCell<Option<(VerdictKey, Vec<Cause>)>>,
}

/// The evidence's span, the CPU and the latency's power of two.
type VerdictKey = ((u64, u64), usize, u32);

impl SpikeWatch {
    /// A watch of `thread`, keeping the records of the worst `nodes` spikes above
    /// `threshold` (at least 1) and of the maximum.
    pub fn new(thread: WatchedThread, threshold: Threshold, nodes: usize) -> SpikeWatch {
        let layout = LogLinear::symmetric(3840);
        let histogram = LogHistogram::new(layout)
            .unwrap_or_else(|_| unreachable!("the layout is a constant that fits"));
        SpikeWatch {
            thread,
            threshold,
            threshold_ns: match threshold {
                Threshold::ExplainAbove(ns) | Threshold::Break(ns) => ns,
                Threshold::P999 => i64::MAX,
            },
            nodes: nodes.max(1),
            histogram: Box::new(histogram),
            seen: 0,
            max: None,
            pending: Vec::with_capacity(64),
            kept: Vec::new(),
            max_record: None,
            above: 0,
            left_off: 0,
            origin_ns: None,
            last_verdict: RefCell::new(None),
        }
    }

    /// The thread's start (its first deadline minus one interval), ns on `CLOCK_MONOTONIC`,
    /// once a sample came.
    pub fn origin_ns(&self) -> Option<u64> {
        self.origin_ns
    }

    /// The thread it follows.
    pub fn thread(&self) -> WatchedThread {
        self.thread
    }

    /// Takes one sample: its cycle, latency (ns) and wake-up (ns on `CLOCK_MONOTONIC`).
    pub fn observe(&mut self, cycle: u64, latency_ns: i64, wake_ns: u64) {
        if self.origin_ns.is_none() {
            // The schedule's start: cycle k's deadline is start + (k + 1)·interval while no
            // deadline was skipped (the first cycle seen is cycle 0 unless it was overwritten).
            let deadline = wake_ns.saturating_add_signed(latency_ns.saturating_neg());
            self.origin_ns = Some(
                deadline.saturating_sub(
                    cycle
                        .saturating_add(1)
                        .saturating_mul(self.thread.interval_ns),
                ),
            );
        }
        self.seen += 1;
        self.histogram.record(latency_ns);
        let above = latency_ns > self.threshold_ns;
        let new_max = self.max.is_none_or(|(max, _)| latency_ns > max);
        if new_max {
            self.max = Some((latency_ns, cycle));
        }
        if above {
            self.above += 1;
        }
        if !(above || new_max) {
            return;
        }
        if self.pending.len() >= PENDING_MAX {
            // The sampler is far behind (or gone): a new maximum takes the place of the
            // smallest one waiting rather than being lost.
            let Some((at, smallest)) = self
                .pending
                .iter()
                .enumerate()
                .min_by_key(|(_, c)| c.latency_ns)
                .map(|(i, c)| (i, *c))
            else {
                return;
            };
            if latency_ns <= smallest.latency_ns {
                self.left_off += u64::from(above);
                return;
            }
            self.left_off += u64::from(smallest.above);
            self.pending.remove(at);
        }
        self.pending.push(Candidate {
            cycle,
            latency_ns,
            wake_ns,
            above,
        });
    }

    /// Explains the spikes whose wake-up the sampler has sampled past; updates the p99.9
    /// threshold. Call every few milliseconds (each call scans `sampler`'s ring once per
    /// spike explained).
    pub fn settle(&mut self, sampler: &Sampler) {
        self.settle_within(sampler, Duration::MAX);
    }

    /// [`settle`](Self::settle) for at most about `budget` of this thread's time: the
    /// caller holds the sampler, which cannot sample meanwhile. What is left waits for the
    /// next call (its evidence stays for about 2 s).
    pub fn settle_within(&mut self, sampler: &Sampler, budget: Duration) {
        let started = Instant::now();
        if self.threshold == Threshold::P999 && self.seen >= P999_AFTER {
            self.threshold_ns = self.histogram.percentile(99.9).unwrap_or(i64::MAX);
        }
        let sampled_to = sampler.ring().iter().last().map_or(0, |i| i.end_ns);
        let ready: Vec<Candidate> = {
            let (ready, waiting): (Vec<Candidate>, Vec<Candidate>) =
                self.pending.iter().partition(|c| c.wake_ns <= sampled_to);
            self.pending = waiting;
            ready
        };
        let mut ready = ready.into_iter();
        for candidate in ready.by_ref() {
            let record = self.record(candidate, Some(sampler));
            self.keep(candidate, record);
            if started.elapsed() >= budget {
                break;
            }
        }
        // Out of time: the rest waits, oldest first.
        let mut rest: Vec<Candidate> = ready.collect();
        rest.append(&mut self.pending);
        self.pending = rest;
    }

    /// The record of one sample explained now, whatever the threshold and apart from the
    /// watch's own records (e.g. `rtlat monitor --explain`'s window maxima: the largest
    /// latency of a window need not be the thread's); `None` while `sampler` has not yet
    /// sampled past its wake-up (ask again later; its evidence is kept about 2 s).
    pub fn explain_now(
        &self,
        cycle: u64,
        latency_ns: i64,
        wake_ns: u64,
        sampler: &Sampler,
    ) -> Option<SpikeRecord> {
        let sampled_to = sampler.ring().iter().last().map_or(0, |i| i.end_ns);
        if wake_ns > sampled_to {
            return None;
        }
        let candidate = Candidate {
            cycle,
            latency_ns,
            wake_ns,
            above: false,
        };
        Some(self.record(candidate, Some(sampler)))
    }

    /// The findings once the run is over: `sampler` has sampled once more after the last
    /// cycle; `max` is the engine's own (latency, cycle) of the thread's largest latency,
    /// which is marked (and recorded as unexplained if the watch never saw it); `unseen` is
    /// the count of cycles the reader lost.
    pub fn finish(mut self, sampler: &Sampler, max: Option<(i64, u64)>, unseen: u64) -> Findings {
        self.settle(sampler);
        // Whatever still waits: the sampler never passed its wake-up.
        for candidate in std::mem::take(&mut self.pending) {
            let record = self.record(candidate, None);
            self.keep(candidate, record);
        }
        if let Some(record) = self.max_record.take() {
            self.kept.push(record);
        }
        let mut spikes = self.kept;
        if let Some((latency_ns, cycle)) = max {
            match spikes.iter_mut().find(|r| r.cycle == cycle) {
                Some(record) => record.max = true,
                None => {
                    // Not seen (the tap was overwritten first): the maximum still has its
                    // record, its wake-up placed on the schedule from its cycle (exact unless
                    // deadlines were skipped before it), with no evidence window.
                    let wake_ns = self.origin_ns.map_or(0, |origin| {
                        origin
                            .saturating_add(
                                cycle
                                    .saturating_add(1)
                                    .saturating_mul(self.thread.interval_ns),
                            )
                            .saturating_add_signed(latency_ns)
                    });
                    spikes.push(SpikeRecord {
                        cycle,
                        latency_ns,
                        wake_ns,
                        window_ns: (0, 0),
                        cpu: self.thread.cpu,
                        max: true,
                        verdict: Verdict::Unexplained(
                            "the spike watch did not see this cycle (the tap was overwritten before it was read)"
                                .into(),
                        ),
                    });
                }
            }
            // Only the engine's maximum is marked.
            for record in spikes.iter_mut() {
                record.max = record.cycle == cycle;
            }
        }
        spikes.sort_by_key(|r| r.cycle);
        Findings {
            threshold: self.threshold,
            threshold_ns: (self.threshold_ns != i64::MAX).then_some(self.threshold_ns),
            above_threshold: self.above,
            left_off: self.left_off,
            unseen,
            spikes,
        }
    }

    /// The record of `candidate`, explained from `sampler`'s ring when it still holds the
    /// spike's window.
    fn record(&self, candidate: Candidate, sampler: Option<&Sampler>) -> SpikeRecord {
        let mut spike = Spike::of_wake(
            self.thread.cpu.unwrap_or(usize::MAX),
            Some(self.thread.tid),
            candidate.wake_ns,
            candidate.latency_ns,
            self.thread.interval_ns,
        );
        let window_ns = (spike.previous_wake_ns, spike.wake_ns);
        let mut record = SpikeRecord {
            cycle: candidate.cycle,
            latency_ns: candidate.latency_ns,
            wake_ns: candidate.wake_ns,
            window_ns,
            cpu: self.thread.cpu,
            max: false,
            verdict: Verdict::Unexplained(String::new()),
        };
        let Some(sampler) = sampler else {
            record.verdict = Verdict::Unexplained(
                "the run ended before the sampler sampled past this wake-up".into(),
            );
            return record;
        };
        let ring = sampler.ring();
        let oldest = ring.iter().next().map_or(u64::MAX, |i| i.start_ns);
        if oldest > spike.previous_wake_ns {
            record.verdict = Verdict::Unexplained(format!(
                "the evidence was no longer kept (the sampler keeps the last {} intervals; \
                 this spike was explained too late)",
                ring.capacity()
            ));
            return record;
        }
        if self.thread.cpu.is_none() {
            // Unpinned: the CPU the sampler saw the thread on at the end of the window.
            let seen_on = ring
                .iter()
                .filter(|i| i.overlaps(spike.wake_ns, spike.wake_ns + 1))
                .flat_map(|i| i.threads.iter())
                .find(|t| t.tid == self.thread.tid)
                .and_then(|t| t.cpu_after);
            match seen_on {
                Some(cpu) => {
                    spike.cpu = cpu as usize;
                    record.cpu = Some(cpu as usize);
                }
                None => {
                    record.verdict = Verdict::Unexplained(
                        "the sampler did not see which CPU the thread woke on".into(),
                    );
                    return record;
                }
            }
        }
        if ring
            .iter()
            .next()
            .is_none_or(|i| i.cpu(spike.cpu).is_none())
        {
            record.verdict =
                Verdict::Unexplained(format!("the sampler does not sample CPU {}", spike.cpu));
            return record;
        }
        // Spikes a few cycles apart share their evidence (the same sampler intervals): the
        // verdict of the last one is reused when the intervals and the latency's order of
        // magnitude (which decides whether an idle state's exit latency counts) are the same.
        let span = ring
            .iter()
            .filter(|i| {
                i.overlaps(
                    spike.previous_wake_ns,
                    spike.wake_ns.max(spike.previous_wake_ns + 1),
                )
            })
            .fold((u64::MAX, 0), |(a, b), i| {
                (a.min(i.start_ns), b.max(i.end_ns))
            });
        let key = (span, spike.cpu, spike.latency_ns.max(1).ilog2());
        let cached = self
            .last_verdict
            .borrow()
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, c)| c.clone());
        let causes = match cached {
            Some(causes) => causes,
            None => {
                let causes = explain(&spike, ring.iter(), sampler.catalog());
                *self.last_verdict.borrow_mut() = Some((key, causes.clone()));
                causes
            }
        };
        record.verdict = Verdict::Causes(causes);
        record
    }

    /// Keeps `record`: as a spike above the threshold (the worst `nodes`), or as the
    /// maximum's record.
    fn keep(&mut self, candidate: Candidate, record: SpikeRecord) {
        let is_max = self.max.is_some_and(|(_, cycle)| cycle == candidate.cycle);
        if !candidate.above {
            // Only a new maximum: kept while it is the maximum.
            if is_max {
                self.max_record = Some(record);
            }
            return;
        }
        if self
            .max_record
            .as_ref()
            .is_some_and(|r| self.max.is_none_or(|(_, cycle)| cycle != r.cycle))
        {
            self.max_record = None;
        }
        if self.kept.len() < self.nodes {
            self.kept.push(record);
            return;
        }
        // Full: the new record replaces the smallest kept, unless it is smaller still.
        let smallest = self
            .kept
            .iter()
            .enumerate()
            .filter(|(_, r)| self.max.is_none_or(|(_, cycle)| cycle != r.cycle))
            .min_by_key(|(_, r)| r.latency_ns)
            .map(|(i, r)| (i, r.latency_ns));
        match smallest {
            Some((at, latency)) if latency < record.latency_ns || is_max => {
                self.kept[at] = record;
            }
            _ => {}
        }
        self.left_off += 1;
    }
}
