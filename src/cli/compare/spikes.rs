//! The spikes `rtlat run --explain` explained, after the tables: per file and series, how
//! many latencies were above the threshold and where it came from, then the worst spikes
//! (at most [`SPIKES_SHOWN`]), each with its likely causes (at most [`CAUSES_SHOWN`]).
//! Nothing when no file has any.

use std::fmt::Write as _;

use rtlat_formats::schema::explain::{ExplainRecord, SpikeRecord};
use rtlat_formats::{Run, Series};

use super::report::{Comparison, file_name, micros, tag};

/// Spikes shown per series, the worst first.
pub const SPIKES_SHOWN: usize = 5;
/// Causes shown per spike, the most likely first.
pub const CAUSES_SHOWN: usize = 3;

/// Whether a series has anything `--explain` wrote.
pub fn explained(series: &Series) -> bool {
    series.explain.is_some() || !series.spikes.is_empty() || !series.timerlat_spikes.is_empty()
}

/// The section, starting with an empty line; empty when no file has spikes.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    if !c.runs.iter().flat_map(|r| &r.series).any(explained) {
        return out;
    }
    let _ = writeln!(
        out,
        "\nSpikes explained (rtlat run --explain), the worst {SPIKES_SHOWN} per thread first"
    );
    for (i, run) in c.runs.iter().enumerate() {
        render_run(&mut out, i, run);
    }
    out
}

