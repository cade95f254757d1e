//! [`Entries`]: a JSON object's entries in document order.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::{Expected, OBJECT};

/// A JSON object's entries in document order, each value a `T`: cyclictest's `"thread"` and
/// `"histogram"` objects, keyed by numbers written as strings.
#[derive(Debug, Clone, PartialEq)]
pub struct Entries<T>(pub Vec<(String, T)>);

impl<T> Default for Entries<T> {
    fn default() -> Self {
        Entries(Vec::new())
    }
}

impl<T> Expected for Entries<T> {
    const EXPECTED: &'static str = OBJECT;
}

impl<T> Entries<T> {
    /// The entries ordered by their keys' numeric values when all keys are numbers (`"0"`,
    /// `"1"`, `"10"` …), in document order otherwise.
    pub fn numbered(&self) -> Vec<&(String, T)> {
        let mut entries: Vec<&(String, T)> = self.0.iter().collect();
        if entries.iter().all(|(k, _)| k.parse::<u64>().is_ok()) {
            entries.sort_by_key(|(k, _)| k.parse::<u64>().unwrap_or(u64::MAX));
        }
        entries
    }
}

impl<T: Serialize> Serialize for Entries<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Entries<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for EntriesVisitor<T> {
            type Value = Entries<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries<T>, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = map.next_entry()? {
                    entries.push((k, v));
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_map(EntriesVisitor(PhantomData))
    }
}
