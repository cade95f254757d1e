//! cyclictest's `-h`/`-H` histogram text (on standard output or in a `--histfile`), and
//! rtlat's, which adds `# rtlat …` trailer lines.
//!
//! ```text
//! # /dev/cpu_dma_latency set to 0us        (optional; absent from --histfile)
//! # Histogram
//! 000000 000000<TAB>000000               (%06d bucket, then a TAB-separated %06lu per thread)
//! …
//! # Total: 000002000 000001999
//! # Min Latencies: 00007 00008
//! # Avg Latencies: 00013 00013
//! # Max Latencies: 00098 00380
//! # Histogram Overflows: 00000 00001
//! # Histogram Overflow at cycle number:
//! # Thread 0:
//! # Thread 1: 00522
//! ```
//!
//! Quirks:
//!
//! * `-H` adds an all-threads column to the rows and to the `Total`, `Max` and `Overflows`
//!   lines (not to `Min` and `Avg`), and only with more than one thread: the thread count is
//!   taken from the `Min Latencies` line and a row one wider has the total column, which is
//!   skipped;
//! * `Total` is the sum of the rows, not the cycles: cycles are `Total + Overflows`;
//! * `Avg` is whole µs, truncated;
//! * the unit is not written: µs, unless rtlat's `# rtlat P99 Latencies (ns):` says ns
//!   (cyclictest `-N -h` output is read as µs: there is no way to tell);
//! * `# Thread N:` lists the cycles of the first overflows, maybe ending in `# NNNNN others`;
//! * rtlat's `# rtlat Overruns:` gives the overruns, and its `# rtlat Early wake-ups`
//!   (negative latencies, which cyclictest also counts as overflows) move from the overflows
//!   to the underflows.

use super::error::{FormatError, bad_line};
use super::model::{Bucket, Format, Histogram, Resolution, Run, Series};

/// Whether `text` starts like a cyclictest histogram: blank lines, `# /dev/cpu_dma_latency`
/// and cyclictest's live `T:` status lines may come before `# Histogram`.
pub(crate) fn looks_like(text: &str) -> bool {
    histogram_line(text).is_some()
}

/// 0-based index of the `# Histogram` line, when only preamble lines come before it.
fn histogram_line(text: &str) -> Option<usize> {
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line == "# Histogram" {
            return Some(i);
        }
        let preamble = line.is_empty()
            || line.starts_with("# /dev/cpu_dma_latency")
            || line.starts_with("T:")
            || line.starts_with('\u{1b}');
        if !preamble {
            return None;
        }
    }
    None
}

/// Per-column values of a trailer line: `"# Min Latencies: 00007 00008"` → `[7, 8]`.
fn values(rest: &str, index: usize, line: &str) -> Result<Vec<u64>, FormatError> {
    rest.split_whitespace()
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| bad_line(index, "numbers after the colon", line))
        })
        .collect()
}

#[derive(Default)]
struct Trailer {
    total: Option<(usize, Vec<u64>)>,
    min: Option<Vec<u64>>,
    avg: Option<Vec<u64>>,
    max: Option<Vec<u64>>,
    overflows: Option<(usize, Vec<u64>)>,
    thread_lines: usize,
    overruns: Option<Vec<u64>>,
    early: Option<Vec<u64>>,
    nanoseconds: bool,
}

/// Reads cyclictest `-h`/`-H` histogram text.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let mut reader = Reader::default();
    for (index, line) in text.lines().enumerate() {
        reader.line(index, line)?;
    }
    reader.finish()
}

/// Where a [`Reader`] is in the text.
#[derive(Default, PartialEq, Eq)]
enum Part {
    /// Before `# Histogram`, nothing but blank lines.
    #[default]
    Blank,
    /// Before `# Histogram`, after a preamble line.
    Preamble,
    /// The rows.
    Rows,
    /// The `#` lines after the rows.
    Trailer,
}

/// A cyclictest histogram read a line at a time, so that a file is streamed and never held
/// whole: only the rows with a count are kept (most of a wide `-h` histogram is zeros), so the
/// memory is that of the non-empty buckets, whatever the file's size.
#[derive(Default)]
pub(crate) struct Reader {
    part: Part,
    rows: Rows,
    counts: Vec<u64>,
    columns: Option<usize>,
    trailer: Trailer,
}

