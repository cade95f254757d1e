//! cyclictest's text output, byte for byte: the live and `-q` `T:` lines, the `-h`/`-H`
//! histogram with its trailer, the `-b` break lines, `-v` samples and the SIGUSR1 block.

use std::fmt::Write;

use rtlat_core::report::CyclictestLine;

use rtlat_engine::LiveFigures;
use rtlat_engine::run::ThreadReport;

/// What the `T:` line needs besides the live figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineHeader {
    /// Thread number.
    pub index: usize,
    /// Kernel thread id (0 before the thread started).
    pub tid: i32,
    /// RT priority.
    pub priority: i32,
    /// Interval, µs.
    pub interval_us: u64,
    /// `--smi`: the line ends with the SMIs counted (` SMI:%8ld`).
    pub smi: bool,
}

/// cyclictest's `T:` line (newline included). Before the first cycle cyclictest shows its
/// initial minimum of 1000000; so does this. With `--smi`, cyclictest's SMI column follows
/// `Max:`.
pub fn thread_line(out: &mut String, header: LineHeader, f: &LiveFigures, nanoseconds: bool) {
    let unit = if nanoseconds { 1 } else { 1000 };
    let line = CyclictestLine {
        thread: header.index as u32,
        tid: header.tid,
        priority: header.priority,
        interval_us: header.interval_us,
        cycles: f.cycles,
        min_ns: if f.cycles == 0 {
            1_000_000 * unit
        } else {
            f.min_ns
        },
        act_ns: f.act_ns,
        avg_ns: f.avg_ns(),
        max_ns: f.max_ns,
        nanoseconds,
    };
    let _ = write!(out, "{line}");
    if header.smi {
        let _ = write!(out, " SMI:{:8}", f.smis);
    }
    out.push('\n');
}

/// The live header: `policy: fifo: loadavg: …` and a blank line. `policy` is cyclictest's
/// policy text (`fifo`, `other/other`, `batch/other`, …).
pub fn live_header(out: &mut String, policy: &str, loadavg: &str) {
    let _ = write!(out, "policy: {policy}: loadavg: {loadavg}          \n\n");
}

/// Moves the cursor back over the live block (threads + 2 lines).
pub fn cursor_up(out: &mut String, threads: usize) {
    let _ = write!(out, "\x1b[{}A", threads + 2);
}

/// Moves the cursor back down below the live block (threads + 2 lines), as cyclictest `-M`
/// does at the end.
pub fn cursor_down(out: &mut String, threads: usize) {
    let _ = write!(out, "\x1b[{}B", threads + 2);
}

/// One `-v` sample line: `%8d:%8lu:%8ld`, and with `--smi` the cycle's SMIs after it
/// (`%8ld`, no separator: cyclictest's).
pub fn verbose_line(
    out: &mut String,
    index: usize,
    cycle: u64,
    latency_ns: i64,
    smis: Option<u64>,
    nanoseconds: bool,
) {
    let value = if nanoseconds {
        latency_ns
    } else {
        latency_ns / 1000
    };
    let _ = write!(out, "{index:8}:{cycle:8}:{value:8}");
    if let Some(smis) = smis {
        let _ = write!(out, "{smis:8}");
    }
    out.push('\n');
}

/// The SIGUSR1 status block (cyclictest writes it to stderr).
pub fn status_block(out: &mut String, lines: &[(LineHeader, LiveFigures)], nanoseconds: bool) {
    out.push_str("#---------------------------\n# cyclictest current status:\n");
    for (header, figures) in lines {
        thread_line(out, *header, figures, nanoseconds);
    }
    out.push_str("#---------------------------\n");
}

