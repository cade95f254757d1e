//! Typed access to `serde_json` values: each getter names the dotted key path in its error.

use serde_json::{Map, Value};

use super::error::{FormatError, shorten_plain};

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

fn bad(key: &str, expected: &'static str, value: &Value) -> FormatError {
    FormatError::BadValue {
        key: key.to_string(),
        expected,
        found: describe(value),
    }
}

/// The value of `key` in `object` (whose path is `parent`), or a missing-key error.
pub(crate) fn get<'a>(
    object: &'a Map<String, Value>,
    parent: &str,
    key: &str,
) -> Result<&'a Value, FormatError> {
    object.get(key).ok_or_else(|| FormatError::MissingKey {
        key: path(parent, key),
    })
}

/// `value` as an object.
pub(crate) fn object<'a>(
    value: &'a Value,
    key: &str,
) -> Result<&'a Map<String, Value>, FormatError> {
    value
        .as_object()
        .ok_or_else(|| bad(key, "an object", value))
}

/// `value` as a non-negative integer.
pub(crate) fn count(value: &Value, key: &str) -> Result<u64, FormatError> {
    if let Some(n) = value.as_u64() {
        return Ok(n);
    }
    // Some writers print whole counts as floats ("2000.0").
    match value.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => Ok(f as u64),
        _ => Err(bad(key, "a non-negative integer", value)),
    }
}

/// `value` as a finite number.
pub(crate) fn number(value: &Value, key: &str) -> Result<f64, FormatError> {
    match value.as_f64() {
        Some(f) if f.is_finite() => Ok(f),
        _ => Err(bad(key, "a number", value)),
    }
}

/// `value` (a latency in units of `unit_ns`) in ns.
pub(crate) fn nanoseconds(value: &Value, key: &str, unit_ns: u64) -> Result<i64, FormatError> {
    let out_of_range = || FormatError::BadValue {
        key: key.to_string(),
        expected: "a latency within ±292 years",
        found: describe(value),
    };
    if let Some(n) = value.as_i64() {
        return n.checked_mul(unit_ns as i64).ok_or_else(out_of_range);
    }
    if value.is_u64() {
        return Err(out_of_range());
    }
    let f = number(value, key)? * unit_ns as f64;
    if f.abs() < 9.2e18 {
        Ok(f.round() as i64)
    } else {
        Err(out_of_range())
    }
}

/// `value` as a string.
pub(crate) fn string<'a>(value: &'a Value, key: &str) -> Result<&'a str, FormatError> {
    value.as_str().ok_or_else(|| bad(key, "a string", value))
}

/// A scalar rendered for a settings list: strings without quotes, everything else as JSON.
pub(crate) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The keys of an object ordered by their numeric value when all are numbers (`"0"`,
/// `"1"`, `"10"` …), in document order otherwise.
pub(crate) fn numbered_keys(object: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = object.keys().collect();
    if keys.iter().all(|k| k.parse::<u64>().is_ok()) {
        keys.sort_by_key(|k| k.parse::<u64>().unwrap_or(u64::MAX));
    }
    keys
}
