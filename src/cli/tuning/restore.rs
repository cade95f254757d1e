//! `rtlat irq|threads|cpufreq --restore FILE`: undo what a restore file records, after
//! checking that the file is this command's and that everything it names still exists.

use std::path::Path;
use std::process::ExitCode;

use rtlat_linux::tune::RestoreFile;

/// Restores `path` for `command`; returns the exit status (2 refused, nothing written; 1 some
/// settings could not be restored; 0 all restored).
pub fn restore(command: &str, path: &Path) -> ExitCode {
    let program = format!("rtlat {command}");
    let refuse = |message: String| {
        eprintln!("{program}: --restore {message}");
        ExitCode::from(2)
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
    if let Err(e) = file.check(path) {
        return refuse(e.to_string());
    }
    if file.changes.is_empty() {
        println!("# nothing to restore");
        return ExitCode::SUCCESS;
    }
    let mut failures = 0;
    for restored in file.restore() {
        match restored.result {
            Ok(()) => println!("{}", restored.change.describe(&file.root)),
            Err(e) => {
                failures += 1;
                eprintln!(
                    "{program}: could not restore {}: {e}",
                    restored.change.describe(&file.root)
                );
            }
        }
    }
    if failures == 0 {
        println!("# restored everything {} recorded", path.display());
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
