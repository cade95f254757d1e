//! 64-bit integers in decimal with 32-bit arithmetic only, honouring the formatter's width,
//! fill, alignment, sign and zero-padding exactly as `{}` on `i64`/`u64` does.
//!
//! `core::fmt` formats a `u64` with 64-bit divisions: on a 32-bit microcontroller that links
//! the 64-bit division routine and a second copy of the digit loop, about 2.5 KiB of flash for
//! a report line. Here a value that fits in 32 bits takes the `u32` digit loop, and a larger
//! one is cut into groups of four digits by long division over 16-bit limbs (each step a
//! hardware 32-bit division); padding is done here, so no UTF-8 validation is linked either.

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

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // u64::MAX has 20 digits.
        let mut digits = [b'0'; 20];
        let mut start = digits.len();
        let mut rest = self.magnitude;
        // Groups of four digits while the value needs more than 32 bits.
        while rest > u64::from(u32::MAX) {
            let (quotient, mut group) = div_rem_10_000(rest);
            for _ in 0..4 {
                start -= 1;
                digits[start] = b'0' + (group % 10) as u8;
                group /= 10;
            }
            rest = quotient;
        }
        let mut small = rest as u32;
        loop {
            start -= 1;
            digits[start] = b'0' + (small % 10) as u8;
            small /= 10;
            if small == 0 {
                break;
            }
        }
        let digits = &digits[start..];
        // Padded as `Formatter::pad_integral` pads (right-aligned by default; `0` pads
        // between the sign and the digits), written a character at a time: the digits are
        // ASCII, and this way no UTF-8 validation is linked.
        let sign = if self.negative {
            Some('-')
        } else if f.sign_plus() {
            Some('+')
        } else {
            None
        };
        let len = digits.len() + usize::from(sign.is_some());
        let pad = f.width().map_or(0, |width| width.saturating_sub(len));
        let zeros = f.sign_aware_zero_pad();
        let (before, after) = match f.align() {
            _ if zeros => (0, 0),
            Some(fmt::Alignment::Left) => (0, pad),
            Some(fmt::Alignment::Center) => (pad / 2, pad - pad / 2),
            _ => (pad, 0),
        };
        let fill = f.fill();
        for _ in 0..before {
            f.write_char(fill)?;
        }
        if let Some(sign) = sign {
            f.write_char(sign)?;
        }
        if zeros {
            for _ in 0..pad {
                f.write_char('0')?;
            }
        }
        for &digit in digits {
            f.write_char(char::from(digit))?;
        }
        for _ in 0..after {
            f.write_char(fill)?;
        }
        Ok(())
    }
}

/// `(n / 10 000, n % 10 000)` by long division over the four 16-bit limbs of `n`: each step
/// divides `remainder · 2^16 + limb < 10 000 · 2^16` in 32 bits.
fn div_rem_10_000(n: u64) -> (u64, u32) {
    let (mut quotient, mut remainder) = (0u64, 0u32);
    for shift in [48, 32, 16, 0] {
        let part = (remainder << 16) | ((n >> shift) as u32 & 0xFFFF);
        quotient |= u64::from(part / 10_000) << shift;
        remainder = part % 10_000;
    }
    (quotient, remainder)
}

#[cfg(test)]
mod tests {
    use super::Decimal;
    use proptest::prelude::*;

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
        }
    }
}
