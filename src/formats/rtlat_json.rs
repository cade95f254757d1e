//! rtlat's `--json` file: cyclictest's JSON (same keys, same layout) plus an `"rtlat"` object
//! per thread and one for the run.
//!
//! Each thread's `"rtlat"` object holds everything in ns: `unit` (`"ns"`), `cycles`, `min`,
//! `max`, `mean`, `overruns`, `max_cycle`, `percentiles`, and the log-linear `histogram`
//! (`layout{kind,precision,zero}`, `summary{count,min,max,sum}`, `underflow`, `overflow`,
//! `buckets:[{low,high,count}…]` with inclusive bounds, the underflow and overflow guards
//! included with bounds running to `i64::MIN`/`i64::MAX`). This reader takes the series from
//! those objects (exact ns, percentiles within 0.78 %) and falls back to the cyclictest keys
//! for a thread without one. The run's `"rtlat"` object gives the version and configuration.

use serde_json::{Number, Value};

use super::cyclictest_json;
use super::error::FormatError;
use super::json;
use super::model::{Bucket, Format, Histogram, Resolution, Run, Series};
use super::schema::cyclictest::Document;
use super::schema::rtlat::{self as schema, ThreadExtra};
use super::schema::{Field, bad_value};

/// Whether a JSON document is rtlat's: an `"rtlat"` object at the top or in a thread.
pub(crate) fn is_rtlat(doc: &Document) -> bool {
    doc.rtlat.valid().is_some()
        || doc.thread.valid().is_some_and(|threads| {
            threads
                .0
                .iter()
                .any(|(_, t)| t.valid().is_some_and(|t| t.rtlat.valid().is_some()))
        })
}

/// Reads an rtlat `--json` file.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let doc: Document = json::document(text)?;
    let mut run = Run::new(Format::RtlatJson);
    cyclictest_json::read_header(&doc, &mut run)?;
    if let Some(extra) = doc.rtlat.get("rtlat")? {
        if let Some(version) = json::setting(&extra.version) {
            run.settings.push(("rtlat_version".into(), version));
        }
        if let Some(config) = extra.config.valid() {
            for (k, v) in config {
                run.settings
                    .push((format!("config.{k}"), json::scalar_text(v)));
            }
        }
    }
    let unit_ns = cyclictest_json::unit_ns(&doc)?;
    let buckets = cyclictest_json::histogram_size(&doc);
    for (key, thread) in doc.thread.required("thread")?.numbered() {
        let path = json::path("thread", key);
        let thread = thread.required(&path)?;
        let extra_path = json::path(&path, "rtlat");
        let series = match thread.rtlat.get(&extra_path)? {
            Some(extra) => {
                let mut s = rtlat_series(key, extra, &extra_path)?;
                if let Some(cpu) = thread.cpu.valid().and_then(Number::as_i64) {
                    s.cpu = u32::try_from(cpu).ok();
                }
                s
            }
            None => cyclictest_json::thread_series(
                key,
                thread,
                &path,
                unit_ns,
                buckets,
                &mut run.notes,
            )?,
        };
        run.series.push(series);
    }
    Ok(run)
}

/// A series from a thread's `"rtlat"` object.
fn rtlat_series(key: &str, extra: &ThreadExtra, path: &str) -> Result<Series, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    if let Some(unit) = extra.unit.get(&key_path("unit"))?
        && unit != "ns"
    {
        return Err(bad_value(
            &key_path("unit"),
            "\"ns\"",
            &Value::String(unit.clone()),
        ));
    }
    let mut series = Series::new(format!("T{key}"));
    series.resolution_ns = 1;
    series.cycles = Some(extra.cycles.required(&key_path("cycles"))?.0);
    let optional_ns = |field: &Field<Option<Number>>, name: &str| {
        let key = key_path(name);
        match field.get(&key)? {
            None | Some(None) => Ok(None),
            Some(Some(n)) => json::nanoseconds(n, &key, 1).map(Some),
        }
    };
    series.min = optional_ns(&extra.min, "min")?;
    series.max = optional_ns(&extra.max, "max")?;
    series.avg = extra.mean.get(&key_path("mean"))?.copied().flatten();
    series.overruns = extra
        .overruns
        .get(&key_path("overruns"))?
        .copied()
        .flatten()
        .map(|c| c.0);
    if let Some(h) = extra.histogram.get(&key_path("histogram"))? {
        series.histogram = Some(histogram(h, &key_path("histogram"))?);
    }
    Ok(series)
}

/// rtlat-core's serialized histogram.
fn histogram(h: &schema::Histogram, path: &str) -> Result<Histogram, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    let layout_path = key_path("layout");
    let layout = h.layout.required(&layout_path)?;
    let kind_path = json::path(&layout_path, "kind");
    let resolution = match layout.kind.required(&kind_path)?.as_str() {
        "log-linear" => {
            let p_path = json::path(&layout_path, "precision");
            let precision = layout.precision.required(&p_path)?.0;
            Resolution::LogLinear {
                precision: precision.min(62) as u32,
            }
        }
        "linear" => {
            let w_path = json::path(&layout_path, "width");
            let width = layout.width.required(&w_path)?.0;
            Resolution::Linear {
                width_ns: width.max(1),
            }
        }
        kind => {
            return Err(bad_value(
                &kind_path,
                "\"log-linear\" or \"linear\"",
                &Value::String(kind.to_string()),
            ));
        }
    };
    let underflow = h.underflow.required(&key_path("underflow"))?.0;
    let overflow = h.overflow.required(&key_path("overflow"))?.0;
    let list_path = key_path("buckets");
    let list = h.buckets.required(&list_path)?;
    let mut buckets = Vec::with_capacity(list.len());
    let (mut underflow_limit, mut overflow_limit) = (None, None);
    for (i, b) in list.iter().enumerate() {
        let b_path = format!("{list_path}[{i}]");
        let o = b.required(&b_path)?;
        let bound = |field: &Field<i64>, name: &str| {
            field
                .required_as(&json::path(&b_path, name), "an integer (ns)")
                .copied()
        };
        let (low, high) = (bound(&o.low, "low")?, bound(&o.high, "high")?);
        let count = o.count.required(&json::path(&b_path, "count"))?.0;
        if low == i64::MIN && high < i64::MAX {
            underflow_limit = Some(high.saturating_add(1));
        } else if high == i64::MAX && low > i64::MIN {
            overflow_limit = Some(low);
        } else {
            buckets.push(Bucket { low, high, count });
        }
    }
    let top = buckets.iter().map(|b| b.high).max();
    let bottom = buckets.iter().map(|b| b.low).min();
    let overflow_limit = overflow_limit
        .or(top.map(|t| t.saturating_add(1)))
        .unwrap_or(i64::MAX);
    let underflow_limit = underflow_limit.or(bottom).unwrap_or(i64::MIN);
    Histogram::new(
        buckets,
        (underflow, underflow_limit),
        (overflow, overflow_limit),
        resolution,
    )
    .map_err(|message| FormatError::Inconsistent {
        line: None,
        message: format!("{path}: {message}"),
    })
}
