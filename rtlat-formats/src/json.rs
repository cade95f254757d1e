//! JSON text to the typed documents of [`super::schema`], and what their errors say.

use serde_json::{Number, Value};

use super::error::{FormatError, shorten_plain};
use super::schema::{Expected, Field, bad_value};

/// Parses `text` as JSON; a syntax error names its line and column.
pub(crate) fn parse(text: &str) -> Result<Value, FormatError> {
    serde_json::from_str(text).map_err(|e| FormatError::Json {
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })
}

/// serde_json's message without its trailing " at line L column C".
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// `value` described for an error message: its JSON text, shortened.
pub(crate) fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let text = value.to_string();
    format!("{kind} ({})", shorten_plain(&text, 40))
}

/// `parent.key`, or `key` at the top.
pub(crate) fn path(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// `text` as a document of type `T`, or why not: a syntax error names its line and column,
/// a document that is not an object is refused as such.
pub(crate) fn document<T>(text: &str) -> Result<T, FormatError>
where
    T: serde::de::DeserializeOwned + Expected,
{
    match Field::<T>::from_value(parse(text)?) {
        Field::Valid(document) => Ok(document),
        Field::Invalid(found) => Err(bad_value("(document)", T::EXPECTED, &found)),
        Field::Absent => Err(FormatError::Empty),
    }
}

/// `n` (a latency in units of `unit_ns`) in ns.
pub(crate) fn nanoseconds(n: &Number, key: &str, unit_ns: u64) -> Result<i64, FormatError> {
    let out_of_range = || FormatError::BadValue {
        key: key.to_string(),
        expected: "a latency within ±292 years",
        found: describe(&Value::Number(n.clone())),
    };
    if let Some(i) = n.as_i64() {
        return i.checked_mul(unit_ns as i64).ok_or_else(out_of_range);
    }
    if n.is_u64() {
        return Err(out_of_range());
    }
    let f = n.as_f64().unwrap_or(f64::NAN) * unit_ns as f64;
    if f.abs() < 9.2e18 {
        Ok(f.round() as i64)
    } else {
        Err(out_of_range())
    }
}

/// A scalar rendered for a settings list: strings without quotes, everything else as JSON.
pub(crate) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `field` rendered for a settings list, if present.
pub(crate) fn setting<T: serde::Serialize>(field: &Field<T>) -> Option<String> {
    field.raw().as_ref().map(scalar_text)
}
