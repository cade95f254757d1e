//! Exact decimal parsing of latencies written as text (`"18.180"` µs → 18 180 ns).

/// `text`, a decimal number of µs (`-12.345`, `7`, `195.041`), in ns, exactly: digits past
/// the third decimal are truncated. `None` if it is not a plain decimal or out of range.
pub(crate) fn micros_to_ns(text: &str) -> Option<i64> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, f),
        None => (digits, ""),
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ns: i64 = 0;
    for b in whole.bytes() {
        ns = ns.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    ns = ns.checked_mul(1000)?;
    let mut scale = 100;
    for b in fraction.bytes().take(3) {
        ns = ns.checked_add(i64::from(b - b'0') * scale)?;
        scale /= 10;
    }
    Some(if negative { -ns } else { ns })
}

/// `text`, a number of µs in any notation `f64` reads (`18.5`, `1.2345e+06`), in ns,
/// rounded. `None` if it is not a finite number or out of range.
pub(crate) fn float_micros_to_ns(text: &str) -> Option<i64> {
    let value: f64 = text.trim().parse().ok()?;
    let ns = value * 1000.0;
    (ns.is_finite() && ns.abs() < 9.2e18).then(|| ns.round() as i64)
}

#[cfg(test)]
mod tests {
    use super::{float_micros_to_ns, micros_to_ns};

    #[test]
    fn micros_parse_exactly() {
        assert_eq!(micros_to_ns("18.180"), Some(18_180));
        assert_eq!(micros_to_ns("  195.041"), Some(195_041));
        assert_eq!(micros_to_ns("-1.5"), Some(-1_500));
        assert_eq!(micros_to_ns("7"), Some(7_000));
        assert_eq!(micros_to_ns(".25"), Some(250));
        assert_eq!(micros_to_ns("1.23456"), Some(1_234));
        for bad in ["", "-", ".", "1.2.3", "x", "1e3", "99999999999999999999"] {
            assert_eq!(micros_to_ns(bad), None, "{bad}");
        }
        assert_eq!(float_micros_to_ns("18.5"), Some(18_500));
        assert_eq!(float_micros_to_ns("1.5e+06"), Some(1_500_000_000));
        assert_eq!(float_micros_to_ns("nan"), None);
        assert_eq!(float_micros_to_ns("inf"), None);
    }
}
