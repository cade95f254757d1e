//! Readers of latency result files, detected from their content: rtlat and cyclictest JSON,
//! cyclictest `-h` histogram text, jitterdebugger `results.json`, Xenomai `latency` output
//! and its `-g` gnuplot file.
//!
//! Every reader is a `parse(text: &str) -> Result<Run, FormatError>` that never panics (each
//! has a fuzz target) and turns its format into the common [`Run`] model: per-thread or
//! per-CPU [`Series`] with values in ns and the histogram the format carries, from which
//! [`Series::percentile`] computes nearest-rank percentiles (none where the format has no
//! histogram).
//!
//! ```
//! let text = concat!(
//!     "# Histogram\n000000 000000\n000001 000003\n000002 000001\n",
//!     "# Total: 000000004\n# Min Latencies: 00001\n# Avg Latencies: 00001\n",
//!     "# Max Latencies: 00009\n# Histogram Overflows: 00001\n",
//!     "# Histogram Overflow at cycle number:\n# Thread 0: 00003\n",
//! );
//! let run = rtlat::formats::parse(text).unwrap();
//! assert_eq!(run.format, rtlat::formats::Format::CyclictestHist);
//! let t0 = &run.series[0];
//! assert_eq!((t0.cycles, t0.max), (Some(5), Some(9_000)));
//! use rtlat::formats::Percentile;
//! assert_eq!(
//!     t0.percentile(50.0),
//!     Some(Percentile::Within { value: 1_499, low: 1_000, high: 1_999 })
//! );
//! assert_eq!(t0.percentile(99.0), Some(Percentile::AtLeast(3_000)));
//! ```

pub mod cyclictest_hist;
pub mod cyclictest_json;
mod decimal;
pub mod detect;
mod error;
pub mod jitterdebugger;
mod json;
pub mod model;
pub mod rtlat_json;
pub mod xenomai_gnuplot;
pub mod xenomai_latency;

use std::fmt;
use std::path::Path;

pub use detect::{detect, parse, parse_as};
pub use error::FormatError;
pub use model::{Bucket, Format, Histogram, Interval, Percentile, Resolution, Run, Series};

/// Why [`read_file`] failed: the file could not be read, is not text, or is not a result.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(std::io::Error),
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
            ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => {
                f.write_str("no such file")
            }
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::NotText { offset } => write!(
                f,
                "not a latency result: binary content (not UTF-8 text at byte {offset})"
            ),
            ReadError::Format(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads the file at `path`, detects its format and parses it; the run's
/// [`file`](Run::file) is `path` as given.
pub fn read_file(path: &Path) -> Result<Run, ReadError> {
    let bytes = std::fs::read(path).map_err(ReadError::Io)?;
    let text = String::from_utf8(bytes).map_err(|e| ReadError::NotText {
        offset: e.utf8_error().valid_up_to(),
    })?;
    let mut run = parse(&text).map_err(ReadError::Format)?;
    run.file = Some(path.display().to_string());
    Ok(run)
}
