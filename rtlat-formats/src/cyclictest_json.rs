//! cyclictest's `--json` file (rt-tests 2.x).
//!
//! ```json
//! { "file_version": 1, "cmdline:": "cyclictest … -h 200 --json=…", "rt_test_version:": "2.40",
//!   "start_time": "…", "end_time": "…", "return_code": 0,
//!   "sysinfo": { "sysname": "Linux", "nodename": "vm", "release": "6.18…", "version": "#1 SMP …",
//!                "machine": "x86_64", "realtime": 0 },
//!   "num_threads": 2, "resolution_in_ns": 0,
//!   "thread": { "0": { "histogram": { "7": 2, "8": 4 }, "cycles": 2000, "min": 7, "max": 98,
//!                      "avg": 13.08, "cpu": 0, "node": -1 }, … } }
//! ```
//!
//! Quirks:
//!
//! * two keys really end in a colon (`"cmdline:"`, `"rt_test_version:"`);
//! * values are whole µs, or ns when `resolution_in_ns` is 1 (which is really the `-N` flag);
//! * the histogram holds only the buckets below the `-h` limit: the overflows are
//!   `cycles` less the histogram's sum, and the limit itself is only in the command line
//!   (read from `-h N`/`-H N`/`--histogram=N`/`--histofall=N`; when absent, the bucket above
//!   the highest one seen is taken as a lower bound);
//! * without `-h` (and with `-N` runs) the histogram is empty (`{      }`): no percentiles;
//! * cyclictest cannot count overruns: `overruns` is `None`.

use serde_json::{Number, Value};

use super::error::FormatError;
use super::json;
use super::model::{Bucket, Format, Histogram, Resolution, Run, Series};
use super::schema::cyclictest::{Document, LinearHistogram, Sysinfo, Thread};
use super::schema::{Count, Entries, Expected, Field, bad_value};

/// Reads a cyclictest `--json` file.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let doc: Document = json::document(text)?;
    let mut run = Run::new(Format::CyclictestJson);
    read_header(&doc, &mut run)?;
    let unit_ns = unit_ns(&doc)?;
    let buckets = histogram_size(&doc);
    for (key, thread) in doc.thread.required("thread")?.numbered() {
        let path = json::path("thread", key);
        let thread = thread.required(&path)?;
        let series = thread_series(key, thread, &path, unit_ns, buckets, &mut run.notes)?;
        run.series.push(series);
    }
    check_thread_count(&doc, &mut run);
    Ok(run)
}

/// The `-h` histogram size named by the document's command line, if any.
pub(crate) fn histogram_size(doc: &Document) -> Option<u64> {
    doc.cmdline
        .valid()
        .and_then(|cmdline| histogram_buckets(cmdline))
}

/// The unit of the file's values: 1 ns with `"resolution_in_ns": 1`, else 1 µs.
pub(crate) fn unit_ns(doc: &Document) -> Result<u64, FormatError> {
    let Some(value) = doc.resolution_in_ns.raw() else {
        return Ok(1000);
    };
    match Count::of(&value) {
        Some(Count(0)) => Ok(1000),
        Some(Count(1)) => Ok(1),
        Some(_) => Err(bad_value("resolution_in_ns", "0 (µs) or 1 (ns)", &value)),
        None => Err(bad_value("resolution_in_ns", Count::EXPECTED, &value)),
    }
}

/// Settings, host and kernel from cyclictest's top-level keys.
pub(crate) fn read_header(doc: &Document, run: &mut Run) -> Result<(), FormatError> {
    for (value, name) in [
        (json::setting(&doc.cmdline), "cmdline"),
        (json::setting(&doc.rt_test_version), "rt_test_version"),
        (json::setting(&doc.start_time), "start_time"),
        (json::setting(&doc.end_time), "end_time"),
        (json::setting(&doc.return_code), "return_code"),
        (json::setting(&doc.num_threads), "num_threads"),
        (json::setting(&doc.resolution_in_ns), "resolution_in_ns"),
    ] {
        if let Some(value) = value {
            run.settings.push((name.to_string(), value));
        }
    }
    if let Some(sysinfo) = doc.sysinfo.get("sysinfo")? {
        read_sysinfo(sysinfo, run);
    }
    Ok(())
}