fn render_run(out: &mut String, i: usize, run: &Run) {
    let series: Vec<&Series> = run.series.iter().filter(|s| explained(s)).collect();
    if series.is_empty() {
        return;
    }
    let _ = writeln!(out, "{} {}", tag(i), file_name(run));
    for s in series {
        let _ = writeln!(out, "  {}: {}", s.label, counts(s.explain.as_ref()));
        for line in super::timerlat::lines(s) {
            let _ = writeln!(out, "    {line}");
        }
        let mut worst: Vec<&SpikeRecord> = s.spikes.iter().collect();
        // Worst first; among equal latencies, the earlier first.
        worst.sort_by(|a, b| b.latency.cmp(&a.latency).then(a.t.total_cmp(&b.t)));
        for spike in worst.iter().take(SPIKES_SHOWN) {
            let _ = writeln!(out, "    {}", spike_line(spike));
            for line in cause_lines(spike) {
                let _ = writeln!(out, "      {line}");
            }
        }
        if worst.len() > SPIKES_SHOWN {
            let _ = writeln!(
                out,
                "    … {} more spike{} (rtlat compare --json lists them all)",
                worst.len() - SPIKES_SHOWN,
                plural(worst.len() - SPIKES_SHOWN)
            );
        }
        if worst.is_empty() {
            let _ = writeln!(out, "    no spike recorded");
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `12 latencies above 45.0 µs (threshold: the thread's p99.9); 2 not kept, 1 not seen by
/// the explainer`.
fn counts(explain: Option<&ExplainRecord>) -> String {
    let Some(e) = explain else {
        return "no threshold or counts in the file".to_string();
    };
    let above = e.above_threshold.map_or_else(
        || "latencies".to_string(),
        |n| format!("{n} latenc{}", if n == 1 { "y" } else { "ies" }),
    );
    let threshold = e
        .threshold_ns
        .map_or_else(|| "the threshold".to_string(), |ns| micros(ns as f64));
    let mut text = format!("{above} above {threshold}");
    if let Some(from) = &e.threshold_from {
        let from = match from.as_str() {
            "explain-above" => "--explain-above",
            "break" => "-b",
            "p99.9" => "the thread's p99.9",
            other => other,
        };
        let _ = write!(text, " (threshold: {from})");
    }
    let mut after = Vec::new();
    if let Some(n) = e.left_off.filter(|&n| n > 0) {
        after.push(format!("{n} not kept"));
    }
    if let Some(n) = e.unseen.filter(|&n| n > 0) {
        after.push(format!("{n} not seen by the explainer"));
    }
    if !after.is_empty() {
        let _ = write!(text, "; {}", after.join(", "));
    }
    text
}

/// `457.5 µs at 12.345 s on CPU 2 (max)`.
fn spike_line(s: &SpikeRecord) -> String {
    let cpu = s
        .cpu
        .map_or_else(|| "CPU unknown".to_string(), |c| format!("CPU {c}"));
    let mut line = format!("{} at {:.3} s on {cpu}", micros(s.latency as f64), s.t);
    if let Some(cycle) = s.cycle {
        let _ = write!(line, ", cycle {cycle}");
    }
    if s.max {
        line.push_str(" (max)");
    }
    line
}

/// The causes as listed under a spike: ranked, the first [`CAUSES_SHOWN`], then why there is
/// no verdict or that none was found.
fn cause_lines(s: &SpikeRecord) -> Vec<String> {
    let mut lines = Vec::new();
    let causes = s.causes.as_deref().unwrap_or_default();
    for (rank, cause) in causes.iter().take(CAUSES_SHOWN).enumerate() {
        let mut line = format!("{}. {}", rank + 1, cause.text);
        if let Some(audit) = &cause.audit {
            let _ = write!(line, " [audit: {audit}]");
        }
        lines.push(line);
    }
    if causes.len() > CAUSES_SHOWN {
        let more = causes.len() - CAUSES_SHOWN;
        lines.push(format!("… {more} more cause{}", plural(more)));
    }
    match (&s.unexplained, &s.causes) {
        (Some(why), _) => lines.push(format!("no verdict: {why}")),
        (None, Some(list)) if list.is_empty() => lines.push("no cause found".to_string()),
        (None, None) => lines.push("no causes in the file".to_string()),
        (None, Some(_)) => {}
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_formats::schema::explain::CauseRecord;

    fn spike(latency: i64, t: f64, causes: Option<Vec<&str>>) -> SpikeRecord {
        SpikeRecord {
            cycle: None,
            latency,
            t,
            cpu: Some(1),
            max: false,
            causes: causes.map(|c| {
                c.into_iter()
                    .map(|text| CauseRecord {
                        text: text.to_string(),
                        audit: None,
                        score: None,
                    })
                    .collect()
            }),
            unexplained: None,
        }
    }

    #[test]
    fn causes_ranked_limited_and_said_when_none() {
        let s = spike(1000, 0.0, Some(vec!["a", "b", "c", "d", "e"]));
        assert_eq!(cause_lines(&s), ["1. a", "2. b", "3. c", "… 2 more causes"]);
        assert_eq!(
            cause_lines(&spike(1, 0.0, Some(vec![]))),
            ["no cause found"]
        );
        assert_eq!(cause_lines(&spike(1, 0.0, None)), ["no causes in the file"]);
        let mut s = spike(1, 0.0, Some(vec![]));
        s.unexplained = Some("the evidence was no longer kept".into());
        assert_eq!(
            cause_lines(&s),
            ["no verdict: the evidence was no longer kept"]
        );
    }

    #[test]
    fn spike_and_count_lines() {
        let mut s = spike(457_500, 12.3456, None);
        s.max = true;
        s.cycle = Some(12345);
        assert_eq!(
            spike_line(&s),
            "457.5 µs at 12.346 s on CPU 1, cycle 12345 (max)"
        );
        s.cpu = None;
        s.cycle = None;
        s.max = false;
        assert_eq!(spike_line(&s), "457.5 µs at 12.346 s on CPU unknown");
        let e = ExplainRecord {
            threshold_ns: Some(45_000),
            threshold_from: Some("p99.9".into()),
            above_threshold: Some(12),
            left_off: Some(2),
            unseen: Some(0),
            ..ExplainRecord::default()
        };
        assert_eq!(
            counts(Some(&e)),
            "12 latencies above 45.0 µs (threshold: the thread's p99.9); 2 not kept"
        );
        assert_eq!(counts(None), "no threshold or counts in the file");
    }
}
