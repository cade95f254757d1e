//! The patterns of `rtlat threads --name`: regular expressions in the syntax of the `regex`
//! crate, matched in linear time (a pattern such as `.*.*.*.*.*.*.*.*Z` costs no more than
//! any other).
//!
//! | syntax      | matches                                      |
//! |-------------|----------------------------------------------|
//! | `c`         | the character `c`                            |
//! | `.`         | any one character                            |
//! | `x*` `x+` `x?` | `x` 0+, 1+, 0–1 times                     |
//! | `^` `$`     | the start, the end of the name               |
//! | `a\|b`      | `a` or `b`                                   |
//! | `\c`        | `c` itself for punctuation (`\.`, `\*`, `\\`, `\(`) |
//! | `[0-9]` `(a\|b)` `x{2}` | classes, groups, counted repeats (the `regex` crate's syntax) |
//!
//! A pattern matches anywhere in the name unless anchored; `.` matches any character, a
//! newline included (a thread may name itself anything). A pattern whose compiled form would
//! exceed [`SIZE_LIMIT`] is refused.

use regex::{Regex, RegexBuilder};

/// The most memory a compiled pattern may take, in bytes. Thread names are at most 15 bytes:
/// useful patterns are a few hundred bytes; this refuses `(a{1000}){1000}` and its kind.
pub const SIZE_LIMIT: usize = 1 << 20;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Regex,
}

/// What `--name` accepts, for error messages.
pub const SYNTAX: &str =
    "a regular expression in the Rust regex crate's syntax, e.g. qemu-system or '^CPU [0-9]+/KVM$'";

impl Pattern {
    /// Compiles `text`; the error is the reason, in words, on one line.
    pub fn new(text: &str) -> Result<Pattern, String> {
        RegexBuilder::new(text)
            .dot_matches_new_line(true)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build()
            .map(|regex| Pattern { regex })
            .map_err(|e| reason(&e))
    }

    /// Whether the pattern matches somewhere in `name`.
    pub fn is_match(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }
}

/// The regex crate's error on one line: a syntax error's `error: …` line (its other lines
/// repeat the pattern and point at the place), or the size limit in words.
fn reason(error: &regex::Error) -> String {
    match error {
        regex::Error::CompiledTooBig(limit) => format!(
            "the pattern is too big: compiled it would take more than {} KiB; write a shorter one",
            limit / 1024
        ),
        regex::Error::Syntax(text) => text
            .lines()
            .find_map(|l| l.trim().strip_prefix("error: "))
            .map(str::to_owned)
            .unwrap_or_else(|| text.split_whitespace().collect::<Vec<_>>().join(" ")),
        other => other
            .to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, name: &str) -> bool {
        Pattern::new(pattern).unwrap().is_match(name)
    }

    #[test]
    fn matches_like_a_regex() {
        assert!(m("qemu-system", "qemu-system-x86"));
        assert!(m("qemu", "my-qemu"));
        assert!(!m("^qemu", "my-qemu"));
        assert!(m("^CPU .*/KVM$", "CPU 3/KVM"));
        assert!(!m("^CPU .*/KVM$", "CPU 3/KVM2"));
        assert!(m("^CPU [0-9]+/KVM$", "CPU 12/KVM"));
        assert!(m("a.c", "abc") && !m("a.c", "ac"));
        assert!(m("a.c", "a\nc"));
        assert!(m("ab*c", "ac") && m("ab*c", "abbbc"));
        assert!(m("ab+c", "abc") && !m("ab+c", "ac"));
        assert!(m("^ab?c$", "ac") && m("^ab?c$", "abc") && !m("^ab?c$", "abbc"));
        assert!(m("^irq/|^ksoftirqd", "irq/24-ACPI:Ged"));
        assert!(m("^irq/|^ksoftirqd", "ksoftirqd/0"));
        assert!(!m("^irq/|^ksoftirqd", "kworker"));
        assert!(m("a\\.b", "a.b") && !m("a\\.b", "axb"));
        assert!(m("\\(x\\)", "my (x) comm"));
        assert!(m("cost\\$$", "cost$"));
        assert!(m("", "anything") && m("^$", "") && !m("^$", "x"));
        assert!(m(".*", ""));
        assert!(m("é+", "café"));
    }

    #[test]
    fn refuses_bad_patterns_in_one_line() {
        for (bad, fragment) in [
            ("[0-9", "unclosed character class"),
            ("(qemu", "unclosed group"),
            ("*a", "repetition operator missing expression"),
            ("a\\", "incomplete escape sequence"),
            ("(?:a{1000}){1000}", "the pattern is too big"),
        ] {
            let err = Pattern::new(bad).unwrap_err();
            assert!(err.contains(fragment), "{bad}: {err}");
            assert!(!err.contains('\n'), "{bad}: {err}");
        }
    }

    #[test]
    fn matching_is_linear() {
        let pattern = Pattern::new(&format!("{}Z", ".*".repeat(64))).unwrap();
        assert!(!pattern.is_match("aaaaaaaaaaaaaaa"));
        assert!(pattern.is_match("aaaaaaaaaaaaaaZ"));
        let pattern = Pattern::new("a*a*a*a*a*a*a*b").unwrap();
        assert!(!pattern.is_match("aaaaaaaaaaaaaaa"));
    }
}
