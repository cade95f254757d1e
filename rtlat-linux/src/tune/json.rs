//! The little JSON the restore files need: a parser that never panics (depth-limited, every
//! malformed input an error with its byte offset) and string escaping for the writer.
//!
//! rtlat-linux has no serde; a restore file is a small object of strings, integers and one
//! array of objects, so a complete JSON reader of ~200 lines is simpler than a dependency.

use core::fmt::Write as _;

/// The deepest nesting accepted (a restore file needs 3).
const MAX_DEPTH: usize = 32;

/// A JSON value. Numbers keep their text; objects keep their order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key` in an object (the first, if repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// A whole number that fits `u64` (no sign, fraction or exponent).
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(text) if text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Parses a whole document (surrounding whitespace allowed, nothing else after it).
    pub(crate) fn parse(text: &str) -> Result<Json, String> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = parser.value(0)?;
        parser.skip_space();
        if parser.at != parser.bytes.len() {
            return Err(parser.error("end of document"));
        }
        Ok(value)
    }
}

/// `text` as a JSON string literal, quotes included.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &str) -> String {
        format!("expected {expected} at byte {}", self.at)
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "nesting deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        self.skip_space();
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error("a JSON value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1; // `{`
        let mut members = Vec::new();
        self.skip_space();
        if self.eat(b'}') {
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_space();
            if self.bytes.get(self.at) != Some(&b'"') {
                return Err(self.error("a member name in quotes"));
            }
            let key = self.string()?;
            self.skip_space();
            if !self.eat(b':') {
                return Err(self.error("`:`"));
            }
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_space();
            if self.eat(b'}') {
                return Ok(Json::Object(members));
            }
            if !self.eat(b',') {
                return Err(self.error("`,` or `}`"));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1; // `[`
        let mut items = Vec::new();
        self.skip_space();
        if self.eat(b']') {
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_space();
            if self.eat(b']') {
                return Ok(Json::Array(items));
            }
            if !self.eat(b',') {
                return Err(self.error("`,` or `]`"));
            }
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while p.bytes.get(p.at).is_some_and(u8::is_ascii_digit) {
                p.at += 1;
            }
            p.at > from
        };
        self.eat(b'-');
        if self.eat(b'0') {
            // No leading zeros.
        } else if !digits(self) {
            return Err(self.error("digits"));
        }
        if self.eat(b'.') && !digits(self) {
            return Err(self.error("digits after `.`"));
        }
        if self.eat(b'e') || self.eat(b'E') {
            let _ = self.eat(b'+') || self.eat(b'-');
            if !digits(self) {
                return Err(self.error("exponent digits"));
            }
        }
        // Only ASCII was consumed, so this slice is on character boundaries.
        let text = String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned();
        Ok(Json::Number(text))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let hex = self
            .bytes
            .get(self.at..self.at + 4)
            .and_then(|h| core::str::from_utf8(h).ok())
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error("4 hex digits after \\u"))?;
        self.at += 4;
        Ok(hex)
    }

    fn string(&mut self) -> Result<String, String> {
        self.at += 1; // `"`
        let mut out = Vec::new();
        loop {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(self.error("a closing `\"`"));
            };
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let Some(&escape) = self.bytes.get(self.at) else {
                        return Err(self.error("an escape"));
                    };
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let first = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&first) {
                                if !(self.eat(b'\\') && self.eat(b'u')) {
                                    return Err(self.error("a low surrogate"));
                                }
                                let low = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&low) {
                                    return Err(self.error("a low surrogate"));
                                }
                                0x10000 + ((first - 0xd800) << 10) + (low - 0xdc00)
                            } else {
                                first
                            };
                            char::from_u32(code).ok_or_else(|| self.error("a valid \\u escape"))?
                        }
                        _ => return Err(self.error("a valid escape")),
                    };
                    let mut buffer = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                }
                0..=0x1f => return Err(self.error("no control character in a string")),
                _ => out.push(byte),
            }
        }
        // The input was a `&str` and escapes add whole characters, so this is UTF-8.
        String::from_utf8(out).map_err(|_| self.error("UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_a_restore_like_document() {
        let doc = Json::parse(
            r#" {"a": 1, "b": [true, false, null, -2.5e3], "c": {"d": "x\"\\\n\u00e9\ud83d\ude00"}} "#,
        )
        .unwrap();
        assert_eq!(doc.get("a").and_then(Json::as_u64), Some(1));
        let b = doc.get("b").and_then(Json::as_array).unwrap();
        assert_eq!(b.len(), 4);
        assert_eq!(b[3], Json::Number("-2.5e3".into()));
        assert_eq!(b[3].as_u64(), None);
        let d = doc.get("c").and_then(|c| c.get("d")).and_then(Json::as_str);
        assert_eq!(d, Some("x\"\\\né😀"));
    }

    #[test]
    fn quote_round_trips() {
        for text in ["", "plain", "a\"b\\c", "tab\tnew\nline\u{1}", "ünïcödé 😀"] {
            let doc = Json::parse(&quote(text)).unwrap();
            assert_eq!(doc.as_str(), Some(text));
        }
    }

    #[test]
    fn refuses_what_is_not_json() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "01",
            "1.",
            "-",
            "\"abc",
            "\"\\x\"",
            "\"\\ud800\"",
            "tru",
            "{} x",
            "[1 2]",
            "{1:2}",
            "\"a\nb\"",
        ] {
            assert!(Json::parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(Json::parse(&deep).unwrap_err().contains("nesting"));
    }

    proptest! {
        #[test]
        fn never_panics(text in "[\\[\\]{}\",:0-9a-z\\\\. -]{0,60}") {
            let _ = Json::parse(&text);
        }

        #[test]
        fn never_panics_on_any_text(text in ".{0,60}") {
            let _ = Json::parse(&text);
        }
    }
}
