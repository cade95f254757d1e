//! [`Count`]: a non-negative integer as writers of result files print it.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Expected;

/// A count: a non-negative integer, read also from a whole float (`2000.0`, as some writers
/// print counts), written as an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Count(pub u64);

impl Count {
    /// `value` as a count, if it is one.
    pub fn of(value: &Value) -> Option<Count> {
        Count::deserialize(value).ok()
    }
}

impl Expected for Count {
    const EXPECTED: &'static str = "a non-negative integer";
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(Count::EXPECTED)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                u64::try_from(v)
                    .map(Count)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                if v >= 0.0 && v.fract() == 0.0 && v < 1.8e19 {
                    Ok(Count(v as u64))
                } else {
                    Err(E::invalid_value(de::Unexpected::Float(v), &self))
                }
            }
        }
        d.deserialize_any(CountVisitor)
    }
}