impl Reader {
    /// Reads line `index` (0-based) of the text.
    pub(crate) fn line(&mut self, index: usize, raw: &str) -> Result<(), FormatError> {
        let line = raw.trim();
        if matches!(self.part, Part::Blank | Part::Preamble) {
            if line == "# Histogram" {
                self.part = Part::Rows;
            } else if !line.is_empty() {
                let preamble = line.starts_with("# /dev/cpu_dma_latency")
                    || line.starts_with("T:")
                    || line.starts_with('\u{1b}');
                if !preamble {
                    return Err(missing_histogram_line());
                }
                self.part = Part::Preamble;
            }
            return Ok(());
        }
        if line.is_empty() {
            return Ok(());
        }
        if let Some(comment) = line.strip_prefix('#') {
            self.part = Part::Trailer;
            return read_trailer_line(comment.trim(), index, line, &mut self.trailer);
        }
        let first = line.as_bytes()[0];
        if !first.is_ascii_digit() {
            // cyclictest's live status lines and anything else a user captured with it.
            if line.starts_with("T:") || first == 0x1b {
                return Ok(());
            }
            return Err(bad_line(index, "a histogram row (%06d then counts)", line));
        }
        if self.part == Part::Trailer {
            return Err(bad_line(
                index,
                "trailer lines after the histogram rows",
                line,
            ));
        }
        let mut fields = line.split_whitespace();
        let bucket: u64 = fields
            .next()
            .and_then(|b| b.parse().ok())
            .ok_or_else(|| bad_line(index, "a bucket number", line))?;
        let counts = &mut self.counts;
        counts.clear();
        for field in fields {
            let count = field
                .parse::<u64>()
                .map_err(|_| bad_line(index, "counts (numbers) after the bucket", line))?;
            counts.push(count);
        }
        match self.columns {
            None => self.columns = Some(counts.len()),
            Some(c) if c != counts.len() => {
                return Err(FormatError::Inconsistent {
                    line: Some(index + 1),
                    message: format!(
                        "this row has {} counts, the rows above have {c}",
                        counts.len()
                    ),
                });
            }
            Some(_) => {}
        }
        if let Some(previous) = self.rows.last_bucket
            && bucket <= previous
        {
            return Err(FormatError::Inconsistent {
                line: Some(index + 1),
                message: format!("bucket {bucket} comes after bucket {previous}"),
            });
        }
        self.rows.push(bucket, counts);
        Ok(())
    }

    /// The run, once every line is read.
    pub(crate) fn finish(self) -> Result<Run, FormatError> {
        match self.part {
            Part::Blank => return Err(FormatError::Empty),
            Part::Preamble => return Err(missing_histogram_line()),
            Part::Rows | Part::Trailer => {}
        }
        let Reader {
            rows,
            columns,
            trailer,
            ..
        } = self;
        let mut run = Run::new(Format::CyclictestHist);
        let min = trailer.min.clone().ok_or(FormatError::Missing {
            what: "\"# Min Latencies:\" line",
        })?;
        let threads = min.len();
        let (total_line, totals) = trailer.total.clone().ok_or(FormatError::Missing {
            what: "\"# Total:\" line",
        })?;
        let (_, overflows) = trailer.overflows.clone().ok_or(FormatError::Missing {
            what: "\"# Histogram Overflows:\" line",
        })?;
        let max = trailer.max.clone().ok_or(FormatError::Missing {
            what: "\"# Max Latencies:\" line",
        })?;
        let avg = trailer.avg.clone().ok_or(FormatError::Missing {
            what: "\"# Avg Latencies:\" line",
        })?;
        let columns = columns.unwrap_or(threads);
        let total_column = threads > 1 && columns == threads + 1;
        if columns != threads && !total_column {
            return Err(FormatError::Inconsistent {
                line: None,
                message: format!(
                    "the rows have {columns} count columns but \"# Min Latencies:\" names {threads} \
                 threads"
                ),
            });
        }
        let wide = threads + usize::from(total_column);
        for (name, got) in [
            ("# Total:", totals.len()),
            ("# Max Latencies:", max.len()),
            ("# Histogram Overflows:", overflows.len()),
        ] {
            if got != wide {
                return Err(FormatError::Inconsistent {
                    line: None,
                    message: format!("\"{name}\" has {got} values, expected {wide}"),
                });
            }
        }
        if avg.len() != threads {
            return Err(FormatError::Inconsistent {
                line: None,
                message: format!(
                    "\"# Avg Latencies:\" has {} values, expected {threads}",
                    avg.len()
                ),
            });
        }
        if trailer.thread_lines != 0 && trailer.thread_lines != threads {
            run.notes.push(format!(
                "{} \"# Thread N:\" lines for {threads} threads",
                trailer.thread_lines
            ));
        }
        let unit: u64 = if trailer.nanoseconds { 1 } else { 1000 };
        let limit_buckets = rows.last_bucket.map_or(0, |b| b.saturating_add(1));
        let limit = i64::try_from(limit_buckets)
            .ok()
            .and_then(|b| b.checked_mul(unit as i64))
            .unwrap_or(i64::MAX);
        let ns = |v: u64| -> Result<i64, FormatError> {
            i64::try_from(v)
                .ok()
                .and_then(|v| v.checked_mul(unit as i64))
                .ok_or_else(|| FormatError::Inconsistent {
                    line: None,
                    message: format!("latency {v} is out of range"),
                })
        };
        for t in 0..threads {
            let in_range = rows
                .iter()
                .map(|(_, c)| c[t])
                .fold(0u64, u64::saturating_add);
            if in_range != totals[t] {
                return Err(FormatError::Inconsistent {
                    line: Some(total_line + 1),
                    message: format!(
                        "\"# Total:\" gives {} for thread {t} but its column adds up to {in_range}",
                        totals[t]
                    ),
                });
            }
            let early = trailer
                .early
                .as_ref()
                .and_then(|e| e.get(t).copied())
                .unwrap_or(0)
                .min(overflows[t]);
            let buckets: Vec<Bucket> = rows
                .iter()
                .filter(|(_, c)| c[t] != 0)
                .map(|(b, c)| {
                    let low = ns(b)?;
                    Ok(Bucket {
                        low,
                        high: low.saturating_add(unit as i64 - 1),
                        count: c[t],
                    })
                })
                .collect::<Result<_, FormatError>>()?;
            let mut series = Series::new(format!("T{t}"));
            series.resolution_ns = unit;
            let cycles = totals[t].saturating_add(overflows[t]);
            series.cycles = Some(cycles);
            if cycles > 0 {
                series.min = Some(ns(min[t])?);
                series.avg = Some(ns(avg[t])? as f64);
                series.max = Some(ns(max[t])?);
            }
            series.overruns = trailer.overruns.as_ref().and_then(|o| o.get(t).copied());
            series.histogram = Some(
                Histogram::new(
                    buckets,
                    (early, 0),
                    (overflows[t] - early, limit),
                    Resolution::Linear { width_ns: unit },
                )
                .map_err(|message| FormatError::Inconsistent {
                    line: None,
                    message,
                })?,
            );
            run.series.push(series);
        }
        run.notes.push(format!(
            "averages are whole {} (truncated) in this format",
            if unit == 1 { "ns" } else { "µs" }
        ));
        if total_column {
            run.notes
                .push("the -H all-threads column is not compared".to_string());
        }
        Ok(run)
    }
}

