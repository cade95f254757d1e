//! Files written atomically: a temporary file in the same folder, flushed to disk, renamed
//! over the target. A run killed at any moment leaves the old file or the new one, never a
//! truncated one.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `contents` to `path` atomically.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |file| file.write_all(contents))
}

/// Writes to `path` atomically what `write` writes into the (buffered) temporary file, so a
/// large text is streamed, never held whole in memory.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let temporary = temporary_path(path);
    let result = (|| {
        let mut file = io::BufWriter::new(File::create(&temporary)?);
        write(&mut file)?;
        let file = file.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        // Make the rename itself durable.
        if let Ok(dir) = File::open(folder(path)) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    folder(path).join(format!(".{name}.rtlat-{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("rtlat-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("out.json");
        fs::write(&target, b"old").unwrap();
        write_atomically(&target, b"new contents").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new contents");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "only the target remains: {names:?}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unwritable_places_are_reported() {
        assert!(write_atomically(Path::new("/nonexistent-rtlat-dir/x.json"), b"x").is_err());
    }
}
