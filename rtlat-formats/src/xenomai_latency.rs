//! The standard output of Xenomai 3's `latency` test (testsuite/latency).
//!
//! ```text
//! == Sampling period: 500 us
//! == Test mode: periodic user-mode task
//! == All results in microseconds
//! warming up...
//! RTT|  00:00:01  (periodic user-mode task, 500 us period, priority 99)
//! RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst
//! RTD|     19.558|     33.579|    195.041|       0|     0|     19.558|    195.041
//! ---|--param|----range-|--samples
//! HSD|    avg|  18 - 19 |        3          (-h: one histogram each of min, avg, max)
//! HSH|--param|--samples-|--average--|---stddev--
//! HSS|    avg|      7987|     31.429|      6.776
//! RTS|     18.180|     32.053|    195.041|       0|     0|    00:00:04/00:00:04
//! ```
//!
//! Quirks:
//!
//! * one task: one series, labelled `T0`; each `RTD|` line (one per second, the first second
//!   of warm-up not shown) becomes an [`Interval`]; their overrun and
//!   mode-switch columns are running totals;
//! * µs with three decimals, read exactly;
//! * of the three `-h` histograms, `min` and `max` hold one value per second (that second's
//!   extreme); `avg` holds every sample and is the one used;
//! * `HSD|` ranges are bucket indices: the bucket size (`-B`, 1000 ns by default) is not
//!   printed and is taken to be 1 µs;
//! * Xenomai files each sample under `|latency|` (early wake-ups count as late ones) and
//!   puts everything past its last cell into that cell: when the maximum lies beyond the top
//!   bucket, that bucket's samples are read as overflows at or above its low edge;
//! * the `RTS|` line gives min, avg, max and overruns of the whole run; without it (an
//!   interrupted capture) min and max come from the `RTD|` lines and the average is unknown.

use super::decimal::micros_to_ns;
use super::error::{FormatError, bad_line};
use super::model::{Bucket, Format, Histogram, Interval, Resolution, Run, Series};

/// The line prefixes of `latency`'s output.
const PREFIXES: [&str; 8] = [
    "RTT|", "RTH|", "RTD|", "RTS|", "HSD|", "HSH|", "HSS|", "---|",
];

/// Whether `first_line` (the first non-blank line) starts Xenomai `latency` output.
pub(crate) fn looks_like(first_line: &str) -> bool {
    let line = first_line.trim_start();
    line.starts_with("== ")
        || line.starts_with("warming up")
        || PREFIXES.iter().any(|p| line.starts_with(p))
}

/// The `|`-separated fields after a line's prefix, trimmed.
fn fields(line: &str) -> Vec<&str> {
    line.split('|').skip(1).map(str::trim).collect()
}

fn ns_field(fields: &[&str], i: usize, index: usize, line: &str) -> Result<i64, FormatError> {
    fields
        .get(i)
        .and_then(|f| micros_to_ns(f))
        .ok_or_else(|| bad_line(index, "µs values with three decimals between '|'", line))
}

fn count_field(fields: &[&str], i: usize, index: usize, line: &str) -> Result<u64, FormatError> {
    fields
        .get(i)
        .and_then(|f| f.parse().ok())
        .ok_or_else(|| bad_line(index, "a count between '|'", line))
}

