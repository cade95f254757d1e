//! `rtlat cpufreq`: list CPU frequency scaling, or set a governor or a fixed frequency on a
//! set of CPUs (what `cpufreq-set -g` and `-f` do), dry run unless `--apply`, undone by
//! `--restore FILE`; and the governor (and frequency) `rtlat run --governor` and
//! `rtlat run --profile` hold for a run.
//!
//! ```text
//! rtlat cpufreq [--root DIR] [--cpus CPUSET]
//! rtlat cpufreq [--root DIR] [--cpus CPUSET] --governor NAME | --freq FREQ [--apply] [--save FILE]
//! rtlat cpufreq [--root DIR] --restore FILE
//! ```

use std::process::ExitCode;

mod list;
mod options;
mod run_governor;
mod set;

pub(crate) use options::is_governor_name;
pub(crate) use run_governor::RunGovernor;

use options::Action;

/// Runs `rtlat cpufreq ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let action = match options::parse(args) {
        Ok(action) => action,
        Err(error) => {
            errln!("rtlat cpufreq: {error}");
            return rtlat::exit_status::code(rtlat::exit_status::of(&error));
        }
    };
    match action {
        Action::Help => {
            out!("{}\n{}\n", options::usage(), rtlat::exit_status::HELP);
            ExitCode::SUCCESS
        }
        Action::List { facts, cpus } => list::list(&facts, &cpus),
        Action::Set(set) => set::run(set),
        Action::Restore { file, root } => {
            crate::cli::tuning::restore::restore("cpufreq", &file, &root)
        }
    }
}
