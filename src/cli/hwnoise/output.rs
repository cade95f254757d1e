//! `rtlat hwnoise`'s output: hwlatdetect's lines (its parameter block, `Max Latency:`,
//! `Samples recorded:`, `Samples exceeding threshold:`, `SMIs during run:`, the samples as
//! `ts: …, inner:…, outer:…, cpu:…, count:…`), then rtlat's per-CPU table; the `--report`
//! file and the JSON.

use std::fmt::Write as _;

use rtlat_formats::schema::hwnoise::{Cpu, Document, Sample, Smi};
use rtlat_system::noise::hwlat::HwlatSample;

use super::options::Config;
use super::{CpuNoise, Outcome, SmiCount, UsedMethod};

/// The parameter block before the run.
pub fn header(config: &Config, method: &UsedMethod) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "rtlat hwnoise:  test duration {} seconds",
        config.duration.as_secs()
    );
    match method {
        UsedMethod::Hwlat => out.push_str("   detector: tracer\n"),
        UsedMethod::Poll { why: None } => out.push_str("   detector: poll\n"),
        UsedMethod::Poll { why: Some(why) } => {
            let _ = writeln!(out, "   detector: poll (no tracer: {why})");
        }
    }
    let cpus = config
        .cpus
        .as_ref()
        .map_or("None".to_string(), |c| c.to_string());
    let report = config
        .report
        .as_ref()
        .map_or("None".to_string(), |p| p.display().to_string());
    out.push_str("   parameters:\n");
    let _ = writeln!(out, "        CPU list:          {cpus}");
    let _ = writeln!(out, "        Latency threshold: {}us", config.threshold_us);
    let _ = writeln!(out, "        Sample window:     {}us", config.window_us);
    let _ = writeln!(out, "        Sample width:      {}us", config.width_us);
    let _ = writeln!(
        out,
        "     Non-sampling period:  {}us",
        config.window_us - config.width_us
    );
    let _ = writeln!(out, "        Output File:       {report}");
    out.push_str("\nStarting test\n");
    out
}

/// The largest sample of the run, µs, rounded up (`None`: none).
pub fn max_latency_us(cpus: &[CpuNoise]) -> Option<u64> {
    cpus.iter()
        .filter_map(|c| c.max_ns)
        .max()
        .map(|ns| ns.div_ceil(1000))
}

/// The lines after the run: hwlatdetect's, then the table, then the samples (not with
/// `quiet`).
pub fn summary(config: &Config, outcome: &Outcome) -> String {
    let mut out = String::new();
    let poll = matches!(outcome.method, UsedMethod::Poll { .. });
    if !config.quiet {
        out.push_str("test finished\n");
    }
    match max_latency_us(&outcome.cpus) {
        None => out.push_str("Max Latency: Below threshold\n"),
        Some(us) => {
            let _ = writeln!(out, "Max Latency: {us}us");
        }
    }
    let recorded: u64 = outcome.cpus.iter().map(|c| c.samples).sum();
    let exceeding: u64 = outcome.cpus.iter().map(|c| c.spikes).sum();
    let _ = writeln!(out, "Samples recorded: {recorded}");
    let _ = writeln!(out, "Samples exceeding threshold: {exceeding}");
    match &outcome.smi {
        SmiCount::Counted(per_cpu) => {
            for (cpu, smis) in per_cpu.iter().filter(|(_, n)| *n > 0) {
                let _ = writeln!(out, "{smis} SMIs occured on cpu {cpu}");
            }
            let total: u64 = per_cpu.iter().map(|(_, n)| n).sum();
            let _ = writeln!(out, "SMIs during run: {total}");
        }
        SmiCount::Unavailable(why) => {
            let _ = writeln!(out, "# SMIs: not counted: {why}");
        }
    }
    let secs = outcome.duration.as_secs_f64();
    if poll {
        let _ = writeln!(
            out,
            "# rtlat: poll method: gaps in a SCHED_FIFO {} busy loop; each of Linux's events on the CPU (an interrupt, a context switch) is given one of the largest gaps, the rest is noise Linux did not make; figures marked ≥ are lower bounds",
            config.priority.unwrap_or(99)
        );
    } else {
        let _ = writeln!(
            out,
            "# rtlat: hwlat tracer: a kernel thread spins with interrupts off; total ≥: the tracer keeps each width's largest gap and counts the others"
        );
    }
    let _ = writeln!(
        out,
        "# rtlat: mean time between spikes: the run's {secs:.1} s over the CPU's spikes"
    );
    let _ = write!(
        out,
        "# CPU  samples   spikes  max(us)  total(us)  between(s)     NMIs"
    );
    if poll {
        out.push_str("  Linux events  gaps>threshold  largest gap(us)  sampled(s)");
    }
    out.push('\n');
    for c in &outcome.cpus {
        let bound = if c.exact { "" } else { "≥" };
        let max = c.max_ns.map_or("-".to_string(), |ns| {
            format!("{bound}{}", ns.div_ceil(1000))
        });
        let total = format!("{bound}{}", c.total_ns.div_ceil(1000));
        let between =
            mean_time_between(secs, c.spikes).map_or("-".to_string(), |s| format!("{s:.3}"));
        let _ = write!(
            out,
            "# {:>3}  {:>7}  {:>7}  {:>7}  {:>9}  {:>10}  {:>7}",
            c.cpu, c.samples, c.spikes, max, total, between, c.nmi_count
        );
        if poll {
            let _ = write!(
                out,
                "  {:>12}  {:>14}  {:>15}  {:>10.3}",
                c.linux_events,
                c.gaps_above,
                c.max_gap_ns
                    .map_or("-".to_string(), |ns| ns.div_ceil(1000).to_string()),
                c.sampled_ns as f64 / 1e9
            );
        }
        out.push('\n');
    }
    if !config.quiet {
        for s in &outcome.samples {
            let _ = writeln!(out, "{}", report_line(s));
        }
    }
    out
}

