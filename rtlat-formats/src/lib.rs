#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod cyclictest_hist;
pub mod cyclictest_json;
mod decimal;
pub mod detect;
mod error;
pub mod input;
pub mod jitterdebugger;
mod json;
pub mod model;
pub mod rtlat_json;
pub mod schema;
pub mod xenomai_gnuplot;
pub mod xenomai_latency;

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::input::InputError;

pub use detect::{detect, parse, parse_as};
pub use error::FormatError;
pub use model::{Bucket, Format, Histogram, Interval, Percentile, Resolution, Run, Series};

/// Why [`read_file`] failed: the file could not be read, is too large, is not text, or is
/// not a result.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read, or is larger than
    /// [`RESULT_FILE_MAX`](input::RESULT_FILE_MAX).
    Input(InputError),
    /// The file is not UTF-8 text.
    NotText {
        /// Offset of the first byte that is not UTF-8.
        offset: usize,
    },
    /// The text is not a result rtlat reads.
    Format(FormatError),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Input(e) => e.fmt(f),
            ReadError::NotText { offset } => write!(
                f,
                "not a latency result: binary content (not UTF-8 text at byte {offset})"
            ),
            ReadError::Format(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<InputError> for ReadError {
    fn from(e: InputError) -> Self {
        ReadError::Input(e)
    }
}

/// Reads the file at `path` (at most [`RESULT_FILE_MAX`](input::RESULT_FILE_MAX)
/// bytes), detects its format and parses it; the run's [`file`](Run::file) is `path` as
/// given. A cyclictest histogram, the format that grows with the histogram's width, is
/// streamed a line at a time: its memory is that of its non-empty buckets, not of the file.
pub fn read_file(path: &Path) -> Result<Run, ReadError> {
    let mut reader = BufReader::with_capacity(
        STREAM_HEAD,
        input::open_bounded(path, input::RESULT_FILE_MAX)?,
    );
    let head = reader.fill_buf().map_err(InputError::Io)?;
    if let Some(offset) = head.iter().position(|&b| b == 0) {
        // No result format holds a NUL: `/dev/zero` or a binary file, refused at once.
        return Err(ReadError::NotText { offset });
    }
    let mut run = if head_is_histogram(head) {
        read_histogram(&mut reader)?
    } else {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(InputError::Io)?;
        if bytes.len() as u64 > input::RESULT_FILE_MAX {
            return Err(InputError::TooLarge {
                limit: input::RESULT_FILE_MAX,
            }
            .into());
        }
        let text = String::from_utf8(bytes).map_err(|e| ReadError::NotText {
            offset: e.utf8_error().valid_up_to(),
        })?;
        parse(&text).map_err(ReadError::Format)?
    };
    run.file = Some(path.display().to_string());
    Ok(run)
}

/// The bytes of a file looked at to tell whether it is streamed.
const STREAM_HEAD: usize = 64 << 10;

/// Whether the start of a file shows a cyclictest histogram (its `# Histogram` line within
/// the first bytes read).
fn head_is_histogram(head: &[u8]) -> bool {
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        // A character cut by the end of the head is not an error.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    !text.trim_start().starts_with('{') && cyclictest_hist::looks_like(text)
}

/// Reads a cyclictest histogram from `reader` a line at a time.
fn read_histogram(reader: &mut impl BufRead) -> Result<Run, ReadError> {
    let mut histogram = cyclictest_hist::Reader::default();
    let mut line = Vec::new();
    let mut offset = 0;
    let mut index = 0;
    while let Some(read) = input::read_line(reader, &mut line, index + 1)? {
        if (offset + read) as u64 > input::RESULT_FILE_MAX {
            // The reader stops one byte past the bound: the file goes on beyond it.
            return Err(InputError::TooLarge {
                limit: input::RESULT_FILE_MAX,
            }
            .into());
        }
        let text = std::str::from_utf8(&line).map_err(|e| ReadError::NotText {
            offset: offset + e.valid_up_to(),
        })?;
        let text = if index == 0 {
            text.strip_prefix('\u{feff}').unwrap_or(text)
        } else {
            text
        };
        histogram.line(index, text).map_err(ReadError::Format)?;
        offset += read;
        index += 1;
    }
    histogram.finish().map_err(ReadError::Format)
}
