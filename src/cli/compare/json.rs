//! `rtlat compare --json`: the same comparison as the table, values in ns
//! ([`rtlat_formats::schema::compare`]).

use rtlat_formats::schema::Entries;
use rtlat_formats::schema::compare::{self as schema, Document, Latency};
use rtlat_formats::{Percentile, Run};

use super::report::{Cell, Comparison, Value, file_name};
use super::spikes::explained;

/// One cell: `value` (ns or a count) or `missing`, the percentile's bucket or bound, and the
/// change against the first file.
fn cell(c: &Cell) -> schema::Cell {
    let mut o = schema::Cell::default();
    match &c.value {
        Value::Count(n) => o.value = Some(*n),
        Value::Latency(ns) => o.value_ns = Some(Latency::of(*ns)),
        Value::Percentile(Percentile::Within { value, low, high }) => {
            o.value_ns = Some(Latency::Whole(*value));
            o.bucket_ns = Some([*low, *high]);
        }
        Value::Percentile(Percentile::AtLeast(limit)) => o.at_least_ns = Some(*limit),
        Value::Percentile(Percentile::Below(limit)) => o.below_ns = Some(*limit),
        Value::Missing(why) => o.missing = Some(why.clone()),
        Value::Absent(file) => o.missing = Some(format!("no such series in {file}")),
    }
    o.change = c.change.map(Latency::of);
    o.change_percent = c.change_percent;
    o
}

fn file(run: &Run) -> schema::File {
    schema::File {
        file: file_name(run).to_string(),
        format: run.format.id().to_string(),
        format_name: run.format.name().to_string(),
        host: run.host.clone(),
        kernel: run.kernel.clone(),
        series: run.series.iter().map(|s| s.label.clone()).collect(),
        histogram_resolution: run
            .series
            .iter()
            .find_map(|s| s.histogram.as_ref())
            .map(|h| h.resolution().to_string()),
        settings: Entries(run.settings.clone()),
        notes: run.notes.clone(),
        explained: run
            .series
            .iter()
            .filter(|s| explained(s))
            .map(|s| schema::Explained {
                series: s.label.clone(),
                explain: s.explain.clone(),
                spikes: s.spikes.clone(),
                timerlat_spikes: s.timerlat_spikes.clone(),
            })
            .collect(),
    }
}

/// The document.
pub fn render(c: &Comparison) -> String {
    let series = c
        .rows
        .iter()
        .map(|row| schema::Row {
            label: row.label.clone(),
            labels: c
                .runs
                .iter()
                .zip(&row.members)
                .map(|(r, m)| m.map(|i| r.series[i].label.clone()))
                .collect(),
            metrics: Entries(
                row.cells
                    .iter()
                    .map(|(m, cells)| (m.name().to_string(), cells.iter().map(cell).collect()))
                    .collect(),
            ),
        })
        .collect();
    let verdicts = c
        .verdicts
        .iter()
        .enumerate()
        .map(|(i, v)| schema::Verdict {
            file: file_name(&c.runs[i + 1]).to_string(),
            worst_case_ns: [v.from, v.to],
            change_percent: v.percent,
            text: v.text.clone(),
            tuning_changes: v
                .changes
                .iter()
                .map(|c| schema::TuningChange {
                    key: c.key.clone(),
                    from: c.from.clone(),
                    to: c.to.clone(),
                    text: c.text.clone(),
                })
                .collect(),
        })
        .collect();
    let doc = Document {
        files: c.runs.iter().map(file).collect(),
        matched_by: if c.by_label { "label" } else { "order" }.to_string(),
        matching_notes: c.matching_notes.clone(),
        percentiles: "nearest rank in each file's histogram; value_ns is the middle of the bucket bucket_ns (narrowed to min..max), at_least_ns a value beyond the histogram".to_string(),
        series,
        verdicts,
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
