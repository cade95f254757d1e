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

use super::cyclictest_json;
use super::error::FormatError;
use super::json;
use super::model::{Format, Run, Series};
use super::schema::jitterdebugger::Document;
use super::schema::{Count, Expected, bad_value};

/// jitterdebugger's histogram size (`HIST_MAX_ENTRIES`): values past it are dropped.
const HISTOGRAM_BUCKETS: u64 = 1000;

/// Whether a JSON document is a jitterdebugger result: a `"version"` and a `"cpu"` object.
pub(crate) fn is_jitterdebugger(doc: &Document) -> bool {
    !doc.version.is_absent() && doc.cpu.valid().is_some()
}

/// Reads a jitterdebugger `results.json`.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let doc: Document = json::document(text)?;
    let mut run = Run::new(Format::Jitterdebugger);
    let version = doc.version.required("version")?.0;
    run.settings.push(("version".into(), version.to_string()));
    if version != 3 {
        run.notes.push(format!(
            "results.json version {version} read as version 3 (the one rtlat knows)"
        ));
    }
    let mut unit_ns = 1000;
    if let Some(sysinfo) = doc.sysinfo.get("sysinfo")? {
        cyclictest_json::read_sysinfo(sysinfo, &mut run);
        let key = "sysinfo.resolution_in_ns";
        if let Some(r) = sysinfo.resolution_in_ns.raw() {
            unit_ns = Count::of(&r)
                .ok_or_else(|| bad_value(key, Count::EXPECTED, &r))?
                .0;
            if unit_ns == 0 || unit_ns > 1_000_000_000 {
                return Err(bad_value(key, "1 … 1000000000", &r));
            }
        }
    }
    for (key, cpu) in doc.cpu.required("cpu")?.numbered() {
        let path = json::path("cpu", key);
        let cpu = cpu.required(&path)?;
        let key_path = |name: &str| json::path(&path, name);
        let mut series = Series::new(format!("CPU{key}"));
        series.cpu = key.parse().ok();
        series.resolution_ns = unit_ns;
        let count = cpu.count.required(&key_path("count"))?.0;
        series.cycles = Some(count);
        if count > 0 {
            let (min, max) = (key_path("min"), key_path("max"));
            series.min = Some(json::nanoseconds(cpu.min.required(&min)?, &min, unit_ns)?);
            series.max = Some(json::nanoseconds(cpu.max.required(&max)?, &max, unit_ns)?);
            series.avg = Some(cpu.avg.required(&key_path("avg"))?.0 * unit_ns as f64);
        }
        if let Some(h) = cpu.histogram.get(&key_path("histogram"))? {
            series.histogram = cyclictest_json::linear_histogram(
                h,
                &key_path("histogram"),
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
