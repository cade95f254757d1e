//! A line's layout as a byte template: its ASCII text, with one control byte (from 0x80) where
//! each figure goes (right-aligned in its width, signed or not), written by one loop that all
//! lines share: rtlat-core's `T:` and `J:` lines, and a firmware's own lines.
//!
//! On a microcontroller a line written field by field pays a call per field (its label's
//! address and length, the value, the width, the error check): 30–50 bytes of flash each. A
//! template pays a byte per character and a byte per field, and its figures are a `[u64; N]`.
//!
//! ```
//! use core::fmt;
//! use rtlat_core::report::template::{self, FIGURE, SIGNED};
//!
//! /// `H: P50:%8d C:%7u`
//! struct Line(i64, u64);
//! impl fmt::Display for Line {
//!     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
//!         const LINE: &[u8] = &[b'H', b':', b' ', b'P', b'5', b'0', b':', FIGURE | SIGNED | 8,
//!             b' ', b'C', b':', FIGURE | 7];
//!         template::write(f, LINE, &[self.0 as u64, self.1], true)
//!     }
//! }
//! assert_eq!(Line(-1500, 42).to_string(), format!("H: P50:{:8} C:{:7}", -1500, 42));
//! ```

use super::Decimal;
use crate::div64::div_i64;
use core::fmt::{self, Write};

/// A control byte: a figure goes here (its width in the low four bits, 0 for none, and the
/// flags below).
pub const FIGURE: u8 = 0x80;
/// A control byte's flag: the figure is an `i64` (stored as its bits).
pub const SIGNED: u8 = 0x10;
/// A control byte's flag: the figure is a latency in ns, shown in µs (truncated toward zero)
/// unless the line shows nanoseconds.
pub const LATENCY: u8 = 0x20;
/// A control byte's width that stands for 8 when the line shows nanoseconds, else 5 (the
/// `T:` line's `Act` and `Avg`).
pub const WIDE: u8 = 0x0f;

/// Writes `template`: ASCII bytes are written as they are; a control byte (0x80 and up) writes
/// the next of `figures` right-aligned in the width of its low four bits ([`WIDE`]: by
/// `nanoseconds`), as an `i64` when it has [`SIGNED`], else as a `u64` (a missing figure is
/// 0), in µs when it has [`LATENCY`] and not `nanoseconds`. Exactly what `{:width$}` writes
/// for each figure, without format arguments and without 64-bit division.
#[inline(never)]
pub fn write(
    f: &mut fmt::Formatter<'_>,
    template: &[u8],
    figures: &[u64],
    nanoseconds: bool,
) -> fmt::Result {
    let mut figures = figures.iter();
    for &byte in template {
        if byte.is_ascii() {
            f.write_char(char::from(byte))?;
            continue;
        }
        let figure = figures.next().copied().unwrap_or(0);
        let value = if byte & LATENCY != 0 {
            Decimal::signed(in_unit(figure as i64, nanoseconds))
        } else if byte & SIGNED != 0 {
            Decimal::signed(figure as i64)
        } else {
            Decimal::unsigned(figure)
        };
        let width = match byte & 0x0f {
            WIDE if nanoseconds => 8,
            WIDE => 5,
            width => width,
        };
        value.write_right(f, usize::from(width))?;
    }
    Ok(())
}

/// A latency in the line's unit: ns, or µs truncated toward zero.
fn in_unit(ns: i64, nanoseconds: bool) -> i64 {
    if nanoseconds { ns } else { div_i64(ns, 1000) }
}
