//! cyclictest's `-F/--fifo PATH`: a named pipe at PATH that hands out the current statistics
//! (one `T:` line per thread, as the summary prints them) to each reader that opens it while
//! the run runs; removed at the end.
//!
//! Where rtlat differs: cyclictest deletes whatever is at PATH first (a regular file too);
//! rtlat uses a named pipe already there as it is (and leaves it), and refuses anything else
//! before the run.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rtlat_linux::named_pipe::{create_fifo, open_for_reader};

/// How long the server waits before looking for a reader again (cyclictest: 500 ms; shorter
/// here so that the end of the run is never waited for).
const POLL: Duration = Duration::from_millis(10);
/// The pause after serving a reader (cyclictest's 250 µs), so that one reader is served once.
const AFTER_SERVING: Duration = Duration::from_micros(250);

/// Checks, before the run, that PATH can be the pipe: absent (in a writable folder, as an
/// output is checked) or a named pipe already. The error says what is there.
pub fn check(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()) => Ok(()),
        Ok(meta) => Err(format!(
            "cannot make the named pipe '{}': a {} is there (cyclictest would delete it); remove it or choose another path",
            path.display(),
            if meta.is_dir() {
                "folder"
            } else if meta.file_type().is_symlink() {
                "symbolic link"
            } else {
                "file"
            }
        )),
        Err(_) => rtlat::output::check(path)
            .map_err(|e| format!("cannot make the named pipe '{}': {e}", path.display())),
    }
}

/// The pipe of a run; removed when dropped if the run made it.
pub struct StatsFifo {
    path: PathBuf,
    made: bool,
}

impl StatsFifo {
    /// Makes the pipe (mode 0666 less the umask, as cyclictest), or takes the one at `path`.
    pub fn create(path: &Path) -> Result<StatsFifo, String> {
        let named = |reason: String| format!("-F/--fifo: {reason}");
        check(path).map_err(named)?;
        let made = match create_fifo(path, 0o666) {
            Ok(()) => true,
            Err(e) if e == rtlat_linux::Errno::from_raw(libc::EEXIST) => {
                check(path).map_err(named)?;
                false
            }
            Err(e) => {
                return Err(named(format!(
                    "cannot make the named pipe '{}': {e}",
                    path.display()
                )));
            }
        };
        Ok(StatsFifo {
            path: path.to_owned(),
            made,
        })
    }

    /// Serves each reader `lines()` until `done()`.
    pub fn serve(&self, done: impl Fn() -> bool, lines: impl Fn() -> String) {
        while !done() {
            match open_for_reader(&self.path) {
                Ok(Some(mut reader)) => {
                    let _ = reader.write_all(lines().as_bytes());
                    drop(reader);
                    std::thread::sleep(AFTER_SERVING);
                }
                Ok(None) | Err(_) => std::thread::sleep(POLL),
            }
        }
    }
}

impl Drop for StatsFifo {
    fn drop(&mut self) {
        if self.made {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
