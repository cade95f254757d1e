//! The audit's errors: [`RootError`] for a root that cannot be audited, [`SuggestError`] for
//! CPUs that cannot be isolated. Their messages name `rtlat audit`'s options, as the command
//! prints them.

use std::path::PathBuf;

use rtlat_linux::cpuset::CpuSet;

/// Why a root cannot be audited: it must be a directory holding `proc/` or `sys/`.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    /// The root cannot be read.
    #[error(
        "--root {}: {}; give the directory that holds proc/ and sys/ (default /)",
        .root.display(),
        io_error_text(.error)
    )]
    Unreadable {
        /// The root.
        root: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The root is a file.
    #[error(
        "--root {}: not a directory; give the directory that holds proc/ and sys/ (default /)",
        .root.display()
    )]
    NotADirectory {
        /// The root.
        root: PathBuf,
    },
    /// The root holds no `proc/` and no `sys/`.
    #[error(
        "--root {}: holds neither proc/ nor sys/; give the root of a Linux system or of a tree captured from one",
        .root.display()
    )]
    NoSystem {
        /// The root.
        root: PathBuf,
    },
}

/// Why CPUs cannot be isolated (`rtlat audit --suggest --isolate CPUS`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SuggestError {
    /// Some of the CPUs are not on this machine.
    #[error(
        "--isolate {isolate}: {} not on this machine, whose CPUs are {possible} (/sys/devices/system/cpu/possible)",
        cpus_are(.missing)
    )]
    NotOnMachine {
        /// The CPUs asked for.
        isolate: CpuSet,
        /// Those the machine does not have.
        missing: CpuSet,
        /// The machine's possible CPUs.
        possible: CpuSet,
    },
    /// Isolating the CPUs leaves no online CPU for housekeeping.
    #[error(
        "--isolate {isolate} leaves no housekeeping CPU (online CPUs: {online}): {}",
        keep_hint(.keep)
    )]
    NoHousekeeping {
        /// The CPUs asked for.
        isolate: CpuSet,
        /// The online CPUs.
        online: CpuSet,
        /// The CPUs that could be isolated while keeping CPU 0 for housekeeping (empty on a
        /// machine with one CPU).
        keep: CpuSet,
    },
}

/// "CPU 3 is" or "CPUs 2-3 are".
fn cpus_are(set: &CpuSet) -> String {
    if set.len() == 1 {
        format!("CPU {set} is")
    } else {
        format!("CPUs {set} are")
    }
}

fn keep_hint(keep: &CpuSet) -> String {
    if keep.is_empty() {
        "a machine with one CPU cannot isolate one".to_owned()
    } else {
        format!("keep at least one CPU out of --isolate, e.g. --isolate {keep}")
    }
}

/// An I/O error as the audit's messages show it: without Rust's " (os error N)" suffix.
pub fn io_error_text(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}
