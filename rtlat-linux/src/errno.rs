//! The leaf of every error of the crate: [`Errno`], an OS error number, and [`OsError`], a
//! named call that failed with one.
//!
//! Each area has its own small error type next to the calls that make it (the clock's
//! [`ClockError`](crate::ClockError), the sleep's [`SleepError`](crate::SleepError), thread
//! set-up's [`ThreadError`](crate::ThreadError), …): this module imports none of them.

use core::fmt;

/// An OS error number (`errno`), printed with the system's description.
///
/// The same number as [`nix::errno::Errno`], the error of every nix call the crate makes
/// (`?` converts it, [`Errno::nix`] converts back), printed as users of rtlat read it: the
/// system's text and the number ("Operation not permitted (os error 1)", as
/// `std::io::Error` prints it), where nix's prints its symbolic name first ("EPERM:
/// Operation not permitted").
///
/// It holds the number itself rather than nix's enum: a number nix does not name keeps its
/// value (nix's `from_raw` makes it `UnknownErrno`), and the sleep of every measurement cycle
/// returns it without a conversion (wrapping nix's enum cost two more instructions per
/// cycle there: its niche and its `from_raw` match are on the success path's result).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(i32);

impl Errno {
    /// Interrupted system call.
    pub const EINTR: Errno = Errno(libc::EINTR);
    /// Try again (also: no signal pending).
    pub const EAGAIN: Errno = Errno(libc::EAGAIN);
    /// Invalid argument.
    pub const EINVAL: Errno = Errno(libc::EINVAL);
    /// Operation not permitted.
    pub const EPERM: Errno = Errno(libc::EPERM);
    /// Permission denied.
    pub const EACCES: Errno = Errno(libc::EACCES);
    /// No such file or directory.
    pub const ENOENT: Errno = Errno(libc::ENOENT);
    /// Out of memory (also: `mlockall` over `RLIMIT_MEMLOCK`).
    pub const ENOMEM: Errno = Errno(libc::ENOMEM);
    /// Input/output error (also used here for a short read or write).
    pub const EIO: Errno = Errno(libc::EIO);

    /// The error number `raw`.
    pub const fn from_raw(raw: i32) -> Self {
        Errno(raw)
    }

    /// The raw error number.
    pub const fn raw(self) -> i32 {
        self.0
    }

    /// The error number of an I/O error (`EIO` when it has none, e.g. a short write).
    pub fn from_io(err: &std::io::Error) -> Self {
        Errno::from_raw(err.raw_os_error().unwrap_or(libc::EIO))
    }

    /// The same error as nix's type (`UnknownErrno` for a number nix does not name).
    pub const fn nix(self) -> nix::errno::Errno {
        nix::errno::Errno::from_raw(self.0)
    }
}

impl From<nix::errno::Errno> for Errno {
    #[inline]
    fn from(errno: nix::errno::Errno) -> Self {
        Errno(errno as i32)
    }
}

impl From<Errno> for nix::errno::Errno {
    fn from(errno: Errno) -> Self {
        errno.nix()
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Errno({})", self.raw())
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // e.g. "Operation not permitted (os error 1)"
        fmt::Display::fmt(&std::io::Error::from_raw_os_error(self.raw()), f)
    }
}

impl std::error::Error for Errno {}

impl From<Errno> for std::io::Error {
    fn from(errno: Errno) -> Self {
        std::io::Error::from_raw_os_error(errno.raw())
    }
}

/// A system call that failed for a reason with no advice of its own (`getrusage`,
/// `pthread_getattr_np`, `capget`, …): the call's name and its [`Errno`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed: {errno}")]
pub struct OsError {
    /// The failing call.
    pub call: &'static str,
    /// The OS error.
    pub errno: Errno,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_error_names_the_call() {
        let e = OsError {
            call: "getrusage",
            errno: Errno::EINVAL,
        };
        assert!(e.to_string().starts_with("getrusage failed: "), "{e}");
        assert!(e.to_string().ends_with("(os error 22)"), "{e}");
    }

    #[test]
    fn errno_round_trips_to_io_error() {
        let io: std::io::Error = Errno::EACCES.into();
        assert_eq!(io.raw_os_error(), Some(libc::EACCES));
        assert_eq!(Errno::from_io(&io), Errno::EACCES);
        let short = std::io::Error::from(std::io::ErrorKind::WriteZero);
        assert_eq!(Errno::from_io(&short), Errno::EIO);
        assert_eq!(format!("{:?}", Errno::EPERM), "Errno(1)");
    }

    #[test]
    fn errno_is_nix_errno_printed_as_io_error() {
        let nix = nix::errno::Errno::EPERM;
        let ours = Errno::from(nix);
        assert_eq!(ours, Errno::EPERM);
        assert_eq!(ours.raw(), libc::EPERM);
        assert_eq!(ours.nix(), nix);
        assert_eq!(Errno::from_raw(libc::ESRCH).nix(), nix::errno::Errno::ESRCH);
        assert_eq!(ours.to_string(), "Operation not permitted (os error 1)");
    }
}
