//! `rtlat latency`.

use std::process::ExitCode;

/// Runs `rtlat latency ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat latency: not implemented yet");
    ExitCode::from(2)
}
