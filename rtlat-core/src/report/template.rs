//! A line's layout as a byte template: its ASCII text, with one control byte (from 0x80) where
//! each figure goes
//! (right-aligned in its width, signed or not), written by one loop that all lines share.
//!
//! On a microcontroller a line written field by field pays a call per field (its label's
//! address and length, the value, the width, the error check): 30–50 bytes of flash each. A
//! template pays a byte per character and a byte per field, and its figures are a `[u64; N]`.

use super::Decimal;
use super::cyclictest::in_unit;
use core::fmt::{self, Write};

/// A control byte's flag: the figure is an `i64` (stored as its bits).
pub(super) const SIGNED: u8 = 0x10;
/// A control byte's flag: the figure is a latency in ns, shown in µs (truncated toward zero)
/// unless the line shows nanoseconds.
pub(super) const LATENCY: u8 = 0x20;
/// A control byte's width that stands for 8 when the line shows nanoseconds, else 5 (the
/// `T:` line's `Act` and `Avg`).
pub(super) const WIDE: u8 = 0x0f;

/// Writes `template`: ASCII bytes are written as they are; a control byte (0x80 and up) writes
/// the next of `figures` right-aligned in the width of its low four bits (`WIDE`: in
/// `nanoseconds`), as an `i64` when it has [`SIGNED`], else as a `u64` (a missing figure is
/// 0), in µs when it has [`LATENCY`] and not `nanoseconds`.
#[inline(never)]
pub(super) fn write(
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
