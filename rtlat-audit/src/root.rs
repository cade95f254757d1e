//! The root the machine is read under: `/` for the live system, or a tree captured from one.

use std::path::Path;

use crate::error::RootError;

/// Checks that `root` can be audited: a directory holding `proc/` or `sys/`.
pub fn check_root(root: &Path) -> Result<(), RootError> {
    let root_buf = || root.to_path_buf();
    match std::fs::metadata(root) {
        Err(error) => Err(RootError::Unreadable {
            root: root_buf(),
            error,
        }),
        Ok(meta) if !meta.is_dir() => Err(RootError::NotADirectory { root: root_buf() }),
        Ok(_) if !root.join("proc").is_dir() && !root.join("sys").is_dir() => {
            Err(RootError::NoSystem { root: root_buf() })
        }
        Ok(_) => Ok(()),
    }
}
