//! `rtlat run --explain`: the evidence sampler on the CPUs no thread measures, one spike watch
//! per measuring thread fed from its wake-up tap by the main thread (which moves to those
//! CPUs too), and at the end a verdict per spike: printed after the results and written to
//! the JSON (`thread.N.rtlat.explain`, `spikes`).
//!
//! The measuring loop only stores each cycle's wake-up (one store per cycle: rtlat-engine
//! `tap`); all of this runs on the main thread and on the sampler's thread, both
//! non-real-time.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use rtlat_engine::run::{RunShared, ThreadReport};
use rtlat_engine::tap::TapReader;
use rtlat_formats::schema::Field;
use rtlat_formats::schema::rtlat::{Explain, Spike};
use rtlat_system::noise::{Findings, SpikeRecord, SpikeWatch, Threshold, WatchedThread};

use super::options::{Plan, RunConfig};
use crate::cli::explain::evidence::add_tracer_causes;
use crate::cli::explain::{Evidence, TracerUse, verdict};

/// The main thread's time explaining spikes per pass (it drains every 10 ms): the sampler
/// cannot sample while a verdict is made.
const SETTLE_BUDGET: Duration = Duration::from_millis(2);

/// A run's explainer: the evidence and the threads' watches.
#[derive(Debug)]
pub struct Explainer {
    evidence: Evidence,
    watches: Vec<SpikeWatch>,
    readers: Vec<TapReader>,
}

/// One thread's findings with what the report needs to place them.
#[derive(Debug)]
pub struct ThreadFindings {
    /// The watch's findings.
    pub findings: Findings,
    /// The thread's start (its first deadline minus one interval), ns on CLOCK_MONOTONIC.
    pub origin_ns: Option<u64>,
}

/// What `--explain` found, for the outputs.
#[derive(Debug)]
pub struct Explained {
    /// Per thread, in the plan's order.
    pub threads: Vec<ThreadFindings>,
    /// The CPUs the sampler ran on (empty: any).
    pub housekeeping: Vec<usize>,
    /// The sampler's period, ns.
    pub period_ns: u64,
    /// The tracer path's state, one line.
    pub tracer: String,
}

impl Explainer {
    /// Starts the sampler for the measuring threads of `plan`, whose thread ids are `tids`
    /// (set up, not measuring yet). The sampler runs SCHED_OTHER on the `default_cpus` (the
    /// process's affinity mask: never an isolated CPU) no thread measures (any of them when
    /// every one is measured); the osnoise tracer as `tracer` says.
    pub fn start(
        config: &RunConfig,
        plan: &Plan,
        default_cpus: &[usize],
        tids: &[i32],
        tracer: TracerUse,
    ) -> Result<Explainer, String> {
        let measured: Vec<usize> = {
            let mut cpus: Vec<usize> = plan.threads.iter().map(|t| t.cpu).collect();
            cpus.sort_unstable();
            cpus.dedup();
            cpus
        };
        let tids: Vec<u32> = tids.iter().map(|&tid| tid as u32).collect();
        // The main thread then makes the verdicts: off the measured CPUs too, unless
        // --mainaffinity placed it.
        let evidence = Evidence::start(
            &measured,
            &tids,
            default_cpus,
            config.main_affinity.is_none(),
            tracer,
        )?;
        let threshold = threshold(config);
        let readers = plan
            .threads
            .iter()
            .map(|t| TapReader::new(t.interval_us * 1000))
            .collect();
        let watches = plan
            .threads
            .iter()
            .zip(&tids)
            .map(|(t, &tid)| {
                SpikeWatch::new(
                    WatchedThread {
                        cpu: Some(t.cpu),
                        tid,
                        interval_ns: t.interval_us * 1000,
                    },
                    threshold,
                    config.explain_nodes as usize,
                )
            })
            .collect();
        Ok(Explainer {
            evidence,
            watches,
            readers,
        })
    }

    /// The line printed on stderr when the run starts.
    pub fn started_line(&self) -> String {
        format!(
            "# --explain: sampling the measured CPUs every {} ms from {}, SCHED_OTHER{}; tracer {}",
            self.evidence.period_ms(),
            self.evidence
                .on("any CPU (every available CPU is measured)"),
            if self.evidence.main_moved() {
                ", the main thread there too"
            } else {
                ""
            },
            self.evidence.tracer()
        )
    }

    /// Takes every cycle the threads have published as done from their taps (the run's clock
    /// is CLOCK_MONOTONIC with --explain: ticks are ns), and explains the spikes whose
    /// evidence the sampler has.
    pub fn drain(&mut self, shared: &RunShared) {
        self.take(shared, false);
        self.settle();
    }

    /// Reads the taps: up to the last cycle published while a thread runs (its publication
    /// comes before that cycle's own store), every cycle once the threads have ended.
    fn take(&mut self, shared: &RunShared, ended: bool) {
        for ((watch, reader), (tap, live)) in self
            .watches
            .iter_mut()
            .zip(&mut self.readers)
            .zip(shared.taps.iter().zip(&shared.live))
        {
            let Some(tap) = tap else { continue };
            let cycles = live.read().cycles;
            let done = if ended {
                cycles
            } else {
                cycles.saturating_sub(1)
            };
            reader.drain(tap, done, |cycle, latency, wake| {
                watch.observe(cycle, latency, wake)
            });
        }
    }

