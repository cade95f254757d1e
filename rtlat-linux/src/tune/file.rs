//! Reading and writing one kernel file (`/proc/irq/N/smp_affinity_list`,
//! `…/cpufreq/scaling_governor`): what the kernel refuses is told apart from what the user
//! may not do, and a missing privilege is named.

use std::fs::OpenOptions;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::Path;

use crate::error::{Errno, Error};
use crate::facts::FactError;

/// The most bytes read from one file (kernel files here hold a word or a CPU list).
const MAX_FILE: u64 = 1 << 20;

/// The file's content without surrounding whitespace.
pub fn read_value(path: &Path) -> Result<String, Error> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_FILE).read_to_end(&mut bytes))
        .map_err(|e| Error::Fact(FactError::from_io(path, &e)))?;
    Ok(String::from_utf8_lossy(&bytes).trim().to_owned())
}

/// Writes `value` and a newline to `path` in one `write`, as `echo value > path` does. The
/// file must exist (kernel files are never created).
///
/// Errors: [`Error::WriteDenied`] when the user may not write the file (naming who may),
/// [`Error::WriteRefused`] when the kernel refused the value (`EINVAL`, `EIO`, `EBUSY`,
/// `ERANGE`, or a file the kernel made read-only for everyone), [`Error::Write`] otherwise.
pub fn write_value(path: &Path, value: &str) -> Result<(), Error> {
    let line = format!("{value}\n");
    let written = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .and_then(|mut file| file.write(line.as_bytes()));
    match written {
        Ok(n) if n == line.len() => Ok(()),
        Ok(_) => Err(Error::Write {
            path: path.to_path_buf(),
            errno: Errno::EIO,
        }),
        Err(e) => Err(write_error(path, value, &e)),
    }
}

/// Checks, without writing, that `path` can be opened for writing: the privilege check made
/// before anything is changed.
pub fn check_writable(path: &Path) -> Result<(), Error> {
    OpenOptions::new()
        .write(true)
        .open(path)
        .map(drop)
        .map_err(|e| write_error(path, "", &e))
}

/// Whether the kernel made `path` read-only for everyone (no write bit at all): e.g. the
/// `smp_affinity_list` of an IRQ whose affinity the kernel manages, which nobody can move.
pub fn is_read_only(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o222 == 0)
}

fn write_error(path: &Path, value: &str, err: &std::io::Error) -> Error {
    let errno = Errno::from_io(err);
    let path_buf = path.to_path_buf();
    match errno.raw() {
        libc::EACCES | libc::EPERM if is_read_only(path) => Error::WriteRefused {
            path: path_buf,
            value: value.to_owned(),
            errno,
        },
        libc::EACCES | libc::EPERM => Error::WriteDenied {
            privilege: privilege(path),
            path: path_buf,
            errno,
        },
        libc::EINVAL | libc::EIO | libc::EBUSY | libc::ERANGE | libc::EOPNOTSUPP => {
            Error::WriteRefused {
                path: path_buf,
                value: value.to_owned(),
                errno,
            }
        }
        _ => Error::Write {
            path: path_buf,
            errno,
        },
    }
}

/// Who may write `path`, from its owner and mode.
fn privilege(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(meta) if meta.uid() == 0 => format!(
            "root (the file is root's, mode {:o}; CAP_DAC_OVERRIDE also does)",
            meta.permissions().mode() & 0o7777
        ),
        Ok(meta) => format!(
            "its owner (uid {}) or root (mode {:o})",
            meta.uid(),
            meta.permissions().mode() & 0o7777
        ),
        Err(_) => "root".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_the_content_and_errors_are_told_apart() {
        let dir = std::env::temp_dir().join(format!("rtlat-tune-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("smp_affinity_list");
        std::fs::write(&file, "0-3\n").unwrap();
        assert_eq!(read_value(&file).unwrap(), "0-3");
        write_value(&file, "3").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "3\n");
        check_writable(&file).unwrap();
        assert!(!is_read_only(&file));

        let missing = dir.join("missing");
        assert!(matches!(
            write_value(&missing, "1"),
            Err(Error::Write { .. })
        ));
        assert!(matches!(read_value(&missing), Err(Error::Fact(e)) if e.is_absent()));

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert!(is_read_only(&file));
        if crate::sys::geteuid() != 0 {
            assert!(matches!(
                write_value(&file, "1"),
                Err(Error::WriteRefused { .. })
            ));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn privilege_names_root_for_root_files() {
        let text = privilege(Path::new("/proc/sys/kernel/hostname"));
        assert!(
            text.starts_with("root (the file is root's, mode 644"),
            "{text}"
        );
    }
}
