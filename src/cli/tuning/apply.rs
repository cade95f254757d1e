//! The dry run / apply / save flow of a tuning command, once its changes are planned.
//!
//! - Dry run (the default): each change printed as `TARGET: OLD → NEW`, then a line saying
//!   nothing changed; a missing privilege is noted on stderr, so `--apply` holds no surprise.
//! - `--apply`: the privilege checked for every change before any is made, and for every
//!   thread change the privilege to undo it too (a change its user could not undo is
//!   refused); the restore file written (atomically) with every planned change *before* the
//!   first one is made, so a command killed half-way still leaves a file that undoes what it
//!   did; the changes made all or nothing (a failure undoes those already made); the restore
//!   file rewritten with what was made; each change printed as it was made.
//!
//! Exit status (`rtlat::exit_status`): 0 done (or nothing to do); 2 refused, and the system is
//! as it was; 5 a change failed and some could not be undone (they are printed, and in the
//! restore file).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rtlat_system::TuneError as Error;
use rtlat_system::facts::Facts;
use rtlat_system::tune::{
    Change, RestoreFile, file, permission, restore::utc_text, transaction::Failed,
};

use rtlat::atomic_file::write_atomically;
use rtlat::exit_status::{self, BAD_INPUT, NOT_UNDONE, OK};

/// A planned tuning command.
pub struct Request {
    /// `irq`, `threads` or `cpufreq`.
    pub command: &'static str,
    /// The whole command line (for the restore file).
    pub argv: Vec<String>,
    /// The root the files are under.
    pub root: PathBuf,
    /// The changes, in the order to make them.
    pub changes: Vec<Change>,
    /// `--apply`.
    pub apply: bool,
    /// `--save FILE`.
    pub save: Option<PathBuf>,
    /// Errors to report and go on after, rather than undo everything for (an IRQ the kernel
    /// does not let move).
    pub skip: fn(&Error) -> bool,
    /// What a skipped change is called (`not movable`).
    pub skipped_as: &'static str,
}

/// Prints, and with `--apply` makes and saves, the planned changes; returns the exit status.
pub fn run(request: &Request) -> ExitCode {
    let program = format!("rtlat {}", request.command);
    if request.changes.is_empty() {
        outln!("# nothing to change");
        return exit_status::code(OK);
    }
    let preflight = preflight(&request.root, &request.changes);
    if !request.apply {
        for change in &request.changes {
            outln!("{}", change.describe(&request.root));
        }
        if let Err(e) = preflight {
            errln!("{program}: note: --apply will fail as you are now: {e}");
        }
        let n = request.changes.len();
        outln!(
            "# dry run: nothing changed; add --apply to make {}",
            count(n, "this change", "these", "changes")
        );
        return exit_status::code(OK);
    }
    let refuse = |message: String| {
        errln!("{program}: {message}");
        exit_status::code(BAD_INPUT)
    };
    if let Err(e) = preflight {
        return refuse(format!("{e}; nothing was changed"));
    }
    let save = match save_path(request.save.as_deref(), request.command) {
        Ok(path) => path,
        Err(message) => return refuse(message),
    };
    let mut record = RestoreFile::new(
        request.command,
        &request.argv,
        &request.root,
        request.changes.clone(),
    );
    if let Err(e) = write_atomically(&save, record.to_json().as_bytes()) {
        return refuse(format!(
            "cannot write the restore file {}: {e}; nothing was changed",
            save.display()
        ));
    }

    let skip = request.skip;
    let outcome =
        rtlat_system::tune::transaction::apply(&request.root, &request.changes, |_, e| skip(e));
    let (done, code) = match outcome {
        Ok(applied) => {
            for change in &applied.done {
                outln!("{}", change.describe(&request.root));
            }
            for (change, error) in &applied.skipped {
                outln!(
                    "# {} ({}, left at {}): {error}",
                    change.target_text(&request.root),
                    request.skipped_as,
                    change.old
                );
            }
            (applied.done, OK)
        }
        Err(failed) => {
            errln!(
                "{program}: {}: {}",
                failed.change.target_text(&request.root),
                failed.error
            );
            if failed.not_undone.is_empty() {
                let _ = std::fs::remove_file(&save);
                let undone = if failed.undone.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({} made before it undone)",
                        count(failed.undone.len(), "the change", "the", "changes")
                    )
                };
                errln!("{program}: nothing was changed{undone}");
                return exit_status::code(failed_status(&failed));
            }
            for (change, error) in &failed.not_undone {
                errln!(
                    "{program}: still in effect: {}: could not undo it: {error}",
                    change.describe(&request.root)
                );
            }
            let left: Vec<Change> = failed
                .not_undone
                .iter()
                .rev()
                .map(|(c, _)| c.clone())
                .collect();
            (left, failed_status(&failed))
        }
    };
    record.applied = true;
    record.changes = done;
    if record.changes.is_empty() {
        let _ = std::fs::remove_file(&save);
        outln!("# nothing was changed");
        return exit_status::code(code);
    }
    match write_atomically(&save, record.to_json().as_bytes()) {
        Ok(()) => outln!(
            "# saved to {}: undo with `{program} --restore {}`",
            save.display(),
            save.display()
        ),
        Err(e) => errln!(
            "{program}: warning: cannot rewrite the restore file {}: {e}; it lists the planned changes, which undo these too",
            save.display()
        ),
    }
    exit_status::code(code)
}

