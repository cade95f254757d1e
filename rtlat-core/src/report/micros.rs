//! Nanoseconds shown as microseconds with three decimals, exactly (`printf("%.3f", ns/1e3)`
//! without floating point), honouring the formatter's width and alignment.

use core::fmt::{self, Write};

/// Displays nanoseconds as microseconds with three decimals: `Micros3(-1500)` → `-1.500`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Micros3(pub i64);

impl fmt::Display for Micros3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One formatted number: at most 20 digits, a point and 3 decimals.
        let mut digits = heapless::String::<32>::new();
        let magnitude = self.0.unsigned_abs();
        write!(digits, "{}.{:03}", magnitude / 1000, magnitude % 1000)?;
        f.pad_integral(self.0 >= 0, "", &digits)
    }
}

#[cfg(test)]
mod tests {
    use super::Micros3;

    #[test]
    fn matches_printf_three_decimals() {
        assert_eq!(format!("{:11}", Micros3(19_558)), "     19.558");
        assert_eq!(format!("{:11}", Micros3(-1_500)), "     -1.500");
        assert_eq!(format!("{}", Micros3(-500)), "-0.500");
        assert_eq!(format!("{}", Micros3(0)), "0.000");
        assert_eq!(format!("{}", Micros3(i64::MIN)), "-9223372036854775.808");
        assert_eq!(format!("{:11}", Micros3(195_041)), "    195.041");
    }
}
