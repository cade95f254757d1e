//! `rtlat irq`.

use std::process::ExitCode;

/// Runs `rtlat irq ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat irq: not implemented yet");
    ExitCode::from(2)
}
