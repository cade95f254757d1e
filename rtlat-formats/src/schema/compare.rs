//! `rtlat compare --json`: the files compared, the series matched across them, each
//! metric's value in every file with its change against the first, and the verdicts. Values
//! in ns (counts as counts).

use serde::Serialize;

use super::Entries;
use super::explain::{ExplainRecord, SpikeRecord, TimerlatSpikeRecord};

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// The files, in the order given.
    pub files: Vec<File>,
    /// `"label"` (series matched by label) or `"order"`.
    pub matched_by: String,
    /// How the series were matched, where that needs saying.
    pub matching_notes: Vec<String>,
    /// How percentiles are read.
    pub percentiles: String,
    /// One entry per matched series.
    pub series: Vec<Row>,
    /// One verdict per file after the first.
    pub verdicts: Vec<Verdict>,
}

/// A file compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct File {
    /// Its name as given.
    pub file: String,
    /// Its format's id (`rtlat-json`, `cyclictest-hist` …).
    pub format: String,
    /// Its format's name.
    pub format_name: String,
    /// The host it was measured on, if the file says.
    pub host: Option<String>,
    /// The kernel, if the file says.
    pub kernel: Option<String>,
    /// Its series' labels.
    pub series: Vec<String>,
    /// Its histograms' resolution (`1 µs buckets` …), if it has one.
    pub histogram_resolution: Option<String>,
    /// The settings the file records.
    pub settings: Entries<String>,
    /// What the reader noted about it.
    pub notes: Vec<String>,
    /// Its series' spikes explained by `rtlat run --explain` (only the series with an
    /// `explain` object or spikes; the key is left out when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explained: Vec<Explained>,
}

/// One series' explained spikes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explained {
    /// The series' label in its file.
    pub series: String,
    /// How the causes were looked for (`null`: the file does not say).
    pub explain: Option<ExplainRecord>,
    /// The spikes, in the order they happened, all of them (the text shows the worst five).
    pub spikes: Vec<SpikeRecord>,
    /// `rtlat run --timerlat --explain`'s wake-ups in the tracer's parts, worst first (left
    /// out when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timerlat_spikes: Vec<TimerlatSpikeRecord>,
}

/// A series matched across the files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Its label.
    pub label: String,
    /// Its label in each file (`null` where a file has no such series).
    pub labels: Vec<Option<String>>,
    /// Each metric (`cycles`, `min`, `avg`, `max`, `overruns`, `p99` …): one cell per file.
    pub metrics: Entries<Vec<Cell>>,
}

/// One value: `value` (a count), `value_ns` (with `bucket_ns` for a percentile),
/// `at_least_ns`/`below_ns` (a percentile beyond the histogram), or `missing`; then the
/// change against the first file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Cell {
    /// A count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
    /// A latency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_ns: Option<Latency>,
    /// The bucket a percentile lies in, bounds inclusive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bucket_ns: Option<[i64; 2]>,
    /// A percentile at least this (beyond the histogram).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_least_ns: Option<i64>,
    /// A percentile below this (before the histogram).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub below_ns: Option<i64>,
    /// Why there is no value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// The change against the first file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Latency>,
    /// The change against the first file, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_percent: Option<f64>,
}

/// A value in ns: an integer when whole, else a float.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Latency {
    /// A whole number of ns.
    Whole(i64),
    /// A fraction of ns (a mean).
    Fraction(f64),
}

impl Latency {
    /// `x` as an integer when it is whole, else as a float.
    pub fn of(x: f64) -> Latency {
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            Latency::Whole(x as i64)
        } else {
            Latency::Fraction(x)
        }
    }
}

/// The verdict on one file against the first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The file.
    pub file: String,
    /// The worst case in the first file and in this one.
    pub worst_case_ns: [Option<i64>; 2],
    /// The change, percent.
    pub change_percent: Option<f64>,
    /// The verdict in words.
    pub text: String,
    /// What changed in the machine's tuning since the first file (rtlat files with their
    /// provenance; empty otherwise).
    pub tuning_changes: Vec<TuningChange>,
}

/// A tuning setting that differs between the first file and another.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TuningChange {
    /// Its name (`isolated_cpus`, `governors.cpu1`, `kernel_cmdline`, `config.threads`).
    pub key: String,
    /// Its value in the first file (`null`: not stated).
    pub from: Option<String>,
    /// Its value in this one.
    pub to: Option<String>,
    /// In words: `none → 1`, `+isolcpus=1 −quiet`.
    pub text: String,
}
