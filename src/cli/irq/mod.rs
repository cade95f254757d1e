//! `rtlat irq`: list IRQs with their affinity, or move every movable IRQ away from CPUs.
//!
//! ```text
//! rtlat irq [--root DIR]                                 list IRQs: affinity, effective, movable, name
//! rtlat irq [--root DIR] --away-from CPUSET [--default] [--apply] [--save FILE]
//! rtlat irq [--root DIR] --restore FILE
//! ```

use std::process::ExitCode;

mod away;
mod list;
mod options;

use options::Action;

/// Runs `rtlat irq ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let action = match options::parse(args) {
        Ok(action) => action,
        Err(error) => {
            errln!("rtlat irq: {error}");
            return rtlat::exit_status::code(rtlat::exit_status::of(&error));
        }
    };
    match action {
        Action::Help => {
            out!("{}\n{}\n", options::usage(), rtlat::exit_status::HELP);
            ExitCode::SUCCESS
        }
        Action::List { facts } => list::list(&facts),
        Action::Away(away) => away::run(away),
        Action::Restore { file, root } => crate::cli::tuning::restore::restore("irq", &file, &root),
    }
}
