//! The binaries under test: rtlat, rtlat under another name (`cyclictest`, `latency`), the
//! real cyclictest, and placing rtlat in a folder of its own.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use super::TempDir;

/// The `rtlat` binary under test.
pub fn rtlat() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rtlat"))
}

/// Measurement runs share two CPUs: one at a time inside a test binary, so that tests do not
/// disturb each other's timing (and SCHED_FIFO threads of parallel tests do not pile up).
pub fn measuring() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// rtlat under the name `cyclictest`: a symlink in a folder of its own.
pub struct Alias {
    dir: TempDir,
}

impl Alias {
    /// Makes the symlink.
    pub fn new() -> Alias {
        let dir = TempDir::new("alias");
        std::os::unix::fs::symlink(rtlat(), dir.join("cyclictest"))
            .expect("symlink rtlat as cyclictest");
        Alias { dir }
    }

    /// The path of the symlink (its file name is `cyclictest`).
    pub fn path(&self) -> PathBuf {
        self.dir.join("cyclictest")
    }
}

/// The real cyclictest (rt-tests). Panics with the install command if it is missing: the
/// comparison tests must fail, not pass silently, on a machine without it.
pub fn real_cyclictest() -> PathBuf {
    let ours = std::fs::canonicalize(rtlat()).ok();
    let mut candidates = vec![PathBuf::from("/usr/bin/cyclictest")];
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("cyclictest")));
    }
    for c in candidates {
        if c.is_file() && std::fs::canonicalize(&c).ok() != ours {
            return c;
        }
    }
    panic!(
        "the real cyclictest is not installed, so rtlat cannot be compared with it: \
         run `apt-get install rt-tests` (Debian/Ubuntu) and run the tests again"
    );
}

/// Puts the rtlat binary at `to` (another name, or a folder of its own): a hard link where the
/// file system allows one, else a copy. A link is never open for writing, so no child that
/// another test thread forks in the meantime can hold it open and make executing it fail
/// with ETXTBSY ("Text file busy"), as a fresh copy can.
pub fn place_rtlat(to: &Path) {
    place(&rtlat(), to);
}

/// Puts `rtlat-tools`, which `rtlat` execs for audit, threads, irq, cpufreq and compare, in
/// the folder `dir` (beside an rtlat placed there), as [`place_rtlat`] places rtlat.
pub fn place_rtlat_tools(dir: &Path) {
    place(
        &rtlat().with_file_name("rtlat-tools"),
        &dir.join("rtlat-tools"),
    );
}

/// `from` at `to`: a hard link where the file system allows one, else a copy.
fn place(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).unwrap();
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
