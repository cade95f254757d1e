//! `rtlat cpufreq --governor NAME` / `--freq FREQ`: plan the changes, then dry run or apply
//! through the shared flow.

use std::process::ExitCode;

use rtlat_system::TuneError as Error;
use rtlat_system::tune::cpufreq::{frequency_changes, governor_changes};

use super::options::Set;
use crate::cli::tuning::apply::{Request, run as run_request};

/// Plans and prints (and with `--apply` makes) the changes; returns the exit status.
pub fn run(set: Set) -> ExitCode {
    let mut changes = Vec::new();
    let refuse = |option: String, e: Error| {
        match e {
            // Says all there is to say, whatever the option.
            Error::NoCpufreq { .. } => errln!("rtlat cpufreq: {e}"),
            e => errln!("rtlat cpufreq: {option}: {e}"),
        }
        rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
    };
    if let Some(governor) = &set.governor {
        match governor_changes(&set.facts, &set.cpus, governor) {
            Ok(found) => changes.extend(found),
            Err(e) => return refuse(format!("--governor {governor}"), e),
        }
    }
    if let Some((khz, text)) = &set.freq {
        match frequency_changes(&set.facts, &set.cpus, *khz) {
            Ok(found) => changes.extend(found),
            Err(e) => return refuse(format!("--freq {text}"), e),
        }
    }
    run_request(&Request {
        command: "cpufreq",
        argv: set.argv,
        root: set.facts.root().to_path_buf(),
        changes,
        apply: set.apply,
        save: set.save,
        skip: |_| false,
        skipped_as: "refused",
    })
}
