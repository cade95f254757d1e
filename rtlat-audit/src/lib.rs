#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod checks;
pub mod cmdline_file;
pub mod context;
pub mod error;
pub mod finding;
pub mod guest;
pub mod isolation;
mod known_params;
pub mod paths;
pub mod report;
pub mod root;
pub mod selected;
pub mod suggest;
mod tsc_watchdog;

pub use context::Context;
pub use error::{RootError, SuggestError};
pub use finding::{Evidence, Finding, Severity, Summary};
pub use report::Report;
pub use root::check_root;
