//! `rtlat noise`'s output: oslat's summary block (one column per CPU, its µs), then rtlat's
//! exact lines in ns; and oslat's JSON with an `rtlat` object per thread.

use std::fmt::Write as _;

use rtlat_engine::poll::{Micros, PollReport};
use rtlat_formats::schema::Entries;
use rtlat_formats::schema::oslat::{Document, RunExtra, Thread, ThreadExtra};

use super::options::Config;

/// The rt-tests release whose output shape this is.
pub const OSLAT_VERSION: &str = "2.40";
/// The percentiles of the `rtlat` object and lines.
const PERCENTILES: [f64; 5] = [50.0, 99.0, 99.9, 99.99, 99.999];

/// The lines before the run: oslat's, with rtlat's name first.
pub fn header(config: &Config, cpus: &[usize], main_cpu: &[usize]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "rtlat noise V {} (oslat {OSLAT_VERSION} output)",
        env!("CARGO_PKG_VERSION")
    );
    let runtime = config.duration.map_or("until stopped".to_string(), |d| {
        format!("{} seconds", d.as_secs())
    });
    let priority = config
        .rtprio
        .map_or("default".to_string(), |p| format!("SCHED_FIFO:{p}"));
    let join = |cpus: &[usize]| {
        cpus.iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let (list, main_cpu) = (join(cpus), join(main_cpu));
    let _ = writeln!(out, "Total runtime: \t\t{runtime}");
    let _ = writeln!(out, "Thread priority: \t{priority}");
    let _ = writeln!(out, "CPU list: \t\t{list}");
    let _ = writeln!(out, "CPU for main thread: \t{main_cpu}");
    let _ = writeln!(out, "Workload: \t\tno");
    let _ = writeln!(out, "Workload mem: \t\t0 (KiB)");
    let _ = writeln!(out, "Preheat cores: \t\t0");
    out.push('\n');
    out.push_str("Test starts...\n");
    out
}

/// oslat's block for the threads, then rtlat's lines in ns.
pub fn summary(config: &Config, threads: &[PollReport]) -> String {
    let mut out = String::from("Test completed.\n\n");
    let row = |out: &mut String, label: &str, cells: Vec<String>, tail: &str| {
        let _ = writeln!(out, "{label:>12}:\t {}{tail}", cells.join(" "));
    };
    let each = |f: &dyn Fn(&PollReport) -> String| threads.iter().map(f).collect::<Vec<_>>();
    row(
        &mut out,
        "Core",
        each(&|t| t.cpu.map_or("-".into(), |c| c.to_string())),
        "",
    );
    row(&mut out, "Counter Freq", each(&|_| "1000".into()), " (Mhz)");
    let buckets = config.buckets;
    let mut skipping = false;
    for b in 0..buckets {
        let counts = each(&|t| t.micros.counts().get(b).copied().unwrap_or(0).to_string());
        let last = b + 1 == buckets;
        if config.zero_omit && !last && counts.iter().all(|c| c == "0") {
            if !skipping {
                out.push_str("    ...\n");
            }
            skipping = true;
            continue;
        }
        skipping = false;
        let tail = if last { " (including overflows)" } else { "" };
        row(&mut out, &format!("{:03} (us)", b + 1), counts, tail);
    }
    let us = |v: Option<i64>| v.map_or(0, |v| Micros::micros_of(v.max(0) as u64));
    let min = each(&|t| us(t.histogram.min()).to_string());
    let max = each(&|t| us(t.histogram.max()).to_string());
    let spread = each(&|t| (us(t.histogram.max()) - us(t.histogram.min())).to_string());
    row(&mut out, "Minimum", min, " (us)");
    row(
        &mut out,
        "Average",
        each(&|t| format!("{:.3}", t.micros.mean().unwrap_or(0.0))),
        " (us)",
    );
    row(&mut out, "Maximum", max, " (us)");
    row(&mut out, "Max-Min", spread, " (us)");
    row(
        &mut out,
        "Duration",
        each(&|t| format!("{:.3}", t.polled_ns as f64 / 1e9)),
        " (sec)",
    );
    out.push('\n');
    let _ = writeln!(
        out,
        "# rtlat: every gap between two clock reads, exact (ns); spikes: gaps above {} ns",
        config.threshold_ns
    );
    for t in threads {
        let s = t.histogram.summary();
        let [p50, p99, p999, ..] = t.histogram.percentiles(PERCENTILES);
        let opt = |v: Option<i64>| v.map_or("-".into(), |v| v.to_string());
        let _ = writeln!(
            out,
            "# CPU {}: gaps {} min {} avg {} p50 {} p99 {} p99.9 {} max {} spikes {} ({} ns, {:.4} % of the time)",
            t.cpu.map_or("-".into(), |c| c.to_string()),
            s.count(),
            opt(s.min()),
            s.mean().map_or("-".into(), |m| format!("{m:.1}")),
            opt(p50),
            opt(p99),
            opt(p999),
            opt(s.max()),
            t.spikes,
            t.spike_total_ns,
            share(t) * 100.0,
        );
    }
    out
}

