//! A fixed-capacity line as a `core::fmt::Write` target: report lines formatted on the stack,
//! then sent over a serial port or semihosting, without allocation.

/// A line of at most `N` bytes, formatted in place ([`heapless::String`]): a write that does
/// not fit fails (`fmt::Error`) and leaves what was written before it.
///
/// ```
/// use core::fmt::Write;
/// use rtlat_core::report::LineBuffer;
///
/// let mut line = LineBuffer::<16>::new();
/// write!(line, "C:{:7}", 125_668).unwrap();
/// assert_eq!(line.as_str(), "C: 125668");
/// assert!(write!(line, " too long for the rest").is_err());
/// assert_eq!(line.as_str(), "C: 125668");
/// assert_eq!(line.as_bytes(), b"C: 125668"); // for a serial port
/// line.clear(); // starts the line over
/// ```
pub type LineBuffer<const N: usize> = heapless::String<N>;
