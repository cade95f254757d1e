//! The command line of every rtlat command, one mechanism (ripgrep's model): each command has
//! one table of [`Spec`]s, one entry per option holding its names, whether it takes a value,
//! what the value must be and its help line. From the table,
//!
//! - [`scan`] (and [`scan_with`], for commands that take files) splits the words into options
//!   and operands, with cyclictest's `getopt_long` grammar: bundled short options, attached
//!   and optional values, `--name=value`, unambiguous prefixes of long names;
//! - [`help::options`] writes the options part of the command's `--help` (the drop-in fronts,
//!   `cyclictest`, `latency` and `servo`, keep the real tool's usage text as it is; a test
//!   checks that it names every option of their table).
//!
//! Parsing is two steps in every command: the first checks what the user typed (names, values,
//! combinations) and touches nothing; the second resolves the result against the machine
//! (CPUs, profiles, files). Both refuse with one error type, [`CliError`] (a [`UsageError`] or
//! a command's own line), whose exit status [`crate::exit_status::of`] gives.

mod error;
pub mod help;
mod scan;

pub use error::{CliError, UsageError};
pub use scan::{
    Describe, Found, Grammar, HasArg, Peek, ScanError, Scanned, Spec, scan, scan_detailed,
    scan_with,
};
