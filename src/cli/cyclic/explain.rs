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
use rtlat_formats::schema::rtlat::{Explain, Spike, SpikeCause};
use rtlat_linux::cpuset::CpuSet;
use rtlat_system::Facts;
use rtlat_system::noise::tracer::{self, TracerPath};
use rtlat_system::noise::{
    Config, Findings, NoiseTrace, Sampler, SamplerThread, Spike as NoiseSpike, SpikeRecord,
    SpikeWatch, Threshold, Verdict, Watched, WatchedThread,
};
use serde_json::Number;

use super::options::{Plan, RunConfig};

/// The main thread's time explaining spikes per pass (it drains every 10 ms): the sampler
/// cannot sample while a verdict is made.
const SETTLE_BUDGET: Duration = Duration::from_millis(2);

/// A run's explainer: the sampler thread and the threads' watches.
#[derive(Debug)]
pub struct Explainer {
    sampler: SamplerThread,
    watches: Vec<SpikeWatch>,
    readers: Vec<TapReader>,
    /// The CPUs the sampler runs on (empty: any).
    housekeeping: Vec<usize>,
    /// The main thread was moved to them.
    main_moved: bool,
    period_ns: u64,
    tracer: String,
    /// The osnoise tracer, where the kernel has it.
    trace: Option<NoiseTrace>,
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
    /// every one is measured).
    pub fn start(
        config: &RunConfig,
        plan: &Plan,
        default_cpus: &[usize],
        tids: &[i32],
    ) -> Result<Explainer, String> {
        let measured: Vec<usize> = {
            let mut cpus: Vec<usize> = plan.threads.iter().map(|t| t.cpu).collect();
            cpus.sort_unstable();
            cpus.dedup();
            cpus
        };
        let housekeeping: Vec<usize> = default_cpus
            .iter()
            .copied()
            .filter(|c| !measured.contains(c))
            .collect();
        let pid = std::process::id();
        let watched: Vec<Watched> = tids
            .iter()
            .map(|&tid| Watched {
                pid,
                tid: tid as u32,
            })
            .collect();
        let sampler_config = Config::default();
        let period_ns = sampler_config.period.as_nanos() as u64;
        let sampler = Sampler::new(Facts::live(), &measured, &watched, sampler_config);
        let sampler = SamplerThread::spawn(sampler, &housekeeping)
            .map_err(|e| format!("--explain: cannot start the evidence sampler thread: {e}"))?;
        // The main thread now makes the verdicts: off the measured CPUs too, unless
        // --mainaffinity placed it.
        let main_moved = config.main_affinity.is_none()
            && !housekeeping.is_empty()
            && rtlat_linux::set_affinity(&housekeeping).is_ok();
        let threshold = threshold(config);
        let (trace, tracer) = start_tracer(&measured);
        let readers = plan
            .threads
            .iter()
            .map(|t| TapReader::new(t.interval_us * 1000))
            .collect();
        let watches = plan
            .threads
            .iter()
            .zip(tids)
            .map(|(t, &tid)| {
                SpikeWatch::new(
                    WatchedThread {
                        cpu: Some(t.cpu),
                        tid: tid as u32,
                        interval_ns: t.interval_us * 1000,
                    },
                    threshold,
                    config.explain_nodes as usize,
                )
            })
            .collect();
        Ok(Explainer {
            sampler,
            watches,
            readers,
            housekeeping,
            main_moved,
            period_ns,
            tracer,
            trace,
        })
    }