/// Reads Xenomai `latency` output.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    if text.trim().is_empty() {
        return Err(FormatError::Empty);
    }
    let mut run = Run::new(Format::XenomaiLatency);
    let mut series = Series::new("T0");
    series.resolution_ns = 1;
    let mut summary = None;
    let mut histogram: Vec<(u64, u64)> = Vec::new();
    let mut samples = None;
    let mut test = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(setting) = line.strip_prefix("== ") {
            if let Some((k, v)) = setting.split_once(':') {
                let key = k.trim().to_lowercase().replace(' ', "_");
                run.settings.push((key, v.trim().to_string()));
            }
            continue;
        }
        let Some(prefix) = line.get(..4) else {
            continue;
        };
        let f = fields(line);
        match prefix {
            "RTT|" if test.is_none() => {
                let t = f.first().copied().unwrap_or("");
                // "00:00:01  (periodic user-mode task, 500 us period, priority 99)"
                let t = t
                    .split_once('(')
                    .map_or(t, |(_, r)| r.trim_end_matches(')'));
                test = Some(t.trim().to_string());
            }
            "RTD|" => {
                let min = ns_field(&f, 0, index, line)?;
                let avg = ns_field(&f, 1, index, line)?;
                let max = ns_field(&f, 2, index, line)?;
                let overruns = count_field(&f, 3, index, line)?;
                let mode_switches = count_field(&f, 4, index, line)?;
                series.per_second.push(Interval {
                    min,
                    avg,
                    max,
                    overruns,
                    mode_switches,
                });
            }
            "RTS|" => {
                let min = ns_field(&f, 0, index, line)?;
                let avg = ns_field(&f, 1, index, line)?;
                let max = ns_field(&f, 2, index, line)?;
                let overruns = count_field(&f, 3, index, line)?;
                let switches = count_field(&f, 4, index, line)?;
                if let Some(duration) = f.get(5).filter(|d| !d.is_empty()) {
                    run.settings.push(("duration".into(), duration.to_string()));
                }
                summary = Some((min, avg, max, overruns, switches));
            }
            "HSD|" => {
                if f.first() != Some(&"avg") {
                    continue;
                }
                let expected = "HSD|    avg| N - N+1 | samples";
                let range = f.get(1).ok_or_else(|| bad_line(index, expected, line))?;
                let bucket: u64 = range
                    .split_once('-')
                    .and_then(|(low, _)| low.trim().parse().ok())
                    .ok_or_else(|| bad_line(index, expected, line))?;
                let count = count_field(&f, 2, index, line)?;
                if histogram.last().is_some_and(|&(b, _)| b >= bucket) {
                    return Err(FormatError::Inconsistent {
                        line: Some(index + 1),
                        message: format!("histogram bucket {bucket} is out of order"),
                    });
                }
                histogram.push((bucket, count));
            }
            "HSS|" if f.first() == Some(&"avg") => {
                samples = Some(count_field(&f, 1, index, line)?);
            }
            _ => {}
        }
    }
    if summary.is_none() && series.per_second.is_empty() {
        return Err(FormatError::Missing {
            what: "\"RTD|\" or \"RTS|\" result line",
        });
    }
    if let Some(test) = test {
        run.settings.push(("test".into(), test));
    }
    match summary {
        Some((min, avg, max, overruns, switches)) => {
            series.min = Some(min);
            series.avg = Some(avg as f64);
            series.max = Some(max);
            series.overruns = Some(overruns);
            run.settings
                .push(("mode_switches".into(), switches.to_string()));
        }
        None => {
            series.min = series.per_second.iter().map(|s| s.min).min();
            series.max = series.per_second.iter().map(|s| s.max).max();
            series.overruns = series.per_second.last().map(|s| s.overruns);
            run.notes.push(
                "no \"RTS|\" line (interrupted run?): min and max from the \"RTD|\" lines, \
                 average unknown"
                    .into(),
            );
        }
    }
    let in_histogram = histogram
        .iter()
        .map(|&(_, c)| c)
        .fold(0u64, u64::saturating_add);
    series.cycles = samples.or((!histogram.is_empty()).then_some(in_histogram));
    if let Some(samples) = samples
        && samples != in_histogram
    {
        run.notes.push(format!(
            "\"HSS| avg\" counts {samples} samples but the \"HSD| avg\" rows add up to \
             {in_histogram}"
        ));
    }
    if !histogram.is_empty() {
        series.histogram = Some(histogram_of(
            &histogram,
            1000,
            series.min,
            series.max,
            &mut run.notes,
        )?);
    }
    run.series.push(series);
    Ok(run)
}

/// A Xenomai histogram (`(bucket index, count)`, ascending, buckets `bucket_ns` wide) as a
/// [`Histogram`]: when the largest |latency| lies beyond the top bucket, that bucket is
/// Xenomai's catch-all last cell and its samples become overflows at or above its low edge.
pub(crate) fn histogram_of(
    cells: &[(u64, u64)],
    bucket_ns: u64,
    min: Option<i64>,
    max: Option<i64>,
    notes: &mut Vec<String>,
) -> Result<Histogram, FormatError> {
    let width = i64::try_from(bucket_ns).unwrap_or(i64::MAX).max(1);
    let mut buckets = Vec::with_capacity(cells.len());
    for &(index, count) in cells {
        let low = i64::try_from(index)
            .ok()
            .and_then(|i| i.checked_mul(width))
            .ok_or_else(|| FormatError::Inconsistent {
                line: None,
                message: format!("histogram bucket {index} is out of range"),
            })?;
        buckets.push(Bucket {
            low,
            high: low.saturating_add(width - 1),
            count,
        });
    }
    let largest = match (min, max) {
        (Some(a), Some(b)) => Some(a.unsigned_abs().max(b.unsigned_abs())),
        (a, b) => a.or(b).map(i64::unsigned_abs),
    };
    if min.is_some_and(|m| m < 0) {
        notes.push(
            "the minimum is negative: Xenomai's histogram counts |latency|, so early \
             wake-ups count in it as late ones"
                .into(),
        );
    }
    let mut overflow = (0, i64::MAX);
    if let (Some(top), Some(largest)) = (buckets.last().copied(), largest) {
        if largest > top.high as u64 {
            buckets.pop();
            overflow = (top.count, top.low);
            notes.push(format!(
                "the maximum lies beyond the histogram's top bucket: its {} samples are read \
                 as >= {} µs (Xenomai's catch-all last cell)",
                top.count,
                top.low / 1000
            ));
        } else if (top.low as u64) > largest {
            notes.push(
                "the histogram reaches past the maximum: its bucket size is not 1 µs (-B)? \
                 percentiles assume 1 µs"
                    .into(),
            );
        }
    }
    Histogram::new(
        buckets,
        (0, i64::MIN),
        overflow,
        Resolution::Linear {
            width_ns: bucket_ns,
        },
    )
    .map_err(|message| FormatError::Inconsistent {
        line: None,
        message,
    })
}
