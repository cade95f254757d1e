//! 64-bit integers in decimal without the 64-bit division routine, honouring the formatter's width,
//! fill, alignment, sign and zero-padding exactly as `{}` on `i64`/`u64` does.
//!
//! `core::fmt` formats a `u64` with 64-bit divisions: on a 32-bit microcontroller that links
//! the 64-bit division routine and a second copy of the digit loop, about 2.5 KiB of flash for
//! a report line. Here each digit is found by subtracting its power of ten, written as it
//! is found (no buffer), and the padding is done here too, so no UTF-8 validation is linked.

use crate::div64::div_u64;
use core::fmt::{self, Write};

/// Displays an `i64` or a `u64` as `{}` does, without 64-bit division.
///
/// ```
/// use rtlat_core::report::Decimal;
/// assert_eq!(format!("{:>8}", Decimal::signed(-1_500)), "   -1500");
/// assert_eq!(format!("{}", Decimal::unsigned(u64::MAX)), u64::MAX.to_string());
/// assert_eq!(format!("{:07}", Decimal::signed(-42)), format!("{:07}", -42));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    magnitude: u64,
}

impl Decimal {
    /// A signed value.
    pub const fn signed(value: i64) -> Self {
        Decimal {
            negative: value < 0,
            magnitude: value.unsigned_abs(),
        }
    }

    /// An unsigned value.
    pub const fn unsigned(value: u64) -> Self {
        Decimal {
            negative: false,
            magnitude: value,
        }
    }
}

impl Decimal {
    /// Writes the value right-aligned in `width` characters, space-filled: what `{:width$}`
    /// writes, without building format arguments (a report line's fields).
    pub fn write_right(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        self.write(f, width, ' ', Placement::Right, false)
    }

    /// The digits, sign and padding, placed as `Formatter::pad_integral` places them.
    fn write(
        &self,
        f: &mut fmt::Formatter<'_>,
        width: usize,
        fill: char,
        placement: Placement,
        plus: bool,
    ) -> fmt::Result {
        // The largest power of ten not above the value (1 for 0): its digit count.
        let magnitude = self.magnitude;
        let (mut power, mut len) = (1u64, 1usize);
        while let Some(next) = power.checked_mul(10)
            && next <= magnitude
        {
            (power, len) = (next, len + 1);
        }
        let sign = if self.negative {
            Some('-')
        } else if plus {
            Some('+')
        } else {
            None
        };
        let len = len + usize::from(sign.is_some());
        let pad = width.saturating_sub(len);
        let (before, after) = match placement {
            Placement::Zeros => (0, 0),
            Placement::Left => (0, pad),
            Placement::Center => (pad / 2, pad - pad / 2),
            Placement::Right => (pad, 0),
        };
        for _ in 0..before {
            f.write_char(fill)?;
        }
        if let Some(sign) = sign {
            f.write_char(sign)?;
        }
        if placement == Placement::Zeros {
            for _ in 0..pad {
                f.write_char('0')?;
            }
        }
        // Digits from the highest, each by subtracting its power of ten (at most nine
        // times): no buffer, no division but one by 10 per digit.
        let mut rest = magnitude;
        loop {
            let mut digit = b'0';
            while rest >= power {
                rest -= power;
                digit += 1;
            }
            f.write_char(char::from(digit))?;
            if power == 1 {
                break;
            }
            power = div_u64(power, 10);
        }
        for _ in 0..after {
            f.write_char(fill)?;
        }
        Ok(())
    }
}

/// Where padding goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    Left,
    Center,
    Right,
    /// The `0` flag: zeros between the sign and the digits.
    Zeros,
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let placement = match f.align() {
            _ if f.sign_aware_zero_pad() => Placement::Zeros,
            Some(fmt::Alignment::Left) => Placement::Left,
            Some(fmt::Alignment::Center) => Placement::Center,
            _ => Placement::Right,
        };
        self.write(
            f,
            f.width().unwrap_or(0),
            f.fill(),
            placement,
            f.sign_plus(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Decimal;
    use core::fmt;
    use proptest::prelude::*;

    struct Right(Decimal, usize);
    impl fmt::Display for Right {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            self.0.write_right(f, self.1)
        }
    }

    #[test]
    fn edges_as_core() {
        for v in [
            0,
            1,
            -1,
            9,
            10,
            4_294_967_295,
            4_294_967_296,
            i64::MAX,
            i64::MIN,
        ] {
            assert_eq!(Decimal::signed(v).to_string(), v.to_string());
            assert_eq!(format!("{:+25}", Decimal::signed(v)), format!("{:+25}", v));
        }
        for v in [0, 10_000, 100_000_000_000, u64::MAX] {
            assert_eq!(Decimal::unsigned(v).to_string(), v.to_string());
        }
    }

    proptest! {
        #[test]
        fn as_core_fmt(v in any::<i64>(), u in any::<u64>(), w in 0usize..24) {
            prop_assert_eq!(format!("{:w$}", Decimal::signed(v)), format!("{:w$}", v));
            prop_assert_eq!(format!("{:<w$}", Decimal::signed(v)), format!("{:<w$}", v));
            prop_assert_eq!(format!("{:0w$}", Decimal::signed(v)), format!("{:0w$}", v));
            prop_assert_eq!(format!("{:w$}", Decimal::unsigned(u)), format!("{:w$}", u));
            prop_assert_eq!(format!("{:^w$}", Decimal::signed(v)), format!("{:^w$}", v));
            prop_assert_eq!(format!("{:*>+w$}", Decimal::signed(v)), format!("{:*>+w$}", v));
            prop_assert_eq!(format!("{:+0w$}", Decimal::signed(v)), format!("{:+0w$}", v));
            prop_assert_eq!(format!("{}", Right(Decimal::signed(v), w)), format!("{:w$}", v));
        }
    }
}