/// Host, kernel and machine from a `sysinfo` object (cyclictest's and jitterdebugger's).
pub(crate) fn read_sysinfo(sysinfo: &Sysinfo, run: &mut Run) {
    let text = |field: &Field<String>| field.valid().cloned();
    run.host = text(&sysinfo.nodename);
    run.kernel = match (text(&sysinfo.release), text(&sysinfo.version)) {
        (Some(release), Some(version)) => Some(format!("{release} {version}")),
        (release, version) => release.or(version),
    };
    for (value, key) in [
        (json::setting(&sysinfo.sysname), "sysname"),
        (json::setting(&sysinfo.machine), "machine"),
        (json::setting(&sysinfo.realtime), "realtime"),
        (json::setting(&sysinfo.cpus_online), "cpus_online"),
    ] {
        if let Some(value) = value {
            run.settings.push((key.to_string(), value));
        }
    }
}

/// A note when `num_threads` disagrees with the threads present.
fn check_thread_count(doc: &Document, run: &mut Run) {
    if let Some(n) = doc.num_threads.valid().and_then(Number::as_u64)
        && n != run.series.len() as u64
    {
        run.notes.push(format!(
            "num_threads is {n} but the file holds {} threads",
            run.series.len()
        ));
    }
}

/// One `thread` entry read the cyclictest way: `cycles`, `min`, `max`, `avg` in units of
/// `unit_ns`, `cpu`, and the histogram (`buckets` is the `-h` size when known).
pub(crate) fn thread_series(
    key: &str,
    thread: &Thread,
    path: &str,
    unit_ns: u64,
    buckets: Option<u64>,
    notes: &mut Vec<String>,
) -> Result<Series, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    let mut series = Series::new(format!("T{key}"));
    series.resolution_ns = unit_ns;
    let cycles = thread.cycles.required(&key_path("cycles"))?.0;
    series.cycles = Some(cycles);
    if cycles > 0 {
        let (min, max) = (key_path("min"), key_path("max"));
        series.min = Some(json::nanoseconds(
            thread.min.required(&min)?,
            &min,
            unit_ns,
        )?);
        series.max = Some(json::nanoseconds(
            thread.max.required(&max)?,
            &max,
            unit_ns,
        )?);
        series.avg = Some(thread.avg.required(&key_path("avg"))?.0 * unit_ns as f64);
    }
    series.cpu = match thread.cpu.get(&key_path("cpu"))? {
        Some(cpu) => {
            let cpu = cpu.as_f64().unwrap_or(f64::NAN);
            (cpu >= 0.0 && cpu <= u32::MAX as f64).then_some(cpu as u32)
        }
        None => None,
    };
    if let Some(h) = thread.histogram.get(&key_path("histogram"))? {
        series.histogram = linear_histogram(
            h,
            &key_path("histogram"),
            unit_ns,
            cycles,
            buckets,
            &series.label,
            notes,
        )?;
    }
    Ok(series)
}

