//! The comparison itself: series aligned across files, one cell per metric and file, each
//! with its change against the first file, and a worst-case verdict per file.

use rtlat_formats::{Format, Percentile, Run, Series};

/// The rows of the table, top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Samples.
    Cycles,
    /// Smallest latency.
    Min,
    /// Mean latency.
    Avg,
    /// Median, from the histogram.
    P50,
    /// 99th percentile, from the histogram.
    P99,
    /// 99.9th percentile, from the histogram.
    P999,
    /// Largest latency.
    Max,
    /// Missed periods.
    Overruns,
}

impl Metric {
    /// All metrics, in table order.
    pub const ALL: [Metric; 8] = [
        Metric::Cycles,
        Metric::Min,
        Metric::Avg,
        Metric::P50,
        Metric::P99,
        Metric::P999,
        Metric::Max,
        Metric::Overruns,
    ];

    /// The row's name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Cycles => "cycles",
            Metric::Min => "min",
            Metric::Avg => "avg",
            Metric::P50 => "p50",
            Metric::P99 => "p99",
            Metric::P999 => "p99.9",
            Metric::Max => "max",
            Metric::Overruns => "overruns",
        }
    }

    fn percentile(self) -> Option<f64> {
        match self {
            Metric::P50 => Some(50.0),
            Metric::P99 => Some(99.0),
            Metric::P999 => Some(99.9),
            _ => None,
        }
    }
}

/// One metric of one series in one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A count (cycles, overruns).
    Count(u64),
    /// A latency, ns (fractional for averages).
    Latency(f64),
    /// A percentile from the histogram.
    Percentile(Percentile),
    /// Not known; why.
    Missing(String),
    /// The file has no such series; which file.
    Absent(String),
}

impl Value {
    /// The number changes are computed from: counts, latencies and in-bucket percentile
    /// estimates; bounds and missing values have none.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Count(n) => Some(*n as f64),
            Value::Latency(ns) => Some(*ns),
            Value::Percentile(p) => p.value().map(|v| v as f64),
            Value::Missing(_) | Value::Absent(_) => None,
        }
    }
}

/// A value and its change against the first file's.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The value.
    pub value: Value,
    /// `value − first`, when both are numbers (and this is not the first file).
    pub change: Option<f64>,
    /// The change in % of the first file's value, when that is not 0.
    pub change_percent: Option<f64>,
}

/// One series across the files.
#[derive(Debug, Clone)]
pub struct Row {
    /// The series' label (`T0 / CPU0` when compared in order under different labels).
    pub label: String,
    /// Index of the series in each run, `None` where the file has no such series.
    pub members: Vec<Option<usize>>,
    /// One line per metric, one cell per file.
    pub cells: Vec<(Metric, Vec<Cell>)>,
}

/// The worst case of one file against the first.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The first file's worst case, ns.
    pub from: Option<i64>,
    /// This file's worst case, ns.
    pub to: Option<i64>,
    /// The change in %.
    pub percent: Option<f64>,
    /// The line: `worst case 4070.0 µs → 457.5 µs (−88.8 %)`.
    pub text: String,
    /// What changed in the machine's tuning since the first file (both rtlat's, with their
    /// provenance).
    pub changes: Vec<super::changes::Change>,
}

/// Everything `rtlat compare` prints.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The files, in command-line order; each run's `file` is set.
    pub runs: Vec<Run>,
    /// Whether series were matched by label (else by position).
    pub by_label: bool,
    /// What the reader should know about the matching.
    pub matching_notes: Vec<String>,
    /// One row per series.
    pub rows: Vec<Row>,
    /// One verdict per file after the first.
    pub verdicts: Vec<Verdict>,
}

/// The name a run is shown under.
pub fn file_name(run: &Run) -> &str {
    run.file.as_deref().unwrap_or("(text)")
}

