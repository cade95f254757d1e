//! CPU frequencies as people write them (`1.6GHz`, `800 MHz`, `1600000`) and as cpufreq
//! files hold them (whole kHz).

/// What a frequency looks like, for error messages.
pub const FREQUENCY_SYNTAX: &str = "a frequency such as 1.6GHz, 800MHz, 1600000kHz or 1600000000Hz (a bare number is kHz, as in cpufreq-set)";

/// Parses a frequency into kHz. Units `Hz`, `kHz`, `MHz`, `GHz` (any case, a space before
/// the unit allowed), decimals allowed; a bare number is kHz. It must be a whole number of
/// kHz above zero. The error is the reason, in words.
pub fn parse_frequency(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let hz_per_unit: u128 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "khz" => 1_000,
        "hz" => 1,
        "mhz" => 1_000_000,
        "ghz" => 1_000_000_000,
        other => {
            return Err(format!(
                "unknown unit `{other}`: expected {FREQUENCY_SYNTAX}"
            ));
        }
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty()
        || fraction.contains('.')
        || whole.len() + fraction.len() > 24
    {
        return Err(format!("`{trimmed}` is not {FREQUENCY_SYNTAX}"));
    }
    // All digits, at most 24 of them: fits u128 with room for the unit.
    let digits = format!("{whole}{fraction}");
    let mantissa: u128 = digits
        .parse()
        .map_err(|_| format!("`{trimmed}` is not {FREQUENCY_SYNTAX}"))?;
    let scale = 10u128.pow(fraction.len() as u32);
    let millihz = mantissa * hz_per_unit * 1000;
    // kHz = mantissa × Hz-per-unit / 10^decimals / 1000.
    let divisor = scale * 1_000_000;
    if !millihz.is_multiple_of(divisor) {
        return Err(format!(
            "`{trimmed}` is not a whole number of kHz (cpufreq counts in kHz)"
        ));
    }
    let khz = millihz / divisor;
    match u64::try_from(khz) {
        Ok(0) => Err(format!(
            "`{trimmed}` is zero: give a frequency the CPU offers"
        )),
        Ok(khz) => Ok(khz),
        Err(_) => Err(format!("`{trimmed}` is too high for a CPU frequency")),
    }
}

/// `khz` as people read it: `1.6GHz`, `800MHz`, `1.596GHz`, `999kHz`.
pub fn format_khz(khz: u64) -> String {
    let decimal = |value: u64, per: u64, unit: &str| {
        let whole = value / per;
        let rest = value % per;
        if rest == 0 {
            format!("{whole}{unit}")
        } else {
            let width = per.ilog10() as usize;
            let fraction = format!("{rest:0width$}");
            format!("{whole}.{}{unit}", fraction.trim_end_matches('0'))
        }
    };
    if khz >= 1_000_000 {
        decimal(khz, 1_000_000, "GHz")
    } else if khz >= 1_000 {
        decimal(khz, 1_000, "MHz")
    } else {
        format!("{khz}kHz")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn units_and_decimals() {
        for (text, khz) in [
            ("1.6GHz", 1_600_000),
            ("1.6 GHz", 1_600_000),
            ("1.6ghz", 1_600_000),
            ("2GHz", 2_000_000),
            ("800MHz", 800_000),
            ("1596.5MHz", 1_596_500),
            ("1600000kHz", 1_600_000),
            ("1600000", 1_600_000),
            ("1600000000Hz", 1_600_000),
            ("0.8GHz", 800_000),
            (".8GHz", 800_000),
            ("1.GHz", 1_000_000),
            (" 1.2GHz ", 1_200_000),
        ] {
            assert_eq!(parse_frequency(text), Ok(khz), "{text}");
        }
        for (bad, reason) in [
            ("", "is not"),
            ("GHz", "is not"),
            ("1.6.1GHz", "is not"),
            ("1.6THz", "unknown unit"),
            ("-1GHz", "unknown unit"),
            ("1.5Hz", "whole number of kHz"),
            ("1234Hz", "whole number of kHz"),
            ("0", "zero"),
            ("0.0GHz", "zero"),
            ("99999999999999999999GHz", "too high"),
            ("9999999999999999999999999", "is not"),
            ("1,6GHz", "unknown unit"),
        ] {
            let err = parse_frequency(bad).unwrap_err();
            assert!(err.contains(reason), "{bad}: {err}");
        }
    }

    #[test]
    fn formats_for_people() {
        assert_eq!(format_khz(1_600_000), "1.6GHz");
        assert_eq!(format_khz(2_000_000), "2GHz");
        assert_eq!(format_khz(1_596_000), "1.596GHz");
        assert_eq!(format_khz(800_000), "800MHz");
        assert_eq!(format_khz(800_500), "800.5MHz");
        assert_eq!(format_khz(999), "999kHz");
    }

    proptest! {
        #[test]
        fn format_parses_back(khz in 1u64..10_000_000_000) {
            prop_assert_eq!(parse_frequency(&format_khz(khz)), Ok(khz));
        }

        #[test]
        fn never_panics(text in "[0-9.a-zA-Z -]{0,30}") {
            let _ = parse_frequency(&text);
        }
    }
}
