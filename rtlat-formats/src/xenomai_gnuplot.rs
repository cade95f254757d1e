//! The gnuplot histogram file of Xenomai 3's `latency -g FILE`.
//!
//! ```text
//! # 00:00:04 (periodic user-mode task, 500 us period, priority 99)
//! # ----lat min|----lat avg|----lat max|-overrun|---msw|
//! #      18.180|     32.053|    195.041|       0|     0|
//! # Xenomai version: Xenomai/mercury v3.2.7
//! # Linux vm 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux
//! # Kernel parameters: selinux=0 idle=poll …
//! # Compiler: gcc version 12.2.0 …
//! # Build args: --with-core=mercury …
//! 18 1
//! 18.5 4
//! 19.5 4
//! …
//! 195.5 2
//! 196 1
//! ```
//!
//! Quirks:
//!
//! * the rows are made for a log-scale plot: every count is the real count **plus one** (so
//!   empty buckets show), and the first and last rows (`18 1`, `196 1`) are not buckets but
//!   the low edge of the first non-empty bucket and the high edge of the last, with a count
//!   of 1 that stands for nothing; the rows between are bucket centres (`%g`, µs);
//! * the bucket width is inferred from consecutive centres (or twice the distance from the
//!   first edge to the first centre when there is one bucket);
//! * the histogram is the `avg` one (every sample), of |latency|, with everything past the
//!   last cell in the last cell (see [`super::xenomai_latency`]);
//! * the `#` header (min, avg, max, overruns, versions, kernel parameters) is absent from
//!   older versions: min, avg and max are then unknown.

use super::decimal::{float_micros_to_ns, micros_to_ns};
use super::error::{FormatError, bad_line};
use super::model::{Format, Run, Series};
use super::xenomai_latency::histogram_of;

/// Whether `text` looks like a gnuplot histogram: `#` lines, then a row of two numbers.
pub(crate) fn looks_like(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .and_then(row)
        .is_some()
}

/// A data row: `x count`.
fn row(line: &str) -> Option<(i64, u64)> {
    let mut parts = line.split_whitespace();
    let x = float_micros_to_ns(parts.next()?)?;
    let count = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((x, count))
}

/// Reads a Xenomai `latency -g` gnuplot file.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    if text.trim().is_empty() {
        return Err(FormatError::Empty);
    }
    let mut run = Run::new(Format::XenomaiGnuplot);
    let mut series = Series::new("T0");
    series.resolution_ns = 1;
    let mut rows: Vec<(usize, i64, u64)> = Vec::new();
    let mut summary_next = false;
    let mut first_comment = true;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            if !rows.is_empty() {
                return Err(bad_line(
                    index,
                    "data rows (x count) after the # header",
                    line,
                ));
            }
            let comment = comment.trim();
            let first = std::mem::replace(&mut first_comment, false);
            if summary_next {
                summary_next = false;
                read_summary(comment, index, line, &mut series)?;
            } else if comment.starts_with("----lat min") {
                summary_next = true;
            } else if first {
                // "00:00:04 (periodic user-mode task, 500 us period, priority 99)"
                let (duration, test) = match comment.split_once('(') {
                    Some((d, t)) => (d.trim(), t.trim_end_matches(')').trim()),
                    None => ("", comment),
                };
                if !duration.is_empty() {
                    run.settings.push(("duration".into(), duration.into()));
                }
                run.settings.push(("test".into(), test.into()));
            } else if let Some(uname) = comment.strip_prefix("Linux ") {
                // uname -a: "Linux HOST RELEASE VERSION… MACHINE GNU/Linux"
                let mut parts = uname.split_whitespace();
                run.host = parts.next().map(str::to_string);
                run.kernel = parts.next().map(str::to_string);
            } else if let Some((key, value)) = comment.split_once(':') {
                let key = key.trim().to_lowercase().replace(' ', "_");
                run.settings.push((key, value.trim().to_string()));
            }
            continue;
        }
        let (x, count) = row(line).ok_or_else(|| bad_line(index, "a row \"x count\"", line))?;
        rows.push((index, x, count));
    }
    if rows.len() < 3 {
        return Err(FormatError::Missing {
            what: "histogram rows (an edge row, bucket centres, an edge row)",
        });
    }
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    let centres = &rows[1..rows.len() - 1];
    for (index, _, count) in [first, last] {
        if count != 1 {
            return Err(FormatError::Inconsistent {
                line: Some(index + 1),
                message: format!(
                    "the first and last rows are edges with a count of 1 in Xenomai's \
                     gnuplot files, this one has {count}"
                ),
            });
        }
    }
    // Xenomai prints every bucket from the first non-empty one to the last, so the first two
    // centres (small numbers, exact in %g) are one bucket apart.
    let width: i64 = if centres.len() >= 2 {
        centres[1].1.saturating_sub(centres[0].1)
    } else {
        centres[0].1.saturating_sub(first.1).saturating_mul(2)
    };
    if width <= 0 {
        return Err(FormatError::Inconsistent {
            line: Some(centres[0].0 + 1),
            message: "the bucket centres do not increase".into(),
        });
    }
    let half = width / 2;
    let mut cells = Vec::with_capacity(centres.len());
    for &(index, x, count) in centres {
        let offset = x.saturating_sub(half);
        if offset < 0 || count == 0 {
            return Err(bad_line(
                index,
                "a bucket centre >= 0 with a count of at least 1 (counts are +1)",
                &format!("{} {count}", x as f64 / 1000.0),
            ));
        }
        // Centres are printed with %g (6 significant digits): round to the nearest bucket.
        let bucket = ((offset as i128 + (width as i128) / 2) / width as i128) as u64;
        if cells.last().is_some_and(|&(b, _)| b >= bucket) {
            return Err(FormatError::Inconsistent {
                line: Some(index + 1),
                message: format!(
                    "bucket centre {} µs repeats or goes back",
                    x as f64 / 1000.0
                ),
            });
        }
        cells.push((bucket, count - 1));
    }
    let expected_first = cells[0].0 as i128 * width as i128;
    if (first.1 as i128 - expected_first).abs() > (width as i128) / 4 {
        run.notes.push(format!(
            "the first row ({} µs) is not the low edge of the first bucket",
            first.1 as f64 / 1000.0
        ));
    }
    series.cycles = Some(cells.iter().map(|&(_, c)| c).fold(0, u64::saturating_add));
    series.histogram = Some(histogram_of(
        &cells,
        width as u64,
        series.min,
        series.max,
        &mut run.notes,
    )?);
    if series.min.is_none() {
        run.notes
            .push("no summary in the header: min, avg and max unknown".into());
    }
    run.series.push(series);
    Ok(run)
}

/// The summary line under `----lat min|----lat avg|…`: `18.180| 32.053| 195.041| 0| 0|`.
fn read_summary(
    comment: &str,
    index: usize,
    line: &str,
    series: &mut Series,
) -> Result<(), FormatError> {
    let f: Vec<&str> = comment.split('|').map(str::trim).collect();
    let expected = "\"# min| avg| max| overruns| msw|\" in µs";
    let ns = |i: usize| {
        f.get(i)
            .and_then(|v| micros_to_ns(v))
            .ok_or_else(|| bad_line(index, expected, line))
    };
    series.min = Some(ns(0)?);
    series.avg = Some(ns(1)? as f64);
    series.max = Some(ns(2)?);
    series.overruns = Some(
        f.get(3)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| bad_line(index, expected, line))?,
    );
    Ok(())
}