/// Compares `runs` (at least one; the first is the reference).
pub fn compare(runs: Vec<Run>) -> Comparison {
    let (by_label, mut rows, matching_notes) = align(&runs);
    for row in &mut rows {
        for metric in Metric::ALL {
            let values: Vec<Value> = runs
                .iter()
                .zip(&row.members)
                .map(|(run, member)| value(run, member.map(|i| &run.series[i]), metric))
                .collect();
            let base = values.first().and_then(Value::number);
            let cells = values
                .into_iter()
                .enumerate()
                .map(|(k, value)| {
                    let (change, change_percent) = match (k, base, value.number()) {
                        (1.., Some(a), Some(b)) => {
                            (Some(b - a), (a != 0.0).then(|| (b - a) / a.abs() * 100.0))
                        }
                        _ => (None, None),
                    };
                    Cell {
                        value,
                        change,
                        change_percent,
                    }
                })
                .collect();
            row.cells.push((metric, cells));
        }
    }
    let base = runs.first().and_then(Run::worst_case);
    let verdicts = runs
        .iter()
        .skip(1)
        .map(|run| Verdict {
            changes: super::changes::changes(&runs[0], run),
            ..verdict(base, run.worst_case(), &runs[0], run)
        })
        .collect();
    Comparison {
        runs,
        by_label,
        matching_notes,
        rows,
        verdicts,
    }
}

/// Rows of series matched by label when every file shares a label with the first, else
/// by position.
fn align(runs: &[Run]) -> (bool, Vec<Row>, Vec<String>) {
    let labels: Vec<Vec<&str>> = runs
        .iter()
        .map(|r| r.series.iter().map(|s| s.label.as_str()).collect())
        .collect();
    let first = labels.first().cloned().unwrap_or_default();
    let by_label = labels
        .iter()
        .skip(1)
        .all(|l| l.iter().any(|x| first.contains(x)));
    let mut notes = Vec::new();
    let mut rows = Vec::new();
    if by_label {
        let mut order: Vec<&str> = Vec::new();
        for l in labels.iter().flatten() {
            if !order.contains(l) {
                order.push(l);
            }
        }
        for label in order {
            let members: Vec<Option<usize>> = labels
                .iter()
                .map(|l| l.iter().position(|x| *x == label))
                .collect();
            let absent: Vec<&str> = runs
                .iter()
                .zip(&members)
                .filter(|(_, m)| m.is_none())
                .map(|(r, _)| file_name(r))
                .collect();
            if !absent.is_empty() {
                notes.push(format!("{label} is not in {}", absent.join(", ")));
            }
            rows.push(Row {
                label: label.to_string(),
                members,
                cells: Vec::new(),
            });
        }
    } else {
        let listing: Vec<String> = runs
            .iter()
            .zip(&labels)
            .map(|(r, l)| format!("{}: {}", file_name(r), l.join(", ")))
            .collect();
        notes.push(format!(
            "labels differ ({}): series compared in order",
            listing.join("; ")
        ));
        let n = labels.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..n {
            let members: Vec<Option<usize>> =
                labels.iter().map(|l| (i < l.len()).then_some(i)).collect();
            let mut names: Vec<&str> = Vec::new();
            for l in &labels {
                if let Some(x) = l.get(i)
                    && !names.contains(x)
                {
                    names.push(x);
                }
            }
            rows.push(Row {
                label: names.join(" / "),
                members,
                cells: Vec::new(),
            });
        }
    }
    (by_label, rows, notes)
}

