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

use serde_json::{Map, Value};

use super::cyclictest_json;
use super::error::FormatError;
use super::json;
use super::model::{Bucket, Format, Histogram, Resolution, Run, Series};

/// Whether a JSON document is rtlat's: an `"rtlat"` object at the top or in a thread.
pub(crate) fn is_rtlat(top: &Map<String, Value>) -> bool {
    top.get("rtlat").is_some_and(Value::is_object)
        || top
            .get("thread")
            .and_then(Value::as_object)
            .is_some_and(|threads| {
                threads
                    .values()
                    .any(|t| t.get("rtlat").is_some_and(Value::is_object))
            })
}

/// Reads an rtlat `--json` file.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let value = json::parse(text)?;
    let top = json::object(&value, "(document)")?;
    let mut run = Run::new(Format::RtlatJson);
    cyclictest_json::read_header(top, &mut run)?;
    if let Some(extra) = top.get("rtlat") {
        let extra = json::object(extra, "rtlat")?;
        if let Some(v) = extra.get("version") {
            run.settings
                .push(("rtlat_version".into(), json::scalar_text(v)));
        }
        if let Some(config) = extra.get("config").and_then(Value::as_object) {
            for (k, v) in config {
                run.settings
                    .push((format!("config.{k}"), json::scalar_text(v)));
            }
        }
    }
    let unit_ns = cyclictest_json::unit_ns(top)?;
    let buckets = top
        .get("cmdline:")
        .and_then(Value::as_str)
        .and_then(cyclictest_json::histogram_buckets);
    let threads = json::object(json::get(top, "", "thread")?, "thread")?;
    for key in json::numbered_keys(threads) {
        let path = json::path("thread", key);
        let thread = json::object(&threads[key.as_str()], &path)?;
        let series = match thread.get("rtlat") {
            Some(extra) => {
                let extra_path = json::path(&path, "rtlat");
                let mut s = rtlat_series(key, json::object(extra, &extra_path)?, &extra_path)?;
                if let Some(cpu) = thread.get("cpu").and_then(Value::as_i64) {
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
fn rtlat_series(key: &str, extra: &Map<String, Value>, path: &str) -> Result<Series, FormatError> {
    let field = |name: &str| json::get(extra, path, name);
    let key_path = |name: &str| json::path(path, name);
    if let Some(unit) = extra.get("unit") {
        let unit_text = json::string(unit, &key_path("unit"))?;
        if unit_text != "ns" {
            return Err(FormatError::BadValue {
                key: key_path("unit"),
                expected: "\"ns\"",
                found: json::describe(unit),
            });
        }
    }
    let mut series = Series::new(format!("T{key}"));
    series.resolution_ns = 1;
    series.cycles = Some(json::count(field("cycles")?, &key_path("cycles"))?);
    let optional_ns = |name: &str| -> Result<Option<i64>, FormatError> {
        match extra.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => json::nanoseconds(v, &key_path(name), 1).map(Some),
        }
    };
    series.min = optional_ns("min")?;
    series.max = optional_ns("max")?;
    series.avg = match extra.get("mean") {
        None | Some(Value::Null) => None,
        Some(v) => Some(json::number(v, &key_path("mean"))?),
    };
    series.overruns = match extra.get("overruns") {
        None | Some(Value::Null) => None,
        Some(v) => Some(json::count(v, &key_path("overruns"))?),
    };
    if let Some(h) = extra.get("histogram") {
        let h_path = key_path("histogram");
        series.histogram = Some(histogram(json::object(h, &h_path)?, &h_path)?);
    }
    Ok(series)
}

/// rtlat-core's serialized histogram.
fn histogram(h: &Map<String, Value>, path: &str) -> Result<Histogram, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    let layout_path = key_path("layout");
    let layout = json::object(json::get(h, path, "layout")?, &layout_path)?;
    let kind_path = json::path(&layout_path, "kind");
    let kind_value = json::get(layout, &layout_path, "kind")?;
    let resolution = match json::string(kind_value, &kind_path)? {
        "log-linear" => {
            let p_path = json::path(&layout_path, "precision");
            let precision = json::count(json::get(layout, &layout_path, "precision")?, &p_path)?;
            Resolution::LogLinear {
                precision: precision.min(62) as u32,
            }
        }
        "linear" => {
            let w_path = json::path(&layout_path, "width");
            let width = json::count(json::get(layout, &layout_path, "width")?, &w_path)?;
            Resolution::Linear {
                width_ns: width.max(1),
            }
        }
        _ => {
            return Err(FormatError::BadValue {
                key: kind_path,
                expected: "\"log-linear\" or \"linear\"",
                found: json::describe(kind_value),
            });
        }
    };
    let underflow = json::count(json::get(h, path, "underflow")?, &key_path("underflow"))?;
    let overflow = json::count(json::get(h, path, "overflow")?, &key_path("overflow"))?;
    let list_path = key_path("buckets");
    let list_value = json::get(h, path, "buckets")?;
    let list = list_value.as_array().ok_or_else(|| FormatError::BadValue {
        key: list_path.clone(),
        expected: "an array",
        found: json::describe(list_value),
    })?;
    let mut buckets = Vec::with_capacity(list.len());
    let (mut underflow_limit, mut overflow_limit) = (None, None);
    for (i, b) in list.iter().enumerate() {
        let b_path = format!("{list_path}[{i}]");
        let o = json::object(b, &b_path)?;
        let bound = |name: &str| -> Result<i64, FormatError> {
            let v = json::get(o, &b_path, name)?;
            v.as_i64().ok_or_else(|| FormatError::BadValue {
                key: json::path(&b_path, name),
                expected: "an integer (ns)",
                found: json::describe(v),
            })
        };
        let (low, high) = (bound("low")?, bound("high")?);
        let count = json::count(
            json::get(o, &b_path, "count")?,
            &json::path(&b_path, "count"),
        )?;
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
