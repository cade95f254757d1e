//! jitterdebugger's `results.json` (written by `jitterdebugger -o DIR`).
//!
//! ```json
//! { "version": 3,
//!   "sysinfo": { "sysname": "Linux", "nodename": "vm", "release": "…", "version": "…",
//!                "machine": "x86_64", "cpus_online": 2, "resolution_in_ns": 1000 },
//!   "cpu": { "0": { "histogram": { "12": 177, "13": 1517 }, "count": 2986, "min": 12,
//!                   "max": 83, "avg": 13.79 }, … } }
//! ```
//!
//! Quirks:
//!
//! * one series per CPU, labelled `CPU0`, `CPU1` …;
//! * values are µs (`sysinfo.resolution_in_ns`, 1000, is taken as the unit when present);
//! * the histogram has 1000 one-unit buckets and drops larger values silently: `count` less
//!   the histogram's sum are counted here as overflows at or above 1000 units;
//! * no overrun count.

use serde_json::{Map, Value};

use super::cyclictest_json;
use super::error::FormatError;
use super::json;
use super::model::{Format, Run, Series};

/// jitterdebugger's histogram size (`HIST_MAX_ENTRIES`): values past it are dropped.
const HISTOGRAM_BUCKETS: u64 = 1000;

/// Whether a JSON document is a jitterdebugger result: a `"version"` and a `"cpu"` object.
pub(crate) fn is_jitterdebugger(top: &Map<String, Value>) -> bool {
    top.contains_key("version") && top.get("cpu").is_some_and(Value::is_object)
}

/// Reads a jitterdebugger `results.json`.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let value = json::parse(text)?;
    let top = json::object(&value, "(document)")?;
    let mut run = Run::new(Format::Jitterdebugger);
    let version = json::count(json::get(top, "", "version")?, "version")?;
    run.settings.push(("version".into(), version.to_string()));
    if version != 3 {
        run.notes.push(format!(
            "results.json version {version} read as version 3 (the one rtlat knows)"
        ));
    }
    let mut unit_ns = 1000;
    if let Some(sysinfo) = top.get("sysinfo") {
        let sysinfo = json::object(sysinfo, "sysinfo")?;
        cyclictest_json::read_sysinfo(sysinfo, &mut run);
        if let Some(r) = sysinfo.get("resolution_in_ns") {
            unit_ns = json::count(r, "sysinfo.resolution_in_ns")?;
            if unit_ns == 0 || unit_ns > 1_000_000_000 {
                return Err(FormatError::BadValue {
                    key: "sysinfo.resolution_in_ns".into(),
                    expected: "1 … 1000000000",
                    found: json::describe(r),
                });
            }
        }
    }
    let cpus = json::object(json::get(top, "", "cpu")?, "cpu")?;
    for key in json::numbered_keys(cpus) {
        let path = json::path("cpu", key);
        let cpu = json::object(&cpus[key.as_str()], &path)?;
        let field = |name: &str| json::get(cpu, &path, name);
        let key_path = |name: &str| json::path(&path, name);
        let mut series = Series::new(format!("CPU{key}"));
        series.cpu = key.parse().ok();
        series.resolution_ns = unit_ns;
        let count = json::count(field("count")?, &key_path("count"))?;
        series.cycles = Some(count);
        if count > 0 {
            series.min = Some(json::nanoseconds(field("min")?, &key_path("min"), unit_ns)?);
            series.max = Some(json::nanoseconds(field("max")?, &key_path("max"), unit_ns)?);
            series.avg = Some(json::number(field("avg")?, &key_path("avg"))? * unit_ns as f64);
        }
        if let Some(h) = cpu.get("histogram") {
            let h_path = key_path("histogram");
            series.histogram = cyclictest_json::linear_histogram(
                json::object(h, &h_path)?,
                &h_path,
                unit_ns,
                count,
                Some(HISTOGRAM_BUCKETS),
                &series.label,
                &mut run.notes,
            )?;
        }
        run.series.push(series);
    }
    Ok(run)
}
