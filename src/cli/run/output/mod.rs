//! Everything `rtlat run` prints or writes: cyclictest's text formats and its JSON file.

pub mod cyclictest;
pub mod json;

use std::fmt;
use std::io;

/// Lets the text formatters (which write into any `fmt::Write`) stream into an `io::Write`
/// (a buffered stdout, a file) instead of building the whole text in memory first.
pub struct IoText<W: io::Write> {
    inner: W,
    error: Option<io::Error>,
}

impl<W: io::Write> IoText<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        IoText { inner, error: None }
    }

    /// The first I/O error, if a write failed; flushes otherwise.
    pub fn finish(mut self) -> io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.inner.flush(),
        }
    }
}

impl<W: io::Write> fmt::Write for IoText<W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error.get_or_insert(e);
            fmt::Error
        })
    }
}
