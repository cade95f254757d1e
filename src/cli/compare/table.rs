//! The text report: the files, one table per series, notes, the verdicts, and the spikes
//! `rtlat run --explain` explained (where a file has them).

use std::fmt::Write as _;

use rtlat_formats::{Percentile, Run};

use super::report::{Cell, Comparison, Value, file_name, micros, signed, tag};
use super::spikes;

/// A value as the table shows it.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Count(n) => n.to_string(),
        Value::Latency(ns) => micros(*ns),
        Value::Percentile(Percentile::Within { value, .. }) => micros(*value as f64),
        Value::Percentile(Percentile::AtLeast(limit)) => format!(">= {}", micros(*limit as f64)),
        Value::Percentile(Percentile::Below(limit)) => format!("< {}", micros(*limit as f64)),
        Value::Missing(why) => format!("n/a ({why})"),
        Value::Absent(_) => "—".to_string(),
    }
}

/// A cell's change as the table shows it: `+0.1 µs (+0.6 %)`, `±0 (±0.0 %)`.
pub fn change_text(cell: &Cell) -> String {
    let Some(change) = cell.change else {
        return String::new();
    };
    let absolute = match cell.value {
        Value::Count(_) => signed(change, 0),
        _ => format!("{} µs", signed(change / 1000.0, 1)),
    };
    match cell.change_percent {
        Some(p) => format!("{absolute} ({} %)", signed(p, 1)),
        None => absolute,
    }
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad(out: &mut String, s: &str, w: usize) {
    out.push_str(s);
    for _ in width(s)..w {
        out.push(' ');
    }
}

/// What a run says about itself in one line: format, series, host, kernel.
fn describe(run: &Run) -> String {
    let mut parts = vec![run.format.name().to_string()];
    let n = run.series.len();
    let what = match run.format {
        rtlat_formats::Format::Jitterdebugger => "CPU",
        _ => "thread",
    };
    parts.push(format!("{n} {what}{}", if n == 1 { "" } else { "s" }));
    if let Some(host) = &run.host {
        parts.push(format!("host {host}"));
    }
    if let Some(kernel) = &run.kernel {
        parts.push(format!("kernel {kernel}"));
    }
    parts.join(", ")
}

/// The whole text report.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let name_width = c
        .runs
        .iter()
        .map(|r| width(file_name(r)))
        .max()
        .unwrap_or(0);
    for (i, run) in c.runs.iter().enumerate() {
        let _ = write!(out, "{:<3}", tag(i));
        pad(&mut out, file_name(run), name_width + 2);
        out.push_str(&describe(run));
        out.push('\n');
    }
    for row in &c.rows {
        // Columns: metric, A, then value and change for each later file.
        let mut table: Vec<Vec<String>> = Vec::new();
        let mut header = vec![row.label.clone(), tag(0)];
        for i in 1..c.runs.len() {
            header.push(tag(i));
            header.push(format!("vs {}", tag(0)));
        }
        table.push(header);
        for (metric, cells) in &row.cells {
            let mut line = vec![format!("  {}", metric.name())];
            for (k, cell) in cells.iter().enumerate() {
                line.push(value_text(&cell.value));
                if k > 0 {
                    line.push(change_text(cell));
                }
            }
            table.push(line);
        }
        let columns = table.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|j| {
                table
                    .iter()
                    .filter_map(|l| l.get(j))
                    .map(|s| width(s))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        out.push('\n');
        for line in &table {
            let mut text = String::new();
            for (j, s) in line.iter().enumerate() {
                pad(&mut text, s, widths[j] + 2);
            }
            out.push_str(text.trim_end());
            out.push('\n');
        }
    }
    let mut notes: Vec<String> = c.matching_notes.clone();
    let resolutions: Vec<String> = c
        .runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let h = r.series.iter().find_map(|s| s.histogram.as_ref())?;
            Some(format!("{} {}", tag(i), h.resolution()))
        })
        .collect();
    if !resolutions.is_empty() {
        notes.push(format!(
            "percentiles: nearest rank in each file's histogram, the middle of the bucket \
             ({}); \">=\" marks a value beyond the histogram",
            resolutions.join(", ")
        ));
    }
    for (i, run) in c.runs.iter().enumerate() {
        for note in &run.notes {
            notes.push(format!("{}: {note}", tag(i)));
        }
    }
    if !notes.is_empty() {
        out.push_str("\nNotes\n");
        for note in &notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    if !c.verdicts.is_empty() {
        out.push('\n');
        for (i, v) in c.verdicts.iter().enumerate() {
            let _ = writeln!(
                out,
                "{} {}: {}{}",
                tag(i + 1),
                file_name(&c.runs[i + 1]),
                v.text,
                if v.changes.is_empty() { "" } else { ", with:" }
            );
            for change in &v.changes {
                let _ = writeln!(out, "    {}: {}", change.key, change.text);
            }
        }
    }
    out.push_str(&spikes::render(c));
    out
}
