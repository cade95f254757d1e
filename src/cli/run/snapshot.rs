//! cyclictest's running-status file: `/dev/shm/cyclictest<pid>`, which SIGUSR2 fills with
//! the status block (the one SIGUSR1 prints on stderr) and which rt-tests'
//! `get_cyclictest_snapshot` finds by that name, signals and prints. `rtlat run` keeps it
//! too, under the same name, so the tool works with both.
//!
//! As cyclictest: created before the measurement starts, 30 NUL bytes long until the first
//! SIGUSR2, mode 0666 less the umask, removed at the end of the run. A file of that name left
//! by a process of the same id that was killed is removed first. Unlike cyclictest, each
//! snapshot replaces the previous one from the file's first byte (cyclictest keeps writing
//! at the end of the previous one, so from the second snapshot on its file starts with NUL
//! bytes).

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The file's length until the first snapshot (cyclictest sizes it with the constant
/// `_SC_PAGE_SIZE`, 30, where the page size was meant).
pub const INITIAL_LEN: u64 = 30;

/// The open status file; removed when dropped.
#[derive(Debug)]
pub struct SnapshotFile {
    file: File,
    path: PathBuf,
}

impl SnapshotFile {
    /// Creates `/dev/shm/cyclictest<pid>` for this process.
    pub fn create() -> io::Result<SnapshotFile> {
        SnapshotFile::create_in(Path::new("/dev/shm"), std::process::id())
    }

    /// Creates `dir/cyclictest<pid>`: a stale file (or symlink) of that name is removed, then
    /// the file is created exclusively (`O_EXCL`: never opened through a symlink, never an
    /// existing file, so one planted between the two steps makes this fail instead) and
    /// sized to [`INITIAL_LEN`] NUL bytes. In `/dev/shm` (sticky) nobody else can remove or
    /// replace it afterwards.
    pub fn create_in(dir: &Path, pid: u32) -> io::Result<SnapshotFile> {
        let path = dir.join(format!("cyclictest{pid}"));
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o666)
            .custom_flags(libc::O_CLOEXEC)
            .open(&path)?;
        // From here on the file is ours: dropping `snapshot` removes it, whatever fails next.
        let snapshot = SnapshotFile { file, path };
        snapshot.file.set_len(INITIAL_LEN)?;
        Ok(snapshot)
    }

    /// Replaces the file's content with `block` (truncated, then written from its first byte
    /// through the descriptor opened at creation).
    pub fn write(&self, block: &str) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.write_all_at(block.as_bytes(), 0)
    }
}

impl Drop for SnapshotFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rtlat-snapshot-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn starts_as_cyclictest_s_file_and_is_removed_at_the_end() {
        let dir = temp_dir("life");
        let snapshot = SnapshotFile::create_in(&dir, 4242).unwrap();
        let path = dir.join("cyclictest4242");
        assert_eq!(std::fs::read(&path).unwrap(), vec![0u8; 30]);
        snapshot.write("#---\nfirst, longer\n").unwrap();
        snapshot.write("#---\nsecond\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "#---\nsecond\n");
        drop(snapshot);
        assert!(!path.exists(), "removed when the run ends");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stale_file_or_symlink_is_replaced_never_followed() {
        let dir = temp_dir("stale");
        let target = dir.join("target");
        std::fs::write(&target, "keep me").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("cyclictest7")).unwrap();
        let snapshot = SnapshotFile::create_in(&dir, 7).unwrap();
        snapshot.write("status\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        assert!(!dir.join("cyclictest7").is_symlink());
        drop(snapshot);
        // A directory of that name cannot be removed as a file: no snapshot file, no harm.
        std::fs::create_dir(dir.join("cyclictest8")).unwrap();
        assert!(SnapshotFile::create_in(&dir, 8).is_err());
        assert!(dir.join("cyclictest8").is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
