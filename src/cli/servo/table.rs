//! The table of the live and final figures, under latency-test's labels.

use std::fmt::Write as _;

use rtlat_engine::servo::Figures;

/// One thread as the table shows it.
pub(super) struct Row {
    pub(super) label: String,
    pub(super) period_ns: u64,
}

/// `Servo thread (1ms):`, `Base thread (25µs):`: latency-test's labels, with its way of
/// writing a period (`human_time`: the value in s, ms, µs or ns, whichever is the largest
/// unit not above it, printed by awk with six significant digits: `1.5ms`, `12.5µs`,
/// `1.23457ms`).
pub(super) fn thread_label(name: &str, period_ns: u64) -> String {
    let mut title = name.to_string();
    if let Some(first) = title.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    format!("{title} thread ({}):", human_time(period_ns))
}

/// latency-test's `human_time`: `-` for 0, else the period in the largest of s, ms, µs, ns
/// that is not above it, divided down by 1000s in floating point and printed as `%.6g`.
pub fn human_time(period_ns: u64) -> String {
    let (divisions, unit) = match period_ns {
        0 => return "-".into(),
        1_000_000_000.. => (3, "s"),
        1_000_000.. => (2, "ms"),
        1_000.. => (1, "µs"),
        _ => (0, "ns"),
    };
    let mut value = period_ns as f64;
    for _ in 0..divisions {
        value /= 1000.0;
    }
    format!("{}{unit}", six_significant_digits(value))
}

/// `%.6g` for a value from 1 to below 1000 (as awk prints a number): six significant digits,
/// trailing zeros and a trailing point removed.
fn six_significant_digits(value: f64) -> String {
    let decimals = if value >= 100.0 {
        3
    } else if value >= 10.0 {
        4
    } else {
        5
    };
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0');
    text.trim_end_matches('.').to_string()
}

/// The table: a header and one line per thread.
pub(super) fn table(out: &mut String, rows: &[Row], figures: &[Figures]) {
    // In characters: `µs` is two bytes, one column.
    let width = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(
        out,
        "{:width$}  {:>17}  {:>15}  {:>18}  {:>8}",
        "", "Max Interval (ns)", "Max Jitter (ns)", "Last interval (ns)", "Overruns"
    );
    let show = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    for (row, f) in rows.iter().zip(figures) {
        let _ = writeln!(
            out,
            "{:width$}  {:>17}  {:>15}  {:>18}  {:>8}",
            row.label,
            show(f.max_interval_ns),
            show(f.max_jitter_ns),
            show(f.last_interval_ns),
            f.overruns
        );
    }
}
