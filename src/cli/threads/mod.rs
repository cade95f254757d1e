//! `rtlat threads`.

use std::process::ExitCode;

/// Runs `rtlat threads ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat threads: not implemented yet");
    ExitCode::from(2)
}
