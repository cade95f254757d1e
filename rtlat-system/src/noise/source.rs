//! [`Source`]: one kernel file kept open and re-read from offset 0 with `pread` into a buffer
//! of fixed size, so a sample costs one system call per file and allocates nothing. What does
//! not fit in the buffer is not read (every input has a size bound).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

/// The buffer size up to which a short read ends the file.
const ONE_PAGE: usize = 4096;

/// A file read again and again.
#[derive(Debug)]
pub(crate) struct Source {
    path: PathBuf,
    file: Option<File>,
}

impl Source {
    pub(crate) fn new(path: PathBuf) -> Self {
        let file = File::open(&path).ok();
        Source { path, file }
    }

    /// Whether the file could be opened.
    pub(crate) fn exists(&self) -> bool {
        self.file.is_some()
    }

    /// The file's text from offset 0, at most `buf.len()` bytes; `None` if it cannot be read
    /// (absent, gone, not UTF-8).
    pub(crate) fn read<'b>(&mut self, buf: &'b mut [u8]) -> Option<&'b str> {
        let file = self.file.as_ref()?;
        let mut filled = 0;
        while filled < buf.len() {
            match file.read_at(&mut buf[filled..], filled as u64) {
                Ok(0) => break,
                // A file of one page (sysfs attributes, a task's schedstat, stat, status) comes
                // whole in one read: a short read is its end, so those cost one call. Longer
                // files (/proc/interrupts) are read until a read returns nothing.
                Ok(n) if buf.len() <= ONE_PAGE && n < buf.len() - filled => {
                    filled += n;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.file = None;
                    return None;
                }
            }
        }
        // A cut in the middle of a character drops only that character.
        match std::str::from_utf8(&buf[..filled]) {
            Ok(text) => Some(text),
            Err(e) => std::str::from_utf8(&buf[..e.valid_up_to()]).ok(),
        }
    }

    /// A single decimal number.
    pub(crate) fn number(&mut self, buf: &mut [u8]) -> Option<u64> {
        self.read(buf).and_then(super::counters::single_number)
    }

    #[allow(dead_code)]
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }
}
