//! `rtlat plot`.

use std::process::ExitCode;

/// Runs `rtlat plot ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat plot: not implemented yet");
    ExitCode::from(2)
}
