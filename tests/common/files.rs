//! Temporary folders and comparing or copying folder trees.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh folder under the system's temporary folder, removed on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `rtlat-it-<tag>-<pid>-<n>`.
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("rtlat-it-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temporary folder");
        TempDir { path }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A path inside the folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The names in the folder, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .expect("read the temporary folder")
            .map(|e| {
                e.expect("folder entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Copies the folder `from` into `to`, recursively.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Whether every file under `a` has the same contents under `b`.
pub fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    std::fs::read_dir(a).unwrap().all(|entry| {
        let entry = entry.unwrap();
        let other = b.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            same_dir(&entry.path(), &other)
        } else {
            std::fs::read(entry.path()).ok() == std::fs::read(&other).ok()
        }
    })
}
