//! The JSON documents rtlat writes and reads, as serde types: one definition of each
//! document's keys, key order and value kinds, used by the writer that makes it and the
//! reader that takes it back, so that the two cannot drift apart.
//!
//! | document | types | written by | read by |
//! | --- | --- | --- | --- |
//! | cyclictest `--json` (rt-tests 2.x), rtlat `run --json` | [`cyclictest::Document`] with [`rtlat::ThreadExtra`] and [`rtlat::RunExtra`] | `rtlat run --json`, rtlat as `cyclictest --json` | [`crate::formats`], `rtlat compare`, `rtlat plot` |
//! | jitterdebugger `results.json` | [`jitterdebugger::Document`] | jitterdebugger | [`crate::formats`] |
//! | `rtlat compare --json` | [`compare::Document`] | `rtlat compare` | scripts |
//! | `rtlat audit --json` | [`audit::Report`], [`audit::Suggestion`] | `rtlat audit` | scripts |
//! | `rtlat servo --json` | [`servo::Document`] | `rtlat servo` | scripts |
//! | `rtlat threads --json` | [`threads::Thread`] | `rtlat threads` | scripts |
//!
//! Readers take files written by other tools and other versions: every value they read is a
//! [`Field`], which keeps a value of the wrong kind as it was found instead of refusing the
//! whole document, so that a reader refuses a file only for a value it needs, and names that
//! value's key and what it should hold (see [`Field::get`]).

pub mod audit;
pub mod compare;
pub mod cyclictest;
pub mod jitterdebugger;
pub mod rtlat;
pub mod servo;
pub mod threads;

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::FormatError;
use super::json::describe;

/// A key of a document that is read: absent, present with a value of the kind expected, or
/// present with another value, kept as found. The reader decides, where it uses the key,
/// whether absence or the wrong kind is an error ([`Field::required`], [`Field::get`]) or
/// is ignored; a document is never refused for a key the reader does not use. Writers make
/// the [`Valid`](Field::Valid) kind (`value.into()`), which serializes as the `T`.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Field<T> {
    /// The key is not in the document.
    #[default]
    Absent,
    /// The value, of the kind expected.
    Valid(T),
    /// A value of another kind, as found.
    Invalid(Value),
}

/// What a value read as `Self` should be, in the words of an error message ("a string").
pub trait Expected {
    /// E.g. `"a non-negative integer"`.
    const EXPECTED: &'static str;
}

impl<T> Field<T> {
    /// Whether the key is absent (writers skip absent optional keys).
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }

    /// The value if it is present and of the expected kind.
    pub fn valid(&self) -> Option<&T> {
        match self {
            Field::Valid(v) => Some(v),
            _ => None,
        }
    }

    /// The value as found when it is present: the `T` serialized, or the other value.
    pub fn raw(&self) -> Option<Value>
    where
        T: Serialize,
    {
        match self {
            Field::Absent => None,
            Field::Valid(v) => Some(serde_json::to_value(v).unwrap_or(Value::Null)),
            Field::Invalid(v) => Some(v.clone()),
        }
    }

    /// The value if present: `None` when absent, a [`FormatError::BadValue`] naming `key`
    /// (its dotted path), `expected` and what it holds when of another kind.
    pub fn get_as(&self, key: &str, expected: &'static str) -> Result<Option<&T>, FormatError> {
        match self {
            Field::Absent => Ok(None),
            Field::Valid(v) => Ok(Some(v)),
            Field::Invalid(found) => Err(bad_value(key, expected, found)),
        }
    }

    /// The value: a [`FormatError::MissingKey`] when absent, else as [`Field::get_as`].
    pub fn required_as(&self, key: &str, expected: &'static str) -> Result<&T, FormatError> {
        self.get_as(key, expected)?
            .ok_or_else(|| FormatError::MissingKey {
                key: key.to_string(),
            })
    }
}

impl<T: Expected> Field<T> {
    /// [`Field::get_as`] with what a `T` should be.
    pub fn get(&self, key: &str) -> Result<Option<&T>, FormatError> {
        self.get_as(key, T::EXPECTED)
    }

    /// [`Field::required_as`] with what a `T` should be.
    pub fn required(&self, key: &str) -> Result<&T, FormatError> {
        self.required_as(key, T::EXPECTED)
    }

