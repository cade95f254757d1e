//! `rtlat irq|threads|cpufreq [--root DIR] --restore FILE`: undo what a restore file records,
//! after checking the whole file against this machine, this boot and this user's privileges
//! (see `rtlat_system::tune::restore`): a file that fails any check is refused before anything
//! is written.

use std::path::Path;
use std::process::ExitCode;

use rtlat::exit_status::{self, BAD_INPUT, NOT_UNDONE, OK};
use rtlat_system::tune::{RestoreFile, Undone};

/// Restores `path` for `command` under `root`; returns the exit status (2 refused, nothing
/// written; 5 some settings could not be restored, stderr names them; 0 all restored, but
/// those of threads that are gone, which are listed: their settings ended with them).
pub fn restore(command: &str, path: &Path, root: &Path) -> ExitCode {
    let program = format!("rtlat {command}");
    let refuse = |message: String| {
        errln!("{program}: --restore {message}; nothing was changed");
        exit_status::code(BAD_INPUT)
    };
    let file = match RestoreFile::read(path) {
        Ok(file) => file,
        Err(e) => return refuse(e.to_string()),
    };
    if file.command != command {
        return refuse(format!(
            "{}: saved by `rtlat {}`: restore it with `rtlat {} --restore {}`",
            path.display(),
            file.command,
            file.command,
            path.display()
        ));
    }
    if let Err(e) = file.check(path, root) {
        return refuse(e.to_string());
    }
    if file.changes.is_empty() {
        outln!("# nothing to restore");
        return exit_status::code(OK);
    }
    let mut failures = 0;
    let mut gone = 0;
    for restored in file.restore() {
        match restored.result {
            Ok(Undone::Set) => outln!("{}", restored.change.describe(root)),
            Ok(Undone::ThreadGone) => {
                gone += 1;
                outln!(
                    "# {}: gone, nothing to restore (the thread has ended, and its settings with it)",
                    restored.change.target_text(root)
                );
            }
            Err(e) => {
                failures += 1;
                errln!(
                    "{program}: could not restore {}: {e}",
                    restored.change.describe(root)
                );
            }
        }
    }
    let total = file.changes.len();
    if failures > 0 {
        errln!(
            "{program}: {failures} of {total} settings were not restored (listed above); the others were"
        );
        return exit_status::code(NOT_UNDONE);
    }
    if gone == total {
        outln!(
            "# nothing restored: every thread {} recorded is gone",
            path.display()
        );
    } else if gone > 0 {
        outln!(
            "# restored everything {} recorded but the {gone} settings of threads that are gone",
            path.display()
        );
    } else {
        outln!("# restored everything {} recorded", path.display());
    }
    exit_status::code(OK)
}