/// The `-h`/`-H` histogram and its trailer lines. `histofall` adds the all-threads column
/// (only with more than one thread, like cyclictest). `extra` adds rtlat's own trailer lines
/// (all starting with `# `, where no cyclictest parser looks); pass false under the name
/// `cyclictest`.
pub fn histogram<W: Write>(
    out: &mut W,
    threads: &[ThreadReport],
    histofall: bool,
    nanoseconds: bool,
    extra: bool,
) -> std::fmt::Result {
    let unit = if nanoseconds { 1 } else { 1000 };
    let total_column = histofall && threads.len() > 1;
    let buckets = threads
        .iter()
        .filter_map(|t| t.linear.as_ref())
        .map(|l| l.counts.len())
        .max()
        .unwrap_or(0);
    let count = |t: &ThreadReport, i: usize| {
        t.linear
            .as_ref()
            .and_then(|l| l.counts.get(i).copied())
            .unwrap_or(0)
    };
    out.write_str("# Histogram\n")?;
    let mut totals = vec![0u64; threads.len() + 1];
    for i in 0..buckets {
        write!(out, "{i:06} ")?;
        let mut all = 0u64;
        for (j, t) in threads.iter().enumerate() {
            let c = count(t, i);
            write!(out, "{c:06}")?;
            if j + 1 < threads.len() {
                out.write_char('\t')?;
            }
            totals[j] += c;
            all += c;
        }
        if total_column {
            write!(out, "\t{all:06}")?;
            totals[threads.len()] += all;
        }
        out.write_char('\n')?;
    }
    let columns = if total_column {
        threads.len() + 1
    } else {
        threads.len()
    };
    out.write_str("# Total:")?;
    for total in &totals[..columns] {
        write!(out, " {total:09}")?;
    }
    out.write_str("\n# Min Latencies:")?;
    for t in threads {
        let min = t.summary().min().map_or(1_000_000, |ns| ns / unit);
        write!(out, " {min:05}")?;
    }
    out.write_str("\n# Avg Latencies:")?;
    for t in threads {
        let avg = t.summary().mean_truncated().map_or(0, |ns| ns / unit);
        write!(out, " {avg:05}")?;
    }
    out.write_str("\n# Max Latencies:")?;
    let mut maxmax = 0i64;
    for t in threads {
        let max = t.summary().max().map_or(0, |ns| ns / unit);
        maxmax = maxmax.max(max);
        write!(out, " {max:05}")?;
    }
    if total_column {
        write!(out, " {maxmax:05}")?;
    }
    out.write_str("\n# Histogram Overflows:")?;
    let overflows = |t: &ThreadReport| t.linear.as_ref().map_or(0, |l| l.overflows);
    for t in threads {
        write!(out, " {:05}", overflows(t))?;
    }
    if total_column {
        write!(out, " {:05}", threads.iter().map(overflows).sum::<u64>())?;
    }
    out.write_str("\n# Histogram Overflow at cycle number:\n")?;
    for (i, t) in threads.iter().enumerate() {
        write!(out, "# Thread {i}:")?;
        if let Some(l) = &t.linear {
            for cycle in &l.overflow_cycles {
                write!(out, " {cycle:05}")?;
            }
            let listed = l.overflow_cycles.len() as u64;
            if listed < l.overflows {
                write!(out, " # {:05} others", l.overflows - listed)?;
            }
        }
        out.write_char('\n')?;
    }
    // --smi: each thread's count (cyclictest's `# SMIs:` line, no total column).
    if threads.iter().any(|t| t.smis.is_some()) {
        out.write_str("# SMIs:")?;
        for t in threads {
            write!(out, " {:05}", t.smis.unwrap_or(0))?;
        }
        out.write_char('\n')?;
    }
    if extra {
        extra_trailer(out, threads, nanoseconds)?;
    }
    out.write_char('\n')
}

/// rtlat's additions to the histogram trailer: lines starting with `# ` that cyclictest's
/// parsers skip.
fn extra_trailer<W: Write>(
    out: &mut W,
    threads: &[ThreadReport],
    nanoseconds: bool,
) -> std::fmt::Result {
    let unit_name = if nanoseconds { "ns" } else { "us" };
    let unit = if nanoseconds { 1 } else { 1000 };
    out.write_str("# rtlat Overruns:")?;
    for t in threads {
        write!(out, " {:05}", t.overruns)?;
    }
    out.write_str("\n# rtlat Early wake-ups (counted in the overflows):")?;
    for t in threads {
        write!(out, " {:05}", t.linear.as_ref().map_or(0, |l| l.underflows))?;
    }
    for (label, p) in [("P99", 99.0), ("P99.9", 99.9), ("P99.99", 99.99)] {
        write!(out, "\n# rtlat {label} Latencies ({unit_name}):")?;
        for t in threads {
            // Kept whenever -h is given (`kept_histogram`).
            let v = t.histogram.as_ref().and_then(|h| h.percentile(p));
            let v = v.map_or(0, |ns| ns / unit);
            write!(out, " {v:05}")?;
        }
    }
    out.write_char('\n')
}

/// The `-b` lines printed at exit: thread ids, the breaking thread and its value.
pub fn break_lines(out: &mut String, threads: &[ThreadReport], break_tid: i32, nanoseconds: bool) {
    out.push_str("# Thread Ids:");
    for t in threads {
        let _ = write!(out, " {:05}", t.tid);
    }
    out.push('\n');
    if let Some(t) = threads
        .iter()
        .find(|t| t.tid == break_tid && t.broke.is_some())
    {
        let unit = if nanoseconds { 1 } else { 1000 };
        let value = t.broke.map_or(0, |s| s.latency_ns / unit);
        let _ = write!(out, "# Break thread: {break_tid}\n# Break value: {value}\n");
    }
}

/// The `--spike` report: the kept spikes of all threads in time order (at most `nodes`), as
/// `T:%2d Spike:%8ld: TS: %12ld` (latency in the display unit, wake-up time in µs), then the
/// total count. Nothing when no latency crossed the trigger.
pub fn spikes(out: &mut String, threads: &[ThreadReport], nodes: usize, nanoseconds: bool) {
    let total: u64 = threads.iter().map(|t| t.spikes_total).sum();
    if total == 0 {
        return;
    }
    let unit = if nanoseconds { 1 } else { 1000 };
    let mut all: Vec<(u64, usize, i64)> = threads
        .iter()
        .flat_map(|t| {
            t.spikes
                .iter()
                .map(move |&(latency, wake)| (wake, t.index, latency))
        })
        .collect();
    all.sort_unstable();
    all.truncate(nodes);
    out.push('\n');
    for (wake, index, latency) in all {
        let _ = writeln!(
            out,
            "T:{index:2} Spike:{:8}: TS: {:12}",
            latency / unit,
            wake / 1000
        );
    }
    let _ = write!(out, "spikes = {total}\n\n");
}
