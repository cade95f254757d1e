//! rtlat's library side: what the CLI, the fuzz targets and other tools share, above all the
//! readers of the result formats of rtlat and the tools it stands beside (cyclictest,
//! jitterdebugger, Xenomai `latency`).

#![deny(missing_docs)]

pub mod args;
pub mod atomic_file;
pub mod exit_status;
pub mod formats;
pub mod input;
pub mod options;
pub mod output;
#[cfg(feature = "plot")]
#[doc(hidden)]
#[allow(missing_docs)]
pub mod plot;
pub mod stdio;
pub mod values;
