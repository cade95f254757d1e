//! A verdict's one text and JSON rendering, for every front's `--explain`: its lines, its
//! spike (`rtlat run`'s `thread.N.rtlat.spikes[]`, `rtlat servo`'s `threads.NAME.spikes[]`) and
//! the evidence's part of the `explain` object (sampler and tracer), one schema type
//! ([`rtlat_formats::schema::rtlat`]) for both fronts.

use std::fmt::Write as _;

use rtlat_formats::schema::Field;
use rtlat_formats::schema::rtlat::{Explain, Spike, SpikeCause};
use rtlat_system::noise::{SpikeRecord, Verdict};
use serde_json::Number;

/// A verdict's lines under its spike (on `cpu`, when known): `#   1. <cause>` each, most
/// likely first; `#   no cause found`, with where to look next (time Linux does not see:
/// `rtlat hwnoise`); or `#   no verdict: <why>`.
pub fn lines(out: &mut String, verdict: &Verdict, cpu: Option<usize>) {
    match verdict {
        Verdict::Unexplained(why) => {
            let _ = writeln!(out, "#   no verdict: {why}");
        }
        Verdict::Causes(causes) if causes.is_empty() => {
            let cpus = cpu.map_or_else(String::new, |c| format!(" --cpu-list {c}"));
            let _ = writeln!(
                out,
                "#   no cause found in Linux: time it does not see (SMIs, firmware, a hypervisor) is what rtlat hwnoise{cpus} measures"
            );
        }
        Verdict::Causes(causes) => {
            for (rank, cause) in causes.iter().enumerate() {
                let _ = writeln!(out, "#   {}. {cause}", rank + 1);
            }
        }
    }
}

/// A verdict in the JSON: its `causes` (empty when there is none) and, without a verdict,
/// the `unexplained` reason.
pub fn json(verdict: &Verdict) -> (Vec<Field<SpikeCause>>, Field<String>) {
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

/// A spike in the JSON; `origin_ns` (the thread's start on `CLOCK_MONOTONIC`) gives its `t`,
/// left out without it.
pub fn spike(record: &SpikeRecord, origin_ns: Option<u64>) -> Spike {
    let t = origin_ns
        .filter(|_| record.wake_ns > 0)
        .and_then(|o| Number::from_f64(record.wake_ns.saturating_sub(o) as f64 / 1e9));
    let (causes, unexplained) = json(&record.verdict);
    Spike {
        cycle: record.cycle.into(),
        latency: record.latency_ns.into(),
        t: t.map_or(Field::Absent, Field::from),
        wake_ns: if record.wake_ns > 0 {
            record.wake_ns.into()
        } else {
            Field::Absent
        },
        cpu: record.cpu.map(|c| c as u64).into(),
        max: record.max.into(),
        evidence_ns: if record.window_ns != (0, 0) {
            vec![record.window_ns.0, record.window_ns.1].into()
        } else {
            Field::Absent
        },
        causes: causes.into(),
        unexplained,
    }
}

/// The evidence's part of an `explain` object: the sampler's period and CPUs (empty: any)
/// and the tracer path's state; the front adds its threshold's fields.
pub fn evidence(housekeeping: &[usize], period_ns: u64, tracer: &str) -> Explain {
    Explain {
        sampler_period_ns: period_ns.into(),
        sampler_cpus: housekeeping
            .iter()
            .map(|&c| c as u64)
            .collect::<Vec<_>>()
            .into(),
        tracer: tracer.to_string().into(),
        ..Explain::default()
    }
}