    /// Thread `index`'s sample (cycle, latency, wake-up on CLOCK_MONOTONIC) explained now, apart from
    /// the spike watch's records; `None` while the sampler has not sampled past its wake-up
    /// (or there is no such thread).
    pub fn explain_now(
        &self,
        index: usize,
        cycle: u64,
        latency_ns: i64,
        wake_ns: u64,
    ) -> Option<SpikeRecord> {
        let watch = self.watches.get(index)?;
        self.evidence
            .with(|sampler| watch.explain_now(cycle, latency_ns, wake_ns, sampler))
    }

    /// Explains the spikes whose evidence the sampler has, for at most [`SETTLE_BUDGET`]
    /// (the sampler waits meanwhile); the rest waits for the next pass.
    fn settle(&mut self) {
        let watches = &mut self.watches;
        self.evidence.with(|sampler| {
            let started = Instant::now();
            for watch in watches.iter_mut() {
                watch.settle_within(sampler, SETTLE_BUDGET.saturating_sub(started.elapsed()));
            }
        });
    }

    /// Ends the sampler (after one last sample, past every wake-up) and gives each thread's
    /// findings; the threads have ended (joined).
    pub fn finish(
        mut self,
        shared: &RunShared,
        reports: &[ThreadReport],
        break_trace: Option<&std::path::Path>,
    ) -> Explained {
        self.take(shared, true);
        // The tracer's events, read once; on a break its trace is kept in a file.
        let stopped = self.evidence.stop(break_trace);
        let threads = self
            .watches
            .into_iter()
            .zip(&self.readers)
            .enumerate()
            .map(|(i, (watch, reader))| {
                let origin_ns = watch.origin_ns();
                let tid = watch.thread().tid;
                let max = reports.get(i).and_then(|r| r.max_at);
                let mut findings = watch.finish(&stopped.sampler, max, reader.lost());
                if let Some(events) = &stopped.events {
                    add_tracer_causes(&mut findings, events, tid);
                }
                ThreadFindings {
                    findings,
                    origin_ns,
                }
            })
            .collect();
        Explained {
            threads,
            housekeeping: stopped.housekeeping,
            period_ns: stopped.period_ns,
            tracer: stopped.tracer,
        }
    }
}

/// The spike threshold `config` asks for: `--explain-above`, else `-b`'s value, else the
/// thread's p99.9.
pub fn threshold(config: &RunConfig) -> Threshold {
    let unit = if config.unit == super::options::Unit::Ns {
        1
    } else {
        1000
    };
    match (config.explain_above, config.breaktrace) {
        (Some(above), _) => Threshold::ExplainAbove((above * unit) as i64),
        (None, Some(b)) => Threshold::Break((b * unit) as i64),
        (None, None) => Threshold::P999,
    }
}

/// A latency in the run's unit, as the run prints it.
fn latency(ns: i64, nanoseconds: bool) -> String {
    if nanoseconds {
        format!("{ns} ns")
    } else {
        format!("{} µs", ns / 1000)
    }
}

/// The verdict lines printed after the results: per thread, a line on the threshold, then per
/// spike (in the order they happened) its figures and its causes, most likely first.
pub fn text(explained: &Explained, plan: &Plan, nanoseconds: bool) -> String {
    let mut out = String::new();
    for (t, found) in plan.threads.iter().zip(&explained.threads) {
        let f = &found.findings;
        let threshold = match f.threshold_ns {
            Some(ns) => format!("above {} ({})", latency(ns, nanoseconds), threshold_name(f)),
            None => "above p99.9 (never known: fewer than 1000 cycles; the maximum only)".into(),
        };
        let _ = writeln!(
            out,
            "# explain T:{} (CPU {}): {} latencies {threshold}; {} recorded{}{}",
            t.index,
            t.cpu,
            f.above_threshold,
            f.spikes.len(),
            if f.left_off > 0 {
                format!(
                    ", {} left off (the worst {} are kept: --explain-nodes)",
                    f.left_off,
                    f.spikes.len()
                )
            } else {
                String::new()
            },
            if f.unseen > 0 {
                format!(
                    ", {} cycles not seen (overwritten before they were read)",
                    f.unseen
                )
            } else {
                String::new()
            },
        );
        for spike in &f.spikes {
            let at = found
                .origin_ns
                .filter(|_| spike.wake_ns > 0)
                .map(|o| format!(" at {:.3} s", spike.wake_ns.saturating_sub(o) as f64 / 1e9))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "# T:{} spike {}{at}, cycle {}{}:",
                t.index,
                latency(spike.latency_ns, nanoseconds),
                spike.cycle,
                if spike.max { " (max)" } else { "" }
            );
            verdict::lines(&mut out, &spike.verdict, spike.cpu);
        }
    }
    out
}

fn threshold_name(f: &Findings) -> &'static str {
    match f.threshold {
        Threshold::ExplainAbove(_) => "--explain-above",
        Threshold::Break(_) => "-b",
        Threshold::P999 => "p99.9 as known then",
    }
}

/// Thread `found`'s `explain` object and `spikes` list for the JSON.
pub fn json(explained: &Explained, found: &ThreadFindings) -> (Explain, Vec<Field<Spike>>) {
    let f = &found.findings;
    let explain = Explain {
        threshold_ns: f.threshold_ns.map_or(Field::Absent, Field::from),
        threshold_from: f.threshold.name().to_string().into(),
        above_threshold: f.above_threshold.into(),
        left_off: f.left_off.into(),
        unseen: f.unseen.into(),
        ..verdict::evidence(
            &explained.housekeeping,
            explained.period_ns,
            &explained.tracer,
        )
    };
    let spikes = f
        .spikes
        .iter()
        .map(|s| Field::from(verdict::spike(s, found.origin_ns)))
        .collect();
    (explain, spikes)
}
