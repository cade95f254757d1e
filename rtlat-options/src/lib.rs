#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod error;
pub mod help;
mod scan;
pub mod values;

pub use error::{CliError, UsageError};
pub use scan::{
    Describe, Found, Grammar, HasArg, Peek, ScanError, Scanned, Spec, scan, scan_detailed,
    scan_with,
};
