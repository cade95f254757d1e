//! `rtlat servo --explain`: why each thread's max jitter. rtlat-system's evidence sampler runs
//! on the CPUs the threads do not use (SCHED_OTHER); each time a thread's max jitter grows it
//! pushes the run whose late wake-up made it (rtlat-engine's [`Shared::worst`]), and the main
//! thread, every redraw, explains the latest of them as soon as the sampler has sampled past
//! its wake-up (its evidence is kept about 2 s, so the worst run of a long run is explained
//! while it is fresh). The osnoise tracer runs on the threads' CPU where the kernel has it,
//! as under `rtlat run --explain`: its events in that CPU's window are added to the verdict
//! at the end. At the end: per thread, the causes of its worst run, printed after the verdict
//! and in the JSON (`threads.NAME.spikes`, with the sampler and tracer in
//! `threads.NAME.explain`).

use std::fmt::Write as _;

use rtlat_engine::servo::{Plan, Shared};
use rtlat_formats::schema::rtlat::{Explain, Spike};
use rtlat_system::noise::{SpikeRecord, SpikeWatch, Threshold, Verdict, WatchedThread};

use crate::cli::explain::evidence::add_tracer_causes_to;
use crate::cli::explain::{Evidence, TracerUse, verdict};

/// A thread's worst run: (tick, lateness ns, wake-up ns on CLOCK_MONOTONIC).
type Worst = (u64, i64, u64);

/// The evidence and each thread's worst run.
#[derive(Debug)]
pub struct Explainer {
    evidence: Evidence,
    watches: Vec<SpikeWatch>,
    /// Per thread: its worst run so far and, once the sampler passed it, its record.
    worst: Vec<Option<(Worst, Option<SpikeRecord>)>>,
}

/// What `--explain` found once the run ended.
#[derive(Debug)]
pub struct Explained {
    /// Per thread, its worst run's record (`None`: the thread measured no interval).
    pub records: Vec<Option<SpikeRecord>>,
    /// The sampler and the tracer, as every thread's `explain` object gives them.
    pub explain: Explain,
}

impl Explainer {
    /// Starts the sampler for `plans`' threads, all on `cpu`, whose live figures (thread ids)
    /// are `shared.live`, on the `available` CPUs but `cpu` (any CPU when it is the only one),
    /// with the osnoise tracer as `tracer` says.
    pub fn start(
        plans: &[Plan],
        shared: &Shared,
        cpu: usize,
        available: &[usize],
        tracer: TracerUse,
    ) -> Result<Explainer, String> {
        let tids: Vec<u32> = shared.live.iter().map(|l| l.tid() as u32).collect();
        // The main thread stays where it is (it redraws the table); the tracer on the
        // threads' CPU where the kernel has it.
        let evidence = Evidence::start(&[cpu], &tids, available, false, tracer)?;
        let watches = plans
            .iter()
            .zip(&tids)
            .map(|(plan, &tid)| {
                SpikeWatch::new(
                    WatchedThread {
                        cpu: Some(cpu),
                        tid,
                        interval_ns: plan.period_ns,
                    },
                    // Only asked for its worst run (explain_now): the threshold is unused.
                    Threshold::P999,
                    1,
                )
            })
            .collect();
        Ok(Explainer {
            evidence,
            watches,
            worst: plans.iter().map(|_| None).collect(),
        })
    }

    /// The line printed on stderr when the run starts.
    pub fn started_line(&self) -> String {
        format!(
            "# --explain: sampling the threads' CPU every {} ms from {}, SCHED_OTHER; tracer {}",
            self.evidence.period_ms(),
            self.evidence
                .on("any CPU (the threads' CPU is the only one)"),
            self.evidence.tracer()
        )
    }

    /// Takes each thread's latest worst run and explains it once the sampler has passed it.
    pub fn update(&mut self, shared: &Shared) {
        for (i, ring) in shared.worst.iter().enumerate() {
            let mut latest = None;
            ring.drain(|tick, lateness, wake| latest = Some((tick, lateness, wake)));
            let Some(slot) = self.worst.get_mut(i) else {
                continue;
            };
            if let Some(latest) = latest {
                *slot = Some((latest, None));
            }
            if let Some(((tick, lateness, wake), record @ None)) = slot {
                let watch = &self.watches[i];
                *record = self
                    .evidence
                    .with(|s| watch.explain_now(*tick, *lateness, *wake, s));
            }
        }
    }

    /// Ends the sampler (after one last sample, past every wake-up) and the tracer (its
    /// events read once, added to each record), and gives each thread's worst run's record.
    pub fn finish(mut self, shared: &Shared) -> Explained {
        self.update(shared);
        let stopped = self.evidence.stop(None);
        let sampler = &stopped.sampler;
        let records = self
            .worst
            .into_iter()
            .zip(&self.watches)
            .map(|(worst, watch)| {
                let ((tick, lateness, wake), record) = worst?;
                let mut record = record.unwrap_or_else(|| {
                    watch
                        .explain_now(tick, lateness, wake, sampler)
                        .unwrap_or_else(|| SpikeRecord {
                            cycle: tick,
                            latency_ns: lateness,
                            wake_ns: wake,
                            window_ns: (wake, wake),
                            cpu: watch.thread().cpu,
                            max: true,
                            verdict: Verdict::Unexplained(
                                "the run ended before the sampler sampled past this wake-up".into(),
                            ),
                        })
                });
                // The thread's worst run, however the watch marked it.
                record.max = true;
                if let Some(events) = &stopped.events {
                    add_tracer_causes_to(&mut record, events, watch.thread().tid);
                }
                Some(record)
            })
            .collect();
        Explained {
            records,
            explain: verdict::evidence(&stopped.housekeeping, stopped.period_ns, &stopped.tracer),
        }
    }
}

/// The lines printed after the verdict: per thread, its worst run and its causes, most
/// likely first.
pub fn text(plans: &[Plan], max_jitter: &[Option<u64>], records: &[Option<SpikeRecord>]) -> String {
    let mut out = String::new();
    for ((plan, jitter), record) in plans.iter().zip(max_jitter).zip(records) {
        let (Some(jitter), Some(record)) = (jitter, record) else {
            let _ = writeln!(out, "# explain {} thread: no interval measured", plan.name);
            continue;
        };
        let _ = writeln!(
            out,
            "# explain {} thread: max jitter {jitter} ns, from the late wake-up of run {} ({} ns late):",
            plan.name, record.cycle, record.latency_ns
        );
        verdict::lines(&mut out, &record.verdict, record.cpu);
    }
    out
}

/// A thread's worst run for the JSON (`threads.NAME.spikes`, one entry; no `t`: servo's
/// JSON counts in ticks).
pub fn json(record: &SpikeRecord) -> Spike {
    verdict::spike(record, None)
}
