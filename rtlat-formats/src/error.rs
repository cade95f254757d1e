//! [`FormatError`]: what was wrong with a result file, with the line or key that was wrong.

use std::fmt;

/// Why a text could not be read as a latency result. Every message names the line (1-based)
/// or the JSON key that was wrong and what was expected there, so `rtlat compare` can print
/// one line that tells the user what to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// The text is empty or only whitespace.
    Empty,
    /// The content matches none of the formats rtlat reads.
    Unknown {
        /// The first non-empty line, shortened to 60 characters.
        first_line: String,
        /// What the content looks like instead, when rtlat recognises it.
        hint: Option<&'static str>,
    },
    /// A JSON document that does not parse.
    Json {
        /// 1-based line of the syntax error.
        line: usize,
        /// 1-based column of the syntax error.
        column: usize,
        /// serde_json's description of the error.
        message: String,
    },
    /// A valid JSON document that is none of the JSON formats rtlat reads.
    UnknownJson {
        /// The document's top-level keys (at most eight).
        keys: Vec<String>,
    },
    /// A required JSON key is absent.
    MissingKey {
        /// Dotted path of the key, e.g. `thread.0.cycles`.
        key: String,
    },
    /// A JSON key holds the wrong kind of value.
    BadValue {
        /// Dotted path of the key.
        key: String,
        /// What the key should hold.
        expected: &'static str,
        /// What it holds, shortened.
        found: String,
    },
    /// A text line that is not what the format has at that place.
    BadLine {
        /// 1-based line number.
        line: usize,
        /// What the line should look like.
        expected: &'static str,
        /// The line, shortened to 60 characters.
        text: String,
    },
    /// A part of the format that must be present is not.
    Missing {
        /// The missing part, e.g. `"# Histogram" line`.
        what: &'static str,
    },
    /// The parts parse but contradict each other (a histogram whose counts differ from its
    /// `# Total:` line, columns that do not match the trailer, overlapping buckets …).
    Inconsistent {
        /// 1-based line, when one line is to blame.
        line: Option<usize>,
        /// What contradicts what.
        message: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Empty => f.write_str("empty file: not a latency result"),
            FormatError::Unknown { first_line, hint } => {
                f.write_str(
                    "not a latency result: expected rtlat/cyclictest JSON, cyclictest -h \
                     histogram, jitterdebugger results.json or Xenomai latency output",
                )?;
                write!(f, " (first line: \"{first_line}\")")?;
                if let Some(hint) = hint {
                    write!(f, "; {hint}")?;
                }
                Ok(())
            }
            FormatError::Json {
                line,
                column,
                message,
            } => write!(f, "invalid JSON at line {line}, column {column}: {message}"),
            FormatError::UnknownJson { keys } => write!(
                f,
                "not a latency result: JSON, but not rtlat/cyclictest JSON (no \"rtlat\" or \
                 \"rt_test_version:\" key) nor jitterdebugger results.json (no \"cpu\" object); \
                 top-level keys: {}",
                if keys.is_empty() {
                    "none".to_string()
                } else {
                    keys.join(", ")
                }
            ),
            FormatError::MissingKey { key } => write!(f, "key \"{key}\" is missing"),
            FormatError::BadValue {
                key,
                expected,
                found,
            } => write!(f, "key \"{key}\": expected {expected}, found {found}"),
            FormatError::BadLine {
                line,
                expected,
                text,
            } => write!(f, "line {line}: expected {expected}, found \"{text}\""),
            FormatError::Missing { what } => write!(f, "no {what}"),
            FormatError::Inconsistent {
                line: Some(line),
                message,
            } => write!(f, "line {line}: {message}"),
            FormatError::Inconsistent {
                line: None,
                message,
            } => f.write_str(message),
        }
    }
}

impl std::error::Error for FormatError {}

/// `text` shortened to `max` characters (an ellipsis marks the cut), control characters and
/// double quotes escaped, for quoting input between double quotes in an error message.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    shorten_escaping(text, max, true)
}

/// `text` shortened to `max` characters, control characters escaped (quotes kept).
pub(crate) fn shorten_plain(text: &str, max: usize) -> String {
    shorten_escaping(text, max, false)
}

fn shorten_escaping(text: &str, max: usize, quotes: bool) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        if c.is_control() || (quotes && c == '"') {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A [`FormatError::BadLine`] for 0-based line `index`.
pub(crate) fn bad_line(index: usize, expected: &'static str, text: &str) -> FormatError {
    FormatError::BadLine {
        line: index + 1,
        expected,
        text: shorten(text, 60),
    }
}
