//! Captured machine trees (system facts read from a root other than `/`).

use super::{TempDir, copy_dir};

/// The constructed hp-t630 machine tree (rtlat-system/tests/data/hp-t630).
pub fn hp_t630_tree() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rtlat-system/tests/data/hp-t630")
}

/// A temporary folder holding a writable copy of the hp-t630 tree in `root/`.
pub fn copy_of_hp_t630(tag: &str) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new(tag);
    let root = dir.join("root");
    copy_dir(&hp_t630_tree(), &root);
    (dir, root)
}
