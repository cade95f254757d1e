//! jitterdebugger's `results.json` (written by `jitterdebugger -o DIR`; rtlat reads it).

use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::cyclictest::{Avg, LinearHistogram, Sysinfo};
use super::{Count, Entries, Field, objects};

/// The whole document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Document {
    /// The file's version (3).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub version: Field<Count>,
    /// uname's fields, the CPUs online and the unit of the values.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub sysinfo: Field<Sysinfo>,
    /// The CPUs by number (`"0"`, `"1"` …).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cpu: Field<Entries<Field<Cpu>>>,
}

/// One CPU's figures, in the unit of `sysinfo.resolution_in_ns`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cpu {
    /// `{"bucket": count}` for the first 1000 buckets.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub histogram: Field<LinearHistogram>,
    /// Values measured.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub count: Field<Count>,
    /// Smallest latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub min: Field<Number>,
    /// Largest latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<Number>,
    /// Mean latency.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub avg: Field<Avg>,
}

objects!(Document, Cpu);