    /// The line printed on stderr when the run starts.
    pub fn started_line(&self) -> String {
        let on = if self.housekeeping.is_empty() {
            "any CPU (every available CPU is measured)".to_string()
        } else {
            format!("CPU {}", cpu_list(&self.housekeeping))
        };
        format!(
            "# --explain: sampling the measured CPUs every {} ms from {on}, SCHED_OTHER{}; tracer {}",
            self.period_ns as f64 / 1e6,
            if self.main_moved {
                ", the main thread there too"
            } else {
                ""
            },
            self.tracer
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
        self.sampler
            .with(|sampler| watch.explain_now(cycle, latency_ns, wake_ns, sampler))
    }

    /// Explains the spikes whose evidence the sampler has, for at most [`SETTLE_BUDGET`]
    /// (the sampler waits meanwhile); the rest waits for the next pass.
    fn settle(&mut self) {
        let watches = &mut self.watches;
        self.sampler.with(|sampler| {
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
        let mut sampler = self.sampler.stop();
        if let Ok(now) = rtlat_linux::PosixClock::monotonic().now_ns() {
            sampler.sample(now);
        }
        // The tracer's events, read once; on a break its trace is kept in a file.
        let events = self.trace.as_ref().and_then(|trace| {
            let _ = trace.pause();
            if let Some(path) = break_trace {
                match trace.read() {
                    Ok(text) => match rtlat::atomic_file::write_atomically(path, text.as_bytes()) {
                        Ok(()) => crate::errln!(
                            "# --explain: the trace of the break is in {}",
                            path.display()
                        ),
                        Err(e) => crate::errln!(
                            "warning: --explain: cannot write the trace to {}: {e}",
                            path.display()
                        ),
                    },
                    Err(e) => crate::errln!("warning: --explain: cannot read the trace: {e}"),
                }
            }
            trace.events().ok()
        });
        if let Some(trace) = self.trace.take()
            && let Err(e) = trace.stop()
        {
            crate::errln!("warning: --explain: {e}");
        }
        let threads = self
            .watches
            .into_iter()
            .zip(&self.readers)
            .enumerate()
            .map(|(i, (watch, reader))| {
                let origin_ns = watch.origin_ns();
                let tid = watch.thread().tid;
                let max = reports.get(i).and_then(|r| r.max_at);
                let mut findings = watch.finish(&sampler, max, reader.lost());
                if let Some(events) = &events {
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
            housekeeping: self.housekeeping,
            period_ns: self.period_ns,
            tracer: self.tracer,
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

/// Adds to each spike's verdict the tracer's noise events on its CPU within its window, and
/// ranks the causes again.
fn add_tracer_causes(findings: &mut Findings, events: &tracer::Events, tid: u32) {
    for record in &mut findings.spikes {
        let (Some(cpu), Verdict::Causes(causes)) = (record.cpu, &mut record.verdict) else {
            continue;
        };
        if record.window_ns == (0, 0) {
            continue;
        }
        let spike = NoiseSpike {
            cpu,
            tid: Some(tid),
            previous_wake_ns: record.window_ns.0,
            wake_ns: record.window_ns.1,
            latency_ns: record.latency_ns,
        };
        causes.extend(tracer::causes(events.overlapping(&spike)));
        causes.sort_by_key(|c| std::cmp::Reverse(c.score));
    }
}

/// The osnoise tracer on the measured CPUs, where the kernel has it (its changes printed;
/// undone when it stops), and its state in one line: `used (osnoise tracer)`, `absent: …`, or
/// `not used: …` when starting it failed (the sampler's evidence stands alone then).
fn start_tracer(measured: &[usize]) -> (Option<NoiseTrace>, String) {
    let tracefs = match tracer::probe(&Facts::live()) {
        TracerPath::Absent(why) => return (None, why),
        TracerPath::Available(dir) => dir,
    };
    let cpus = match CpuSet::from_cpus(measured.iter().copied()) {
        Ok(cpus) => cpus,
        Err(e) => return (None, format!("not used: {e}")),
    };
    match NoiseTrace::start(&tracefs, &cpus) {
        Ok(trace) => {
            for change in trace.changes() {
                crate::errln!("# --explain: tracefs {change}");
            }
            (Some(trace), "used (osnoise tracer)".into())
        }
        Err(e) => (None, format!("not used: {e}")),
    }
}

/// `0-2,5`-style list of sorted CPUs.
fn cpu_list(cpus: &[usize]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            let _ = write!(out, "{start}");
        } else {
            let _ = write!(out, "{start}-{end}");
        }
        i += 1;
    }
    out
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
            verdict_lines(&mut out, &spike.verdict);
        }
    }
    out
}

/// A verdict's lines under its spike: `#   1. <cause>` each, most likely first; `#   no cause
/// found`; or `#   no verdict: <why>`.
pub fn verdict_lines(out: &mut String, verdict: &Verdict) {
    match verdict {
        Verdict::Unexplained(why) => {
            let _ = writeln!(out, "#   no verdict: {why}");
        }
        Verdict::Causes(causes) if causes.is_empty() => {
            let _ = writeln!(out, "#   no cause found");
        }
        Verdict::Causes(causes) => {
            for (rank, cause) in causes.iter().enumerate() {
                let _ = writeln!(out, "#   {}. {cause}", rank + 1);
            }
        }
    }
}

fn threshold_name(f: &Findings) -> &'static str {
    match f.threshold {
        Threshold::ExplainAbove(_) => "--explain-above",
        Threshold::Break(_) => "-b",
        Threshold::P999 => "p99.9 as known then",
    }
}

/// A verdict in the JSON: its `causes` (empty when there is none) and, without a verdict,
/// the `unexplained` reason.
pub fn verdict_json(verdict: &Verdict) -> (Vec<Field<SpikeCause>>, Field<String>) {
    match verdict {
        Verdict::Causes(causes) => (
            causes
                .iter()
                .map(|c| {
                    Field::from(SpikeCause {
                        text: c.text.clone().into(),
                        audit: c.audit.map(str::to_string).into(),
                        score: c.score.into(),
                    })
                })
                .collect(),
            Field::Absent,
        ),
        Verdict::Unexplained(why) => (Vec::new(), Field::from(why.clone())),
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
        sampler_period_ns: explained.period_ns.into(),
        sampler_cpus: explained
            .housekeeping
            .iter()
            .map(|&c| c as u64)
            .collect::<Vec<_>>()
            .into(),
        tracer: explained.tracer.clone().into(),
    };
    let spikes = f
        .spikes
        .iter()
        .map(|s| {
            let t = found
                .origin_ns
                .filter(|_| s.wake_ns > 0)
                .and_then(|o| Number::from_f64(s.wake_ns.saturating_sub(o) as f64 / 1e9));
            let (causes, unexplained) = verdict_json(&s.verdict);
            Field::from(Spike {
                cycle: s.cycle.into(),
                latency: s.latency_ns.into(),
                t: t.map_or(Field::Absent, Field::from),
                wake_ns: if s.wake_ns > 0 {
                    s.wake_ns.into()
                } else {
                    Field::Absent
                },
                cpu: s.cpu.map(|c| c as u64).into(),
                max: s.max.into(),
                evidence_ns: if s.window_ns != (0, 0) {
                    vec![s.window_ns.0, s.window_ns.1].into()
                } else {
                    Field::Absent
                },
                causes: causes.into(),
                unexplained,
            })
        })
        .collect();
    (explain, spikes)
}

#[cfg(test)]
mod tests {
    use super::cpu_list;

    #[test]
    fn cpu_lists_join_runs() {
        assert_eq!(cpu_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(cpu_list(&[3]), "3");
        assert_eq!(cpu_list(&[]), "");
    }
}