/// The run's seconds over `spikes` (`None`: no spike).
pub fn mean_time_between(secs: f64, spikes: u64) -> Option<f64> {
    (spikes > 0).then(|| secs / spikes as f64)
}

/// One sample as hwlatdetect prints it and writes it to `--report`.
pub fn report_line(s: &HwlatSample) -> String {
    format!(
        "ts: {}, inner:{}, outer:{}, cpu:{}, count:{}",
        timestamp(s),
        s.inner_us,
        s.outer_us,
        s.cpu,
        s.count
    )
}

/// The tracer's `ts:` as it printed it: seconds, a dot, nine digits.
fn timestamp(s: &HwlatSample) -> String {
    format!("{}.{:09}", s.ts_ns / 1_000_000_000, s.ts_ns % 1_000_000_000)
}

/// The `--report` file's text.
pub fn report(samples: &[HwlatSample]) -> String {
    samples.iter().map(|s| report_line(s) + "\n").collect()
}

/// The JSON document.
pub fn json(config: &Config, cmdline: String, outcome: &Outcome) -> String {
    let secs = outcome.duration.as_secs_f64();
    let (method, method_reason, lower_bounds) = match &outcome.method {
        UsedMethod::Hwlat => ("hwlat", None, false),
        UsedMethod::Poll { why } => ("poll", why.clone(), true),
    };
    let poll = lower_bounds;
    let us = |ns: u64| ns.div_ceil(1000);
    let doc = Document {
        tool: "rtlat hwnoise".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        cmdline,
        method: method.into(),
        method_reason,
        duration_s: (secs * 1e3).round() / 1e3,
        threshold_us: config.threshold_us,
        window_us: config.window_us,
        width_us: config.width_us,
        cpus: outcome.cpus.iter().map(|c| c.cpu).collect(),
        lower_bounds,
        max_latency_us: max_latency_us(&outcome.cpus),
        samples_recorded: outcome.cpus.iter().map(|c| c.samples).sum(),
        samples_exceeding: outcome.cpus.iter().map(|c| c.spikes).sum(),
        smi: match &outcome.smi {
            SmiCount::Counted(per_cpu) => Smi {
                total: Some(per_cpu.iter().map(|(_, n)| n).sum()),
                per_cpu: per_cpu.clone(),
                unavailable: None,
            },
            SmiCount::Unavailable(why) => Smi {
                total: None,
                per_cpu: Vec::new(),
                unavailable: Some(why.clone()),
            },
        },
        fail_above_us: config.fail_above_us,
        per_cpu: outcome
            .cpus
            .iter()
            .map(|c| Cpu {
                cpu: c.cpu,
                samples: c.samples,
                spikes: c.spikes,
                max_us: c.max_ns.map(us),
                total_us: us(c.total_ns),
                mean_time_between_spikes_s: mean_time_between(secs, c.spikes),
                nmi_count: c.nmi_count,
                nmi_total_us: us(c.nmi_total_ns),
                linux_events: poll.then_some(c.linux_events),
                gaps_above_threshold: poll.then_some(c.gaps_above),
                largest_gap_us: c.max_gap_ns.map(us),
                allocations: c.allocations,
                sampled_s: poll.then_some(c.sampled_ns as f64 / 1e9),
            })
            .collect(),
        samples: outcome
            .samples
            .iter()
            .map(|s| Sample {
                cpu: s.cpu,
                seq: s.seq,
                inner_us: s.inner_us,
                outer_us: s.outer_us,
                ts: timestamp(s),
                count: s.count,
                nmi_count: s.nmi_count,
                nmi_total_us: s.nmi_total_us,
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}
