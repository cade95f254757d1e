//! [`Field`]: a key of a document that is read, and [`Expected`]: what its value should be.

use serde::de::{DeserializeOwned, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::FormatError;
use crate::json::describe;

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
pub(crate) const OBJECT: &str = "an object";

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

/// `Expected` for the derived document objects: each is "an object".
macro_rules! objects {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::schema::Expected for $t {
            const EXPECTED: &'static str = "an object";
        })*
    };
}
pub(crate) use objects;
