//! `rtlat audit`.

use std::process::ExitCode;

/// Runs `rtlat audit ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat audit: not implemented yet");
    ExitCode::from(2)
}
