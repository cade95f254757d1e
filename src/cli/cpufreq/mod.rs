//! `rtlat cpufreq`.

use std::process::ExitCode;

/// Runs `rtlat cpufreq ARGS`; returns the exit status.
pub fn main(_args: &[String]) -> ExitCode {
    eprintln!("rtlat cpufreq: not implemented yet");
    ExitCode::from(2)
}
