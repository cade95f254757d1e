//! JSON read with serde_json, plus the few lookups the tests repeat.

/// A JSON value, its object keys in file order.
pub use serde_json::Value as Json;

/// What the tests ask of a [`Json`] value beyond serde_json's own methods.
pub trait JsonExt {
    /// Parses a whole document (panics with serde_json's message on malformed input).
    fn parse(text: &str) -> Self;
    /// The keys of an object, in order (empty for anything else).
    fn keys(&self) -> Vec<&str>;
    /// `self[key]`, panicking with the key if absent.
    fn at(&self, key: &str) -> &Json;
    /// The kind, for comparing value types: `null`, `bool`, `integer`, `float`, `string`,
    /// `array`, `object`.
    fn kind(&self) -> &'static str;
}

impl JsonExt for Json {
    fn parse(text: &str) -> Json {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("malformed JSON: {e}"))
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Json::Object(fields) => fields.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    fn at(&self, key: &str) -> &Json {
        self.get(key)
            .unwrap_or_else(|| panic!("no key {key:?} in {:?}", self.keys()))
    }

    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "bool",
            Json::Number(n) if n.is_f64() => "float",
            Json::Number(_) => "integer",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }
}

/// The text of the value at `path` (keys from the top) in a JSON document, as written
/// (e.g. whether a number has two decimals).
pub fn json_text_at(text: &str, path: &[&str]) -> Option<String> {
    use serde_json::value::RawValue;
    let mut raw: &RawValue = serde_json::from_str(text).ok()?;
    for key in path {
        let fields: std::collections::HashMap<String, &RawValue> =
            serde_json::from_str(raw.get()).ok()?;
        raw = fields.get(*key)?;
    }
    Some(raw.get().to_string())
}

/// The ids of the items that drifted in `rtlat verify --json`'s output, in its order.
pub fn drifted_items(verify_json: &str) -> Vec<String> {
    Json::parse(verify_json)
        .at("items")
        .as_array()
        .unwrap_or_else(|| panic!("no items in {verify_json}"))
        .iter()
        .filter(|i| i.at("drift") == true)
        .map(|i| i.at("id").as_str().unwrap().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_key_order() {
        let j = Json::parse(r#"{"b": 1, "a": {"y": [1, 2.5, "x\"y"], "x": null}, "h": {      }}"#);
        assert_eq!(j.keys(), ["b", "a", "h"]);
        assert_eq!(j.at("a").keys(), ["y", "x"]);
        assert_eq!(j.at("b").kind(), "integer");
        assert_eq!(j.at("h"), &Json::Object(Default::default()));
        assert_eq!(j.at("a").at("y")[1].kind(), "float");
        let text = r#"{"thread": {"0": {"avg": 14.00, "min": 3}}}"#;
        assert_eq!(
            json_text_at(text, &["thread", "0", "avg"]).as_deref(),
            Some("14.00")
        );
        assert_eq!(json_text_at(text, &["thread", "1"]), None);
    }
}
