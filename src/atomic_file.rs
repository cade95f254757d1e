//! Files written atomically: the names the tuning commands and older callers use for
//! [`crate::output`], which replaces a regular file through an exclusive temporary file in the
//! same folder (owner and mode kept) and writes a device or FIFO as it is. A run killed at any
//! moment leaves the old file or the new one, never a truncated one.

use std::fs::File;
use std::io;
use std::path::Path;

use crate::output;

/// Writes `contents` to `path` (see [`crate::output`]).
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    output::write(path, contents)
}

/// Writes to `path` what `write` writes into the (buffered) file it is given, so a large
/// text is streamed, never held whole in memory (see [`crate::output`]).
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    output::write_with(path, write)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write as _;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("rtlat-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let target = dir.join("out.json");
        fs::write(&target, b"old").unwrap();
        write_atomically(&target, b"new contents").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new contents");
        write_atomically_with(&target, |file| file.write_all(b"streamed")).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"streamed");
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
        assert!(write_atomically(Path::new("/proc/version"), b"x").is_err());
    }
}
