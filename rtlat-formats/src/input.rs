//! Files a user names as input (result files, `--cmdline FILE`), read with a bound on their
//! size: a device such as `/dev/zero`, a FIFO that never ends or a file grown by mistake is
//! refused with the limit named, never read until memory runs out.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;

/// The most bytes of a result file (`rtlat compare`, `rtlat plot`) read: 256 MiB, four times
/// the cyclictest `-h 1000000` histogram of eight threads.
pub const RESULT_FILE_MAX: u64 = 256 << 20;

/// The most bytes of a small text file (a kernel command line, a GRUB configuration): 1 MiB.
pub const TEXT_FILE_MAX: u64 = 1 << 20;

/// The longest line a streamed reader takes: 1 MiB.
pub const LINE_MAX: u64 = 1 << 20;

/// Why an input could not be read.
#[derive(Debug)]
pub enum InputError {
    /// The file could not be opened or read.
    Io(io::Error),
    /// The file holds more than `limit` bytes.
    TooLarge {
        /// The bound, bytes.
        limit: u64,
    },
    /// A line of a streamed file is longer than [`LINE_MAX`].
    LineTooLong {
        /// 1-based line number.
        line: usize,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Io(e) if e.kind() == io::ErrorKind::NotFound => f.write_str("no such file"),
            InputError::Io(e) => write!(f, "cannot read: {e}"),
            InputError::TooLarge { limit } => write!(
                f,
                "larger than {}, the most rtlat reads of such a file",
                size_text(*limit)
            ),
            InputError::LineTooLong { line } => write!(
                f,
                "line {line} is longer than {}, the longest line rtlat reads",
                size_text(LINE_MAX)
            ),
        }
    }
}

impl std::error::Error for InputError {}

/// `bytes` as `256 MiB`, `1 MiB`, `4 KiB` or `100 bytes`.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Opens `path` for reading, refusing at once a regular file larger than `limit` and a
/// directory; returns the file with a reader that yields at most `limit + 1` bytes (one more
/// than allowed, so that the caller can tell a file at the limit from one beyond it).
pub fn open_bounded(path: &Path, limit: u64) -> Result<io::Take<File>, InputError> {
    let file = File::open(path).map_err(InputError::Io)?;
    let meta = file.metadata().map_err(InputError::Io)?;
    if meta.is_dir() {
        return Err(InputError::Io(io::Error::new(
            io::ErrorKind::IsADirectory,
            "a directory, not a file",
        )));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(InputError::TooLarge { limit });
    }
    Ok(file.take(limit.saturating_add(1)))
}

/// The bytes of `path`, at most `limit` of them.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let mut reader = open_bounded(path, limit)?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(InputError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge { limit });
    }
    Ok(bytes)
}

/// Reads the next line of `reader` into `line` (cleared first, `\n` removed), at most
/// [`LINE_MAX`] bytes; returns the bytes taken from `reader` (the `\n` counted), `None` at
/// the end. `number` is the line's 1-based number, for the error.
pub fn read_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    number: usize,
) -> Result<Option<usize>, InputError> {
    line.clear();
    let read = reader
        .take(LINE_MAX + 1)
        .read_until(b'\n', line)
        .map_err(InputError::Io)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if line.len() as u64 > LINE_MAX {
        return Err(InputError::LineTooLong { line: number });
    }
    Ok(Some(read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_device_is_refused_at_the_limit() {
        let e = read_bounded(Path::new("/dev/zero"), 4096).unwrap_err();
        assert!(matches!(e, InputError::TooLarge { limit: 4096 }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "larger than 4 KiB, the most rtlat reads of such a file"
        );
    }

    #[test]
    fn a_file_at_the_limit_is_read_and_one_beyond_it_refused_before_reading() {
        let dir = std::env::temp_dir().join(format!("rtlat-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, vec![b'x'; 100]).unwrap();
        assert_eq!(read_bounded(&file, 100).unwrap().len(), 100);
        assert!(matches!(
            open_bounded(&file, 99),
            Err(InputError::TooLarge { limit: 99 })
        ));
        assert!(matches!(read_bounded(&dir, 99), Err(InputError::Io(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_are_bounded() {
        let text = b"one\ntwo";
        let mut reader = &text[..];
        let mut line = Vec::new();
        assert_eq!(read_line(&mut reader, &mut line, 1).unwrap(), Some(4));
        assert_eq!(line, b"one");
        assert_eq!(read_line(&mut reader, &mut line, 2).unwrap(), Some(3));
        assert_eq!(line, b"two");
        assert_eq!(read_line(&mut reader, &mut line, 3).unwrap(), None);
        let long = vec![b'x'; LINE_MAX as usize + 10];
        let mut reader = &long[..];
        assert!(matches!(
            read_line(&mut reader, &mut line, 7),
            Err(InputError::LineTooLong { line: 7 })
        ));
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(RESULT_FILE_MAX), "256 MiB");
        assert_eq!(size_text(TEXT_FILE_MAX), "1 MiB");
        assert_eq!(size_text(100), "100 bytes");
    }
}
