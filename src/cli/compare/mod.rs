//! `rtlat compare`.

use std::process::ExitCode;

/// Runs `rtlat compare ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat compare: not implemented yet");
    ExitCode::from(2)
}