/// cyclictest's `{"bucket": count}` map as a histogram of `unit_ns`-wide buckets, the
/// values missing from it (cycles less its sum) as overflows. `None` when the map is empty
/// and the command line names no `-h` (no histogram was asked for).
pub(crate) fn linear_histogram(
    map: &LinearHistogram,
    path: &str,
    unit_ns: u64,
    cycles: u64,
    buckets: Option<u64>,
    label: &str,
    notes: &mut Vec<String>,
) -> Result<Option<Histogram>, FormatError> {
    let LinearHistogram(Entries(map)) = map;
    if map.is_empty() && buckets.is_none() {
        return Ok(None);
    }
    let unit = unit_ns as i64;
    let mut list = Vec::with_capacity(map.len());
    let mut sum = 0u64;
    let mut top = 0u64;
    for (key, value) in map {
        let key_path = json::path(path, key);
        let index: u64 = key.trim().parse().map_err(|_| {
            bad_value(
                &key_path,
                "a bucket number as key",
                &Value::String(key.clone()),
            )
        })?;
        let count = value.required(&key_path)?.0;
        let low = i64::try_from(index)
            .ok()
            .and_then(|i| i.checked_mul(unit))
            .ok_or_else(|| FormatError::BadValue {
                key: key_path.clone(),
                expected: "a bucket number within ±292 years",
                found: key.clone(),
            })?;
        list.push(Bucket {
            low,
            high: low.saturating_add(unit - 1),
            count,
        });
        sum = sum.saturating_add(count);
        top = top.max(index.saturating_add(1));
    }
    let limit_buckets = buckets.unwrap_or(0).max(top);
    let limit = i64::try_from(limit_buckets)
        .ok()
        .and_then(|b| b.checked_mul(unit))
        .unwrap_or(i64::MAX);
    if sum > cycles {
        notes.push(format!(
            "{label}: the histogram holds {sum} values but cycles is {cycles}"
        ));
    }
    let overflow = cycles.saturating_sub(sum);
    if overflow > 0 && buckets.is_none() {
        notes.push(format!(
            "{label}: {overflow} values beyond the histogram; its size is not in the command \
             line, so they are known to be >= {} µs only",
            limit / 1000
        ));
    }
    Histogram::new(
        list,
        (0, i64::MIN),
        (overflow, limit),
        Resolution::Linear { width_ns: unit_ns },
    )
    .map(Some)
    .map_err(|message| FormatError::Inconsistent {
        line: None,
        message: format!("{path}: {message}"),
    })
}

/// The `-h`/`-H` histogram size in a cyclictest (or rtlat) command line, if it names one.
///
/// Understands `-h N`, `-hN`, `-H N`, `-HN`, options clustered before them (`-mqh200`),
/// `--histogram=N`, `--histogram N`, `--histofall=N` and `--histofall N`.
pub fn histogram_buckets(cmdline: &str) -> Option<u64> {
    // cyclictest's short options that take an argument (required or optional): once one of
    // them appears in a cluster, the rest of the cluster is its argument.
    const TAKES_ARGUMENT: &str = "aAbcdDFhHilopt";
    let tokens: Vec<&str> = cmdline.split_whitespace().collect();
    let mut found = None;
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let next = tokens.get(i + 1).copied();
        if let Some(long) = token.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if name == "histogram" || name == "histofall" {
                match inline {
                    Some(v) => found = v.parse().ok().or(found),
                    None => {
                        found = next.and_then(|v| v.parse().ok()).or(found);
                        i += 1;
                    }
                }
            }
        } else if let Some(cluster) = token.strip_prefix('-') {
            for (at, c) in cluster.char_indices() {
                if TAKES_ARGUMENT.contains(c) {
                    let rest = &cluster[at + c.len_utf8()..];
                    if c == 'h' || c == 'H' {
                        if rest.is_empty() {
                            found = next.and_then(|v| v.parse().ok()).or(found);
                            i += 1;
                        } else {
                            found = rest.parse().ok().or(found);
                        }
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::histogram_buckets;

    #[test]
    fn histogram_size_from_command_lines() {
        for (line, want) in [
            (
                "cyclictest -m -S -p 80 -i 1000 -l 2000 -q -h 200 --json=x",
                Some(200),
            ),
            ("cyclictest -h400", Some(400)),
            ("cyclictest -mqH 50", Some(50)),
            ("cyclictest --histogram=300", Some(300)),
            ("cyclictest --histofall 30 -q", Some(30)),
            ("cyclictest -p80h 10", None),
            ("cyclictest -N -q", None),
            ("cyclictest -h", None),
            ("", None),
        ] {
            assert_eq!(histogram_buckets(line), want, "{line}");
        }
    }
}