    /// `value` read as a `T`, kept as found if it is none.
    pub fn from_value(value: Value) -> Self
    where
        T: DeserializeOwned,
    {
        let object_expected = T::EXPECTED == OBJECT;
        if object_expected && !value.is_object() {
            // serde reads a struct from an array too: a document's objects are objects.
            return Field::Invalid(value);
        }
        match T::deserialize(&value) {
            Ok(v) => Field::Valid(v),
            Err(_) => Field::Invalid(value),
        }
    }
}

/// What a document's object should be.
const OBJECT: &str = "an object";

/// A [`FormatError::BadValue`] for `found` at `key`.
pub(crate) fn bad_value(key: &str, expected: &'static str, found: &Value) -> FormatError {
    FormatError::BadValue {
        key: key.to_string(),
        expected,
        found: describe(found),
    }
}

impl<T> From<T> for Field<T> {
    fn from(value: T) -> Self {
        Field::Valid(value)
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Absent => s.serialize_none(),
            Field::Valid(v) => v.serialize(s),
            Field::Invalid(v) => v.serialize(s),
        }
    }
}

impl<'de, T: DeserializeOwned + Expected> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Field::from_value)
    }
}

impl<T: Expected> Expected for Option<T> {
    const EXPECTED: &'static str = T::EXPECTED;
}

impl Expected for i64 {
    const EXPECTED: &'static str = "an integer";
}

impl Expected for u64 {
    const EXPECTED: &'static str = "a non-negative integer";
}

impl Expected for u32 {
    const EXPECTED: &'static str = "a non-negative integer";
}

impl Expected for i32 {
    const EXPECTED: &'static str = "an integer";
}

impl Expected for bool {
    const EXPECTED: &'static str = "a boolean";
}

impl Expected for Value {
    const EXPECTED: &'static str = "a value";
}

impl Expected for String {
    const EXPECTED: &'static str = "a string";
}

impl Expected for f64 {
    const EXPECTED: &'static str = "a number";
}

impl Expected for serde_json::Number {
    const EXPECTED: &'static str = "a number";
}

impl Expected for serde_json::Map<String, Value> {
    const EXPECTED: &'static str = OBJECT;
}

impl<T> Expected for Vec<T> {
    const EXPECTED: &'static str = "an array";
}

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

/// `Expected` for the derived document objects: each is "an object".
macro_rules! objects {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::formats::schema::Expected for $t {
            const EXPECTED: &'static str = "an object";
        })*
    };
}
pub(crate) use objects;

#[cfg(test)]
mod tests {
    use super::cyclictest::Document;

    /// The documents rtlat and cyclictest wrote, read into the shared types and written
    /// back: byte for byte the same (key order, number formatting, `{      }`, `avg`).
    #[test]
    fn run_documents_are_written_back_byte_for_byte() {
        let mut files = vec![
            "tests/data/peers/rtlat-2thr-h200.json".to_string(),
            "tests/data/peers/rtlat-2thr-i1000.json".into(),
            "tests/data/plot/rtlat-before.json".into(),
            "tests/data/plot/rtlat-after.json".into(),
            "tests/data/peers/cyclictest-2thr-hist.json".into(),
            "tests/data/peers/cyclictest-2thr-ns.json".into(),
        ];
        if let Ok(more) = std::env::var("RTLAT_ROUND_TRIP") {
            files.extend(more.split(':').map(str::to_string));
        }
        for file in files {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&file);
            let text = std::fs::read_to_string(&path).unwrap();
            let doc: Document = serde_json::from_str(&text).unwrap();
            let again = serde_json::to_string_pretty(&doc).unwrap() + "\n";
            // serde_json reads floats to within an ulp, not always back to the same
            // shortest text: a float may differ in its last digit, nothing else.
            let same = |a: &str, b: &str| {
                a == b
                    || a.rsplit_once(": ").zip(b.rsplit_once(": ")).is_some_and(
                        |((ka, va), (kb, vb))| {
                            let number = |v: &str| v.trim_end_matches(',').parse::<f64>().ok();
                            ka == kb
                                && va.ends_with(',') == vb.ends_with(',')
                                && number(va)
                                    .zip(number(vb))
                                    .is_some_and(|(x, y)| (x - y).abs() <= x.abs() * 1e-15)
                        },
                    )
            };
            if let Some((n, (a, b))) = text
                .lines()
                .zip(again.lines())
                .enumerate()
                .find(|(_, (a, b))| !same(a, b))
            {
                panic!("{file}: line {}: {a:?} written back as {b:?}", n + 1);
            }
            assert_eq!(again.lines().count(), text.lines().count(), "{file}");
            assert!(again.ends_with("}\n"), "{file}");
        }
    }
}