fn missing_histogram_line() -> FormatError {
    FormatError::Missing {
        what: "\"# Histogram\" line at the start",
    }
}

/// The histogram rows that hold a count: their buckets, and their counts one row after another.
#[derive(Default)]
struct Rows {
    buckets: Vec<u64>,
    counts: Vec<u64>,
    /// The last bucket read, empty or not: the histogram's range ends after it.
    last_bucket: Option<u64>,
}

impl Rows {
    /// Adds a row (its counts all of one width, which the caller checks).
    fn push(&mut self, bucket: u64, counts: &[u64]) {
        self.last_bucket = Some(bucket);
        if counts.iter().any(|&c| c != 0) {
            self.buckets.push(bucket);
            self.counts.extend_from_slice(counts);
        }
    }

    /// The kept rows: bucket and counts.
    fn iter(&self) -> impl Iterator<Item = (u64, &[u64])> {
        let width = self.counts.len() / self.buckets.len().max(1);
        self.buckets
            .iter()
            .copied()
            .zip(self.counts.chunks(width.max(1)))
    }
}

/// One `#` line after the rows (`comment` is the text after `#`, trimmed).
fn read_trailer_line(
    comment: &str,
    index: usize,
    line: &str,
    t: &mut Trailer,
) -> Result<(), FormatError> {
    let Some((key, rest)) = comment.split_once(':') else {
        return Ok(()); // A comment rtlat does not know: skipped, as cyclictest's parsers do.
    };
    let key = key.trim();
    match key {
        "Total" => t.total = Some((index, values(rest, index, line)?)),
        "Min Latencies" => t.min = Some(values(rest, index, line)?),
        "Avg Latencies" => t.avg = Some(values(rest, index, line)?),
        "Max Latencies" => t.max = Some(values(rest, index, line)?),
        "Histogram Overflows" => t.overflows = Some((index, values(rest, index, line)?)),
        "rtlat Overruns" => t.overruns = Some(values(rest, index, line)?),
        "rtlat Early wake-ups (counted in the overflows)" => {
            t.early = Some(values(rest, index, line)?)
        }
        _ if key.starts_with("Thread ") => t.thread_lines += 1,
        _ if key.starts_with("rtlat P") && key.ends_with("(ns)") => t.nanoseconds = true,
        _ => {}
    }
    Ok(())
}