/// The share of the time polled that went to spikes.
fn share(t: &PollReport) -> f64 {
    if t.polled_ns == 0 {
        0.0
    } else {
        t.spike_total_ns as f64 / t.polled_ns as f64
    }
}

/// What the JSON says of the run beside the threads.
pub struct RunFacts {
    /// argv joined by spaces.
    pub cmdline: String,
    /// Start and end, seconds since the epoch.
    pub start_unix: u64,
    /// The end.
    pub end_unix: u64,
    /// The exit status.
    pub return_code: i32,
}

/// oslat's JSON document with rtlat's objects.
pub fn json(config: &Config, facts: &RunFacts, threads: &[PollReport]) -> String {
    use crate::cli::run::output::json::{rfc2822_local, sysinfo_fields};
    let thread = threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let s = t.histogram.summary();
            let us = |v: Option<i64>| v.map_or(0, |v| Micros::micros_of(v.max(0) as u64));
            let histogram = t
                .micros
                .counts()
                .iter()
                .enumerate()
                .filter(|(_, c)| **c != 0)
                .map(|(b, c)| ((b + 1).to_string(), *c))
                .collect();
            let percentiles = t.histogram.percentiles(PERCENTILES);
            let entry = Thread {
                cpu: t.cpu.map_or(0, |c| c as u64),
                freq: 1000,
                min: us(s.min()),
                avg: t.micros.mean().unwrap_or(0.0),
                max: us(s.max()),
                duration: (t.polled_ns as f64 / 1e6).round() / 1e3,
                histogram: Entries(histogram),
                rtlat: ThreadExtra {
                    unit: "ns".into(),
                    gaps: s.count(),
                    min: s.min(),
                    mean: s.mean(),
                    max: s.max(),
                    percentiles: Entries(
                        PERCENTILES
                            .iter()
                            .zip(percentiles)
                            .map(|(p, v)| (p.to_string(), v))
                            .collect(),
                    ),
                    spikes: t.spikes,
                    spike_total: t.spike_total_ns,
                    spike_share: share(t),
                    tid: t.tid,
                    allocations: t.allocations,
                },
            };
            (i.to_string(), entry)
        })
        .collect();
    let doc = Document {
        file_version: 1,
        cmdline: facts.cmdline.clone(),
        rt_test_version: OSLAT_VERSION.into(),
        start_time: rfc2822_local(facts.start_unix),
        end_time: rfc2822_local(facts.end_unix),
        return_code: facts.return_code,
        sysinfo: sysinfo_fields(),
        num_threads: threads.len() as u64,
        thread: Entries(thread),
        rtlat: RunExtra {
            version: env!("CARGO_PKG_VERSION").into(),
            command: "noise".into(),
            threshold_ns: config.threshold_ns,
            fail_above_ns: config.fail_above_ns,
            policy: if config.rtprio.is_some() {
                "SCHED_FIFO"
            } else {
                "SCHED_OTHER"
            }
            .into(),
            priority: config.rtprio.unwrap_or(0),
        },
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