/// The value of `metric` for `series` (absent: `None`) of `run`.
fn value(run: &Run, series: Option<&Series>, metric: Metric) -> Value {
    let name = file_name(run);
    let Some(s) = series else {
        return Value::Absent(name.to_string());
    };
    let not_in = || Value::Missing(format!("not in {name}"));
    if let Some(p) = metric.percentile() {
        return match &s.histogram {
            None => Value::Missing(format!("no histogram in {name}")),
            Some(h) if h.count() == 0 => Value::Missing("no samples".into()),
            Some(_) => s
                .percentile(p)
                .map_or_else(|| Value::Missing("no samples".into()), Value::Percentile),
        };
    }
    match metric {
        Metric::Cycles => s.cycles.map_or_else(not_in, Value::Count),
        Metric::Min => s.min.map_or_else(not_in, |v| Value::Latency(v as f64)),
        Metric::Avg => s.avg.map_or_else(not_in, Value::Latency),
        Metric::Max => s.max.map_or_else(not_in, |v| Value::Latency(v as f64)),
        Metric::Overruns => match s.overruns {
            Some(n) => Value::Count(n),
            None if !run.format.counts_overruns() => {
                Value::Missing(format!("{} cannot count them", tool(run.format)))
            }
            None => not_in(),
        },
        Metric::P50 | Metric::P99 | Metric::P999 => not_in(),
    }
}

/// The tool that wrote a format.
fn tool(format: Format) -> &'static str {
    match format {
        Format::RtlatJson => "rtlat",
        Format::CyclictestJson | Format::CyclictestHist => "cyclictest",
        Format::Jitterdebugger => "jitterdebugger",
        Format::XenomaiLatency | Format::XenomaiGnuplot => "Xenomai latency",
    }
}

/// `x` rounded to `decimals`, with a sign: `+1.5`, `−88.8` (U+2212), `±0.0` when it rounds
/// to zero.
pub fn signed(x: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, x.abs());
    let zero = text.bytes().all(|b| b == b'0' || b == b'.');
    if zero {
        format!("±{text}")
    } else if x < 0.0 {
        format!("\u{2212}{text}")
    } else {
        format!("+{text}")
    }
}

/// ns as µs with one decimal: `4070.0 µs`.
pub fn micros(ns: f64) -> String {
    let text = format!("{:.1}", ns / 1000.0);
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().any(|b| b != b'0' && b != b'.') => {
            format!("\u{2212}{rest} µs")
        }
        Some(rest) => format!("{rest} µs"),
        None => format!("{text} µs"),
    }
}

fn verdict(from: Option<i64>, to: Option<i64>, first: &Run, run: &Run) -> Verdict {
    match (from, to) {
        (Some(a), Some(b)) => {
            let percent = (a != 0).then(|| (b as f64 - a as f64) / (a as f64).abs() * 100.0);
            let change =
                percent.map_or_else(|| "n/a".to_string(), |p| format!("{} %", signed(p, 1)));
            Verdict {
                from,
                to,
                percent,
                changes: Vec::new(),
                text: format!(
                    "worst case {} → {} ({change})",
                    micros(a as f64),
                    micros(b as f64)
                ),
            }
        }
        _ => {
            let missing = if from.is_none() { first } else { run };
            Verdict {
                from,
                to,
                percent: None,
                changes: Vec::new(),
                text: format!("worst case n/a (no maximum in {})", file_name(missing)),
            }
        }
    }
}

/// The tag of file `i` in the tables: `A`, `B` … `Z`, then `F27` ….
pub fn tag(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => format!("F{}", i + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::{micros, signed};

    #[test]
    fn signs_and_units() {
        assert_eq!(signed(-88.78, 1), "\u{2212}88.8");
        assert_eq!(signed(12.25, 1), "+12.2");
        assert_eq!(signed(0.0, 1), "±0.0");
        assert_eq!(signed(-0.04, 1), "±0.0");
        assert_eq!(signed(-3.0, 0), "\u{2212}3");
        assert_eq!(signed(0.0, 0), "±0");
        assert_eq!(micros(4_070_000.0), "4070.0 µs");
        assert_eq!(micros(457_500.0), "457.5 µs");
        assert_eq!(micros(-1_250.0), "\u{2212}1.2 µs");
        assert_eq!(micros(-10.0), "0.0 µs");
    }
}
