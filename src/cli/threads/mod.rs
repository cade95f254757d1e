//! `rtlat threads`: list threads with their scheduling and CPUs, or change them.
//!
//! ```text
//! rtlat threads [--pid PID | --name REGEX | --tid TID...] [--json] [--root DIR]
//! rtlat threads [--pid PID] [--name REGEX] --set fifo:98 [--pin CPUS] [--apply] [--save FILE]
//! rtlat threads --tid TID --set fifo:98 [--pin CPUS] [--tid …] [--apply] [--save FILE]
//! rtlat threads --restore FILE
//! ```

use std::process::ExitCode;

mod list;
mod options;
mod pattern;
mod set;
mod usage;

use options::Action;

/// Runs `rtlat threads ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let action = match options::parse(args) {
        Ok(action) => action,
        Err(error) => {
            errln!("rtlat threads: {error}");
            return rtlat::exit_status::code(rtlat::exit_status::of(&error));
        }
    };
    match action {
        Action::Help => {
            out!("{}\n{}\n", usage::usage(), rtlat::exit_status::HELP);
            ExitCode::SUCCESS
        }
        Action::List {
            facts,
            filter,
            json,
        } => list::list(&facts, &filter, json),
        Action::Change(change) => set::run(change),
        Action::Restore { file, root } => {
            crate::cli::tuning::restore::restore("threads", &file, &root)
        }
    }
}
