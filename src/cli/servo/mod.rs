//! `rtlat servo`.

use std::process::ExitCode;

/// Runs `rtlat servo ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat servo: not implemented yet");
    ExitCode::from(2)
}
