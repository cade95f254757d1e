//! `rtlat compare --json`: the same comparison as the table, values in ns.

use serde_json::{Map, Value as Json, json};

use rtlat::formats::{Percentile, Run};

use super::report::{Cell, Comparison, Value, file_name};

/// `x` as a JSON integer when it is whole, else as a float.
fn number(x: f64) -> Json {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// One cell: `value` (ns or a count) or `missing`, the percentile's bucket or bound, and the
/// change against the first file.
fn cell(c: &Cell) -> Json {
    let mut o = Map::new();
    match &c.value {
        Value::Count(n) => {
            o.insert("value".into(), json!(n));
        }
        Value::Latency(ns) => {
            o.insert("value_ns".into(), number(*ns));
        }
        Value::Percentile(Percentile::Within { value, low, high }) => {
            o.insert("value_ns".into(), json!(value));
            o.insert("bucket_ns".into(), json!([low, high]));
        }
        Value::Percentile(Percentile::AtLeast(limit)) => {
            o.insert("at_least_ns".into(), json!(limit));
        }
        Value::Percentile(Percentile::Below(limit)) => {
            o.insert("below_ns".into(), json!(limit));
        }
        Value::Missing(why) => {
            o.insert("missing".into(), json!(why));
        }
        Value::Absent(file) => {
            o.insert("missing".into(), json!(format!("no such series in {file}")));
        }
    }
    if let Some(change) = c.change {
        o.insert("change".into(), number(change));
    }
    if let Some(p) = c.change_percent {
        o.insert("change_percent".into(), json!(p));
    }
    Json::Object(o)
}

fn file(run: &Run) -> Json {
    let settings: Map<String, Json> = run
        .settings
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let resolution = run
        .series
        .iter()
        .find_map(|s| s.histogram.as_ref())
        .map(|h| h.resolution().to_string());
    json!({
        "file": file_name(run),
        "format": run.format.id(),
        "format_name": run.format.name(),
        "host": run.host,
        "kernel": run.kernel,
        "series": run.series.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(),
        "histogram_resolution": resolution,
        "settings": settings,
        "notes": run.notes,
    })
}

/// The document.
pub fn render(c: &Comparison) -> String {
    let rows: Vec<Json> = c
        .rows
        .iter()
        .map(|row| {
            let metrics: Map<String, Json> = row
                .cells
                .iter()
                .map(|(m, cells)| (m.name().to_string(), cells.iter().map(cell).collect()))
                .collect();
            let labels: Vec<Option<&str>> = c
                .runs
                .iter()
                .zip(&row.members)
                .map(|(r, m)| m.map(|i| r.series[i].label.as_str()))
                .collect();
            json!({ "label": row.label, "labels": labels, "metrics": metrics })
        })
        .collect();
    let verdicts: Vec<Json> = c
        .verdicts
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({
                "file": file_name(&c.runs[i + 1]),
                "worst_case_ns": [v.from, v.to],
                "change_percent": v.percent,
                "text": v.text,
            })
        })
        .collect();
    let doc = json!({
        "files": c.runs.iter().map(file).collect::<Vec<_>>(),
        "matched_by": if c.by_label { "label" } else { "order" },
        "matching_notes": c.matching_notes,
        "percentiles": "nearest rank in each file's histogram; value_ns is the middle of the bucket bucket_ns (narrowed to min..max), at_least_ns a value beyond the histogram",
        "series": rows,
        "verdicts": verdicts,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
