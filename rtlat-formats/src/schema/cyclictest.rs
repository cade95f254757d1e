//! cyclictest's `--json` document (rt-tests 2.x), which rtlat's `run --json` extends with an
//! `"rtlat"` object per thread and one for the run ([`super::rtlat`]).
//!
//! Keys in the order cyclictest writes them; two really end in a colon (`"cmdline:"`,
//! `"rt_test_version:"`). Written with two-space indents, `avg` with two decimals and an empty
//! histogram as `{      }`, as cyclictest writes them.

use std::fmt;

use serde::de::{Deserializer, Visitor};
use serde::ser::{Error as _, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Number;
use serde_json::value::RawValue;

use super::rtlat::{RunExtra, ThreadExtra};
use super::{Count, Entries, Expected, Field, objects};

/// The whole document.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Document {
    /// 1.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub file_version: Field<Number>,
    /// The command line, argv joined by spaces.
    #[serde(rename = "cmdline:")]
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cmdline: Field<String>,
    /// The rt-tests release (`"2.40"`).
    #[serde(rename = "rt_test_version:")]
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub rt_test_version: Field<String>,
    /// Start, RFC 2822 local time.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub start_time: Field<String>,
    /// End, RFC 2822 local time.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub end_time: Field<String>,
    /// The exit status.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub return_code: Field<Number>,
    /// uname's fields.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub sysinfo: Field<Sysinfo>,
    /// How many threads.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub num_threads: Field<Number>,
    /// 1 with `-N` (values in ns), else 0 (µs).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub resolution_in_ns: Field<Number>,
    /// The threads by number (`"0"`, `"1"` …).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub thread: Field<Entries<Field<Thread>>>,
    /// rtlat's figures for the run (rtlat only).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub rtlat: Field<RunExtra>,
}

/// uname's fields (cyclictest's `sysinfo`; jitterdebugger's has two more).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sysinfo {
    /// `Linux`.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub sysname: Field<String>,
    /// Host name.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub nodename: Field<String>,
    /// Kernel release.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub release: Field<String>,
    /// Kernel version (build) string.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub version: Field<String>,
    /// `x86_64`, `aarch64` …
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub machine: Field<String>,
    /// 1 on a PREEMPT_RT kernel (cyclictest only).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub realtime: Field<Number>,
    /// CPUs online (jitterdebugger only).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cpus_online: Field<Number>,
    /// The unit of the values, ns (jitterdebugger only: 1000).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub resolution_in_ns: Field<Number>,
}

/// One thread.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thread {
    /// `{"bucket": count}`: the non-empty buckets below the `-h` limit, one unit wide.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub histogram: Field<LinearHistogram>,
    /// Cycles measured.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cycles: Field<Count>,
    /// Smallest latency, in the file's unit.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub min: Field<Number>,
    /// Largest latency, in the file's unit.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub max: Field<Number>,
    /// Mean latency, in the file's unit.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub avg: Field<Avg>,
    /// The thread's CPU, -1 when not pinned.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub cpu: Field<Number>,
    /// The CPU's NUMA node, -1 when not looked up.
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub node: Field<Number>,
    /// rtlat's figures for the thread (rtlat only).
    #[serde(skip_serializing_if = "Field::is_absent")]
    pub rtlat: Field<ThreadExtra>,
}

objects!(Document, Sysinfo, Thread);

/// cyclictest's histogram object: bucket number → count. Written as cyclictest writes it,
/// an empty one as `{      }`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct LinearHistogram(pub Entries<Field<Count>>);

impl Expected for LinearHistogram {
    const EXPECTED: &'static str = "an object";
}

impl Serialize for LinearHistogram {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.0.is_empty() {
            raw("{      }".into(), s)
        } else {
            self.0.serialize(s)
        }
    }
}

/// A mean written with two decimals, as cyclictest's `%.2f`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Avg(pub f64);

impl Expected for Avg {
    const EXPECTED: &'static str = "a number";
}

impl Serialize for Avg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        raw(format!("{:.2}", self.0), s)
    }
}

impl<'de> Deserialize<'de> for Avg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct AvgVisitor;
        impl Visitor<'_> for AvgVisitor {
            type Value = Avg;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(Avg::EXPECTED)
            }
            fn visit_f64<E>(self, v: f64) -> Result<Avg, E> {
                Ok(Avg(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Avg, E> {
                Ok(Avg(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Avg, E> {
                Ok(Avg(v as f64))
            }
        }
        d.deserialize_any(AvgVisitor)
    }
}

/// `text`, valid JSON, written as it is.
fn raw<S: Serializer>(text: String, s: S) -> Result<S::Ok, S::Error> {
    RawValue::from_string(text)
        .map_err(S::Error::custom)?
        .serialize(s)
}
