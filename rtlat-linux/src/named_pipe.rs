//! Named pipes (FIFOs), for cyclictest's `-F PATH`: the statistics served to whoever opens
//! the pipe for reading.

use std::ffi::CString;
use std::fs::File;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use crate::errno::Errno;
use crate::sys;

/// Creates the named pipe `path` with mode `mode` (less the umask). Fails with `EEXIST` if
/// anything is there (nothing is replaced).
pub fn create_fifo(path: &Path, mode: u32) -> Result<(), Errno> {
    let path =
        CString::new(path.as_os_str().as_bytes()).map_err(|_| Errno::from_raw(libc::EINVAL))?;
    sys::mkfifo(&path, mode as libc::mode_t)
}

/// Opens the named pipe `path` for writing if a reader has it open: `Ok(None)` when nobody
/// reads it (`ENXIO`), never waiting. A link at `path` is not followed (`ELOOP`).
pub fn open_for_reader(path: &Path) -> Result<Option<File>, Errno> {
    let opened = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path);
    match opened {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Ok(None),
        Err(e) => Err(Errno::from_raw(e.raw_os_error().unwrap_or(libc::EIO))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    #[test]
    fn serves_a_reader_and_waits_for_none() {
        let dir = std::env::temp_dir().join(format!("rtlat-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("stats");
        create_fifo(&path, 0o666).unwrap();
        assert_eq!(
            create_fifo(&path, 0o666),
            Err(Errno::from_raw(libc::EEXIST))
        );
        assert!(open_for_reader(&path).unwrap().is_none(), "no reader yet");
        let reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .unwrap();
        let mut writer = open_for_reader(&path).unwrap().expect("a reader");
        std::io::Write::write_all(&mut writer, b"T: 0\n").unwrap();
        drop(writer);
        let mut text = String::new();
        let mut reader = reader;
        reader.read_to_string(&mut text).unwrap();
        assert_eq!(text, "T: 0\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