/// The exit status of an apply that failed part-way: 2 when everything made before the
/// failure was undone (the system is as it was), 5 when some of it could not be.
fn failed_status(failed: &Failed) -> u8 {
    if failed.not_undone.is_empty() {
        BAD_INPUT
    } else {
        NOT_UNDONE
    }
}

/// Checks that every change can be made by this process, and every thread change undone,
/// before any is made.
fn preflight(root: &Path, changes: &[Change]) -> Result<(), Error> {
    for path in changes.iter().filter_map(|c| c.target.system_path()) {
        file::check_writable(root, &path)?;
    }
    permission::check_threads(&Facts::live(), changes, true)
}

/// `--save FILE`, or `./rtlat-COMMAND-restore-DATE-PID.json`; refused if it exists (it may
/// be the only record of earlier changes) or cannot be created.
fn save_path(given: Option<&Path>, command: &str) -> Result<PathBuf, String> {
    let path = match given {
        Some(path) => path.to_path_buf(),
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let date: String = utc_text(now)
                .chars()
                .filter(|c| *c != '-' && *c != ':')
                .collect();
            PathBuf::from(format!(
                "rtlat-{command}-restore-{date}-{}.json",
                std::process::id()
            ))
        }
    };
    if path.exists() {
        return Err(format!(
            "--save {}: the file exists (it may be the only record of earlier changes): restore it first, or name another file",
            path.display()
        ));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|_| std::fs::remove_file(&path))
        .map_err(|e| {
            format!(
                "--save {}: cannot create the restore file: {e}; nothing was changed",
                path.display()
            )
        })?;
    Ok(path)
}

/// `one` for 1, else `THE N MANY` (`these 9 changes`).
fn count(n: usize, one: &str, the: &str, many: &str) -> String {
    if n == 1 {
        one.to_owned()
    } else {
        format!("{the} {n} {many}")
    }
}

/// `CPU 3` or `CPUs 2-3`.
pub fn cpus_text(cpus: &rtlat_linux::cpuset::CpuSet) -> String {
    if cpus.len() == 1 {
        format!("CPU {cpus}")
    } else {
        format!("CPUs {cpus}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_system::tune::Target;

    #[test]
    fn a_failure_part_way_is_5_only_when_something_is_left() {
        let change = Change::new(Target::DefaultIrqAffinity, "f", "7");
        let error = Error::NoSuchThread { tid: 1 };
        let mut failed = Failed {
            change: change.clone(),
            error: error.clone(),
            undone: vec![change.clone()],
            not_undone: Vec::new(),
        };
        assert_eq!(failed_status(&failed), BAD_INPUT);
        failed.not_undone.push((change, error));
        assert_eq!(failed_status(&failed), NOT_UNDONE);
    }
}
