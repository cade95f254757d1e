//! Strict parsers for option values: whole numbers and durations (`-D 10`, `-D 5m`).
//!
//! cyclictest reads numbers with `atoi` (so `-i 1000x` is 1000, `-i x` is 0) and durations with
//! `strtol` plus an optional suffix letter (anything else after the number is ignored). These
//! accept only the well-formed part of that language and say so when a value is not. As
//! `strtol` does, [`c_number`] skips leading white space and takes a `+` sign (`' 3500'`,
//! `+80`): harnesses pass `'-h 3500'` as one word, which getopt splits into `-h` and `' 3500'`.

use std::time::Duration;

/// Why a word is not a whole number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberError {
    /// Empty, or not made of decimal digits (a sign, a decimal point, a letter...).
    NotANumber,
    /// Too large for 64 bits.
    TooLarge,
}

/// Parses a non-negative decimal whole number: digits only (no sign, no spaces).
pub fn whole_number(text: &str) -> Result<u64, NumberError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberError::NotANumber);
    }
    // Only digits: parsing fails only when the number does not fit.
    text.parse::<u64>().map_err(|_| NumberError::TooLarge)
}

/// The C `isspace` characters of the "C" locale.
fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `text` without the white space `strtol` skips before a number, nor any after it (which
/// `strtol` leaves unread, harmlessly).
pub fn trim_c_space(text: &str) -> &str {
    text.trim_matches(is_c_space)
}

/// A whole number as cyclictest's `atoi`/`strtol` reads a well-formed one: leading and
/// trailing white space allowed, an optional `+`, then digits only.
pub fn c_number(text: &str) -> Result<u64, NumberError> {
    let text = trim_c_space(text);
    whole_number(text.strip_prefix('+').unwrap_or(text))
}

/// The seconds in one unit of each duration suffix cyclictest accepts (either case).
fn suffix_seconds(suffix: char) -> Option<u64> {
    match suffix.to_ascii_lowercase() {
        's' => Some(1),
        'm' => Some(60),
        'h' => Some(60 * 60),
        'd' => Some(24 * 60 * 60),
        _ => None,
    }
}

/// Parses `-D`'s duration: whole seconds, or a whole number followed by one of `s`, `m`, `h`,
/// `d` (either case, as cyclictest accepts). Returns `None` when the text is not of that form
/// or the duration exceeds `max_seconds`.
pub fn duration(text: &str, max_seconds: u64) -> Option<Duration> {
    let text = trim_c_space(text);
    let text = text.strip_prefix('+').unwrap_or(text);
    let (digits, unit) = match text.chars().last() {
        Some(last) if !last.is_ascii_digit() => {
            (&text[..text.len() - last.len_utf8()], suffix_seconds(last)?)
        }
        _ => (text, 1),
    };
    let seconds = whole_number(digits).ok()?.checked_mul(unit)?;
    (seconds <= max_seconds).then(|| Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers() {
        assert_eq!(whole_number("0"), Ok(0));
        assert_eq!(whole_number("0010"), Ok(10));
        assert_eq!(whole_number("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            whole_number("18446744073709551616"),
            Err(NumberError::TooLarge)
        );
        for bad in ["", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "abc", "١"] {
            assert_eq!(whole_number(bad), Err(NumberError::NotANumber), "{bad:?}");
        }
    }

    #[test]
    fn c_numbers_skip_white_space_as_strtol_does() {
        assert_eq!(c_number(" 3500"), Ok(3500));
        assert_eq!(c_number("\t\n 80 "), Ok(80));
        assert_eq!(c_number("+80"), Ok(80));
        assert_eq!(c_number(" +7"), Ok(7));
        for bad in [
            "", " ", "80x", "- 1", "-1", "+", "++1", "+ 1", "1 2", "0x10", "\u{a0}1",
        ] {
            assert_eq!(c_number(bad), Err(NumberError::NotANumber), "{bad:?}");
        }
        let max = u64::from(u32::MAX);
        assert_eq!(duration(" 10", max), Some(Duration::from_secs(10)));
        assert_eq!(duration(" 5m ", max), Some(Duration::from_secs(300)));
        assert_eq!(duration("+2", max), Some(Duration::from_secs(2)));
    }

    #[test]
    fn durations() {
        let max = u64::from(u32::MAX);
        let secs = |t| duration(t, max).map(|d| d.as_secs());
        assert_eq!(secs("10"), Some(10));
        assert_eq!(secs("10s"), Some(10));
        assert_eq!(secs("10S"), Some(10));
        assert_eq!(secs("5m"), Some(300));
        assert_eq!(secs("5M"), Some(300));
        assert_eq!(secs("2h"), Some(7200));
        assert_eq!(secs("1d"), Some(86400));
        assert_eq!(secs("0"), Some(0));
        assert_eq!(secs("4294967295"), Some(max));
        for bad in [
            "",
            "s",
            "10x",
            "1.5m",
            "-5",
            "5mm",
            "m5",
            "10 s",
            "1é",
            "4294967296",
            "99999999999999999999d",
        ] {
            assert_eq!(secs(bad), None, "{bad:?}");
        }
    }
}
