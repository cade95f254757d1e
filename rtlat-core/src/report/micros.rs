//! Nanoseconds shown as microseconds with three decimals, exactly (`printf("%.3f", ns/1e3)`
//! without floating point), honouring the formatter's width and alignment.

use core::fmt::{self, Write};

/// Displays nanoseconds as microseconds with three decimals: `Micros3(-1500)` → `-1.500`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Micros3(pub i64);

impl fmt::Display for Micros3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = Buf {
            bytes: [0; 32],
            len: 0,
        };
        let magnitude = self.0.unsigned_abs();
        write!(buf, "{}.{:03}", magnitude / 1000, magnitude % 1000)?;
        // Only ASCII digits and a point were written, so this is valid UTF-8.
        let digits = core::str::from_utf8(buf.as_bytes()).map_err(|_| fmt::Error)?;
        f.pad_integral(self.0 >= 0, "", digits)
    }
}

/// A fixed stack buffer for one formatted number.
struct Buf {
    bytes: [u8; 32],
    len: usize,
}

impl Buf {
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Write for Buf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
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
