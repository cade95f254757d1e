//! A caller's byte buffer as a `core::fmt::Write` target: report lines formatted on the
//! stack, then sent over a serial port or semihosting, without allocation.

use core::fmt;

/// Writes into a caller's `&mut [u8]`; a write that does not fit fails (`fmt::Error`) and
/// leaves what was written before it.
///
/// ```
/// use core::fmt::Write;
/// use rtlat_core::report::LineBuffer;
///
/// let mut bytes = [0u8; 16];
/// let mut line = LineBuffer::new(&mut bytes);
/// write!(line, "C:{:7}", 125_668).unwrap();
/// assert_eq!(line.as_str(), "C: 125668");
/// assert!(write!(line, " too long for the rest").is_err());
/// assert_eq!(line.as_str(), "C: 125668");
/// ```
#[derive(Debug)]
pub struct LineBuffer<'a> {
    bytes: &'a mut [u8],
    len: usize,
}

impl<'a> LineBuffer<'a> {
    /// An empty line over `bytes`.
    pub const fn new(bytes: &'a mut [u8]) -> Self {
        LineBuffer { bytes, len: 0 }
    }

    /// What was written.
    pub fn as_str(&self) -> &str {
        // Only whole `&str`s are ever copied in, so the bytes are valid UTF-8.
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }

    /// What was written, as bytes (for a serial port).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Starts the line over.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl fmt::Write for LineBuffer<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
