//! [`FactError`], the error of every fact, and [`Malformed`], what a text parser did not accept.

use std::path::{Path, PathBuf};

use rtlat_linux::Errno;
use rtlat_linux::cpuset::CpuListError;
use rtlat_linux::privileges::{access_hint, is_root};

/// The longest piece of a file quoted in a [`Malformed`] message.
const MAX_QUOTE: usize = 120;

/// What a kernel file held that its parser did not accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, found {found:?}")]
pub struct Malformed {
    /// What the parser expected, in words.
    pub expected: &'static str,
    /// The offending text (cut after 120 characters).
    pub found: String,
}

impl Malformed {
    /// `found` did not match `expected`.
    pub fn new(expected: &'static str, found: &str) -> Self {
        let found = match found.char_indices().nth(MAX_QUOTE) {
            Some((cut, _)) => format!("{}…", &found[..cut]),
            None => found.to_owned(),
        };
        Malformed { expected, found }
    }
}

/// Why a fact could not be read.
///
/// A file that does not exist is [`FactError::Absent`], distinct from every other failure:
/// many files exist only on some kernels or configurations (`/sys/kernel/realtime` only on
/// PREEMPT_RT, `cpufreq/` not on most VMs). [`FactResultExt::optional`] turns it into `None`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FactError {
    /// The file or directory does not exist (or the process it belonged to has exited).
    #[error(
        "{} does not exist: this kernel or its configuration does not provide it (or the root path is wrong)",
        path.display()
    )]
    Absent {
        /// The path, under the root.
        path: PathBuf,
    },
    /// The file exists but cannot be read.
    #[error(
        "cannot read {}: {errno}{}",
        path.display(),
        access_hint(*errno, is_root(), "some /proc and /sys files are root-only")
    )]
    Unreadable {
        /// The path, under the root.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// The file's content is not in the kernel's format.
    #[error(
        "{} is malformed: {source}; check that the root path holds a Linux system's /proc and /sys (if it does, please report this kernel's format)",
        path.display()
    )]
    Malformed {
        /// The path, under the root.
        path: PathBuf,
        /// What was wrong.
        source: Malformed,
    },
    /// The file does not hold a CPU list.
    #[error("{} does not hold a CPU list: {source}", path.display())]
    CpuList {
        /// The path, under the root.
        path: PathBuf,
        /// What was wrong with the list.
        source: CpuListError,
    },
    /// A name asked for (e.g. of a sysctl) cannot name a file under the root.
    #[error(
        "`{name}` is not a valid {kind} name: use names like kernel.sched_rt_runtime_us or kernel/sched_rt_runtime_us"
    )]
    InvalidName {
        /// What kind of name (e.g. "sysctl").
        kind: &'static str,
        /// The name given.
        name: String,
    },
}

impl FactError {
    /// Whether the file does not exist.
    pub fn is_absent(&self) -> bool {
        matches!(self, FactError::Absent { .. })
    }

    /// The OS error behind this error: `ENOENT` when absent, the read's error when
    /// unreadable, `None` for content errors.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            FactError::Absent { .. } => Some(Errno::ENOENT),
            FactError::Unreadable { errno, .. } => Some(*errno),
            _ => None,
        }
    }

    /// The file involved, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            FactError::Absent { path }
            | FactError::Unreadable { path, .. }
            | FactError::Malformed { path, .. }
            | FactError::CpuList { path, .. } => Some(path),
            FactError::InvalidName { .. } => None,
        }
    }

    /// The I/O error of reading `path`: absent for "no such file", "not a directory" and "no
    /// such process" (a `/proc/PID` entry of a process that exited while being read).
    pub(crate) fn from_io(path: &Path, err: &std::io::Error) -> FactError {
        let errno = Errno::from_io(err);
        let path = path.to_path_buf();
        match errno.raw() {
            libc::ENOENT | libc::ENOTDIR | libc::ESRCH => FactError::Absent { path },
            _ => FactError::Unreadable { path, errno },
        }
    }

    /// `source` was found in the file at `path`.
    pub(crate) fn malformed(path: &Path, source: Malformed) -> FactError {
        FactError::Malformed {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Turns an absent file into `Ok(None)`, for facts that are optional.
pub trait FactResultExt<T> {
    /// `Ok(Some(value))`, `Ok(None)` for [`FactError::Absent`], or the other error.
    fn optional(self) -> Result<Option<T>, FactError>;
}

impl<T> FactResultExt<T> for Result<T, FactError> {
    fn optional(self) -> Result<Option<T>, FactError> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(e) if e.is_absent() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quotes_are_cut() {
        let long = "x".repeat(500);
        let m = Malformed::new("a number", &long);
        assert_eq!(m.found.chars().count(), MAX_QUOTE + 1);
        assert!(m.found.ends_with('…'));
        assert_eq!(Malformed::new("a number", "ab").found, "ab");
        let m = Malformed::new("a number", &"é".repeat(200));
        assert!(m.found.ends_with('…'));
    }

    #[test]
    fn io_errors_map_to_absent_or_unreadable() {
        let p = Path::new("/x");
        let absent = FactError::from_io(p, &std::io::Error::from_raw_os_error(libc::ENOENT));
        assert!(absent.is_absent());
        assert!(FactError::from_io(p, &std::io::Error::from_raw_os_error(libc::ESRCH)).is_absent());
        let denied = FactError::from_io(p, &std::io::Error::from_raw_os_error(libc::EACCES));
        assert!(!denied.is_absent());
        // "run as root" is said to a user who is not root, never to root.
        assert_eq!(
            denied.to_string().contains("run as root"),
            !is_root(),
            "{denied}"
        );
        let invalid = FactError::from_io(p, &std::io::Error::from_raw_os_error(libc::EINVAL));
        assert!(!invalid.to_string().contains("root"), "{invalid}");
        assert_eq!(denied.path(), Some(p));
        assert_eq!(denied.errno(), Some(Errno::EACCES));
        assert_eq!(absent.errno(), Some(Errno::ENOENT));
        let r: Result<u8, FactError> = Err(absent);
        assert_eq!(r.optional(), Ok(None));
        let r: Result<u8, FactError> = Err(denied.clone());
        assert_eq!(r.optional(), Err(denied));
        assert_eq!(Ok::<u8, FactError>(3).optional(), Ok(Some(3)));
    }
}
