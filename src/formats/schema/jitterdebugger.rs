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
    pub version: Field<Count>,
    /// uname's fields, the CPUs online and the unit of the values.
    pub sysinfo: Field<Sysinfo>,
    /// The CPUs by number (`"0"`, `"1"` …).
    pub cpu: Field<Entries<Field<Cpu>>>,
}

/// One CPU's figures, in the unit of `sysinfo.resolution_in_ns`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Cpu {
    /// `{"bucket": count}` for the first 1000 buckets.
    pub histogram: Field<LinearHistogram>,
    /// Values measured.
    pub count: Field<Count>,
    /// Smallest latency.
    pub min: Field<Number>,
    /// Largest latency.
    pub max: Field<Number>,
    /// Mean latency.
    pub avg: Field<Avg>,
}

objects!(Document, Cpu);
