//! `/dev/cpu_dma_latency`: a PM QoS request capping the CPU idle states' exit latency, held
//! by [`DmaLatencyGuard`] for the length of a run.
//!
//! The kernel keeps a request per open file: writing a 4-byte native-endian `i32` (in µs) sets
//! it, closing the file drops it. The device reads back the value in force for the system
//! (the smallest request of all holders) as the same 4 bytes. Deep C-states take tens to
//! hundreds of µs to leave; a request of 0 keeps the CPUs in the shallowest state (C0/poll).

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::errno::Errno;

/// Requesting or reading a CPU wake-up latency at `/dev/cpu_dma_latency` failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DmaLatencyError {
    /// `/dev/cpu_dma_latency` does not exist.
    #[error("{}: no such file; this kernel has no PM QoS CPU latency device, run without the cpu_dma_latency request", path.display())]
    Missing {
        /// The device path.
        path: PathBuf,
    },
    /// `/dev/cpu_dma_latency` cannot be opened for writing.
    #[error("cannot open {}: {errno}; run as root, or run without the cpu_dma_latency request", path.display())]
    Denied {
        /// The device path.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A negative cpu_dma_latency value.
    #[error("cpu_dma_latency value {0} µs is negative: use 0 or more")]
    Invalid(i32),
    /// Reading or writing `/dev/cpu_dma_latency` failed after it was opened.
    #[error("{call} {} failed: {errno}", path.display())]
    Io {
        /// `read` or `write`.
        call: &'static str,
        /// The device path.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// The device returned something that is not a latency value.
    #[error("{} returned {got:?}, not a latency value", path.display())]
    Format {
        /// The device path.
        path: PathBuf,
        /// What was read.
        got: Vec<u8>,
    },
}

impl DmaLatencyError {
    /// The OS error number behind this error, if there is one.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            DmaLatencyError::Missing { .. } => Some(Errno::ENOENT),
            DmaLatencyError::Denied { errno, .. } | DmaLatencyError::Io { errno, .. } => {
                Some(*errno)
            }
            DmaLatencyError::Invalid(_) | DmaLatencyError::Format { .. } => None,
        }
    }
}

/// The device's path.
pub const DMA_LATENCY_PATH: &str = "/dev/cpu_dma_latency";

/// Holds a `/dev/cpu_dma_latency` request for as long as it lives; dropping it closes the file,
/// which withdraws the request.
#[derive(Debug)]
pub struct DmaLatencyGuard {
    file: File,
    path: PathBuf,
    value_us: i32,
}

impl DmaLatencyGuard {
    /// Requests a CPU wake-up latency of at most `value_us` µs (cyclictest's `--latency`,
    /// 0 by default) at [`DMA_LATENCY_PATH`].
    ///
    /// Errors: [`DmaLatencyError::Invalid`] for a negative value,
    /// [`DmaLatencyError::Missing`] if the kernel has no such device,
    /// [`DmaLatencyError::Denied`] if it cannot be opened (not root).
    pub fn set(value_us: i32) -> Result<Self, DmaLatencyError> {
        Self::set_at(DMA_LATENCY_PATH, value_us)
    }

    /// Like [`set`](Self::set) with the device at `path`.
    pub fn set_at(path: impl AsRef<Path>, value_us: i32) -> Result<Self, DmaLatencyError> {
        let path = path.as_ref().to_path_buf();
        if value_us < 0 {
            return Err(DmaLatencyError::Invalid(value_us));
        }
        let mut file = match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(DmaLatencyError::Missing { path });
            }
            Err(e) => {
                return Err(DmaLatencyError::Denied {
                    errno: Errno::from_io(&e),
                    path,
                });
            }
        };
        // One write of exactly 4 bytes: the kernel takes any other length as a hex string.
        match file.write(&value_us.to_ne_bytes()) {
            Ok(4) => {}
            Ok(_) => {
                return Err(DmaLatencyError::Io {
                    call: "write",
                    path,
                    errno: Errno::EIO,
                });
            }
            Err(e) => {
                return Err(DmaLatencyError::Io {
                    call: "write",
                    errno: Errno::from_io(&e),
                    path,
                });
            }
        }
        Ok(DmaLatencyGuard {
            file,
            path,
            value_us,
        })
    }

    /// The value requested, in µs.
    pub fn value_us(&self) -> i32 {
        self.value_us
    }

    /// The device's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The latency limit in force for the whole system, in µs, read through the held file:
    /// the smallest of all requests, this one included.
    pub fn current_us(&self) -> Result<i32, DmaLatencyError> {
        let mut buf = [0u8; 32];
        let n = self
            .file
            .read_at(&mut buf, 0)
            .map_err(|e| DmaLatencyError::Io {
                call: "read",
                path: self.path.clone(),
                errno: Errno::from_io(&e),
            })?;
        parse_value(&self.path, &buf[..n])
    }
}

/// The latency limit in force, in µs, read from the device at `path` (no request is made:
/// a fresh open adds none until written to).
pub fn read_dma_latency(path: impl AsRef<Path>) -> Result<i32, DmaLatencyError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        ErrorKind::NotFound => DmaLatencyError::Missing {
            path: path.to_path_buf(),
        },
        _ => DmaLatencyError::Denied {
            path: path.to_path_buf(),
            errno: Errno::from_io(&e),
        },
    })?;
    parse_value(path, &bytes)
}

/// The device's answer: 4 bytes native-endian (what Linux returns), or a decimal or `0x` hex
/// number as text (what a text-mode implementation or a captured file holds).
fn parse_value(path: &Path, bytes: &[u8]) -> Result<i32, DmaLatencyError> {
    if let Ok(raw) = <[u8; 4]>::try_from(bytes) {
        return Ok(i32::from_ne_bytes(raw));
    }
    let bad = || DmaLatencyError::Format {
        path: path.to_path_buf(),
        got: bytes.to_vec(),
    };
    let text = std::str::from_utf8(bytes).map_err(|_| bad())?.trim();
    match text.strip_prefix("0x") {
        Some(hex) => i32::from_str_radix(hex, 16),
        None => text.parse(),
    }
    .map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, Child};

    #[test]
    fn values_parse_as_binary_or_text() {
        let p = Path::new("x");
        assert_eq!(
            parse_value(p, &2_000_000_000i32.to_ne_bytes()),
            Ok(2_000_000_000)
        );
        assert_eq!(parse_value(p, &0i32.to_ne_bytes()), Ok(0));
        assert_eq!(parse_value(p, b"42\n"), Ok(42));
        assert_eq!(parse_value(p, b"0x77359400\n"), Ok(2_000_000_000));
        assert!(matches!(
            parse_value(p, b""),
            Err(DmaLatencyError::Format { .. })
        ));
        assert!(matches!(
            parse_value(p, b"12345678901234"),
            Err(DmaLatencyError::Format { .. })
        ));
    }

    /// The real device: the request is in force while the guard lives and gone after.
    #[test]
    fn guard_holds_the_value_and_releases_it() {
        let path = Path::new(DMA_LATENCY_PATH);
        if !path.exists() {
            println!(
                "NOTE: {DMA_LATENCY_PATH} does not exist on this kernel; checking the error path"
            );
            assert_eq!(
                DmaLatencyGuard::set(0).unwrap_err(),
                DmaLatencyError::Missing {
                    path: path.to_path_buf()
                }
            );
            return;
        }
        let baseline = read_dma_latency(path).unwrap();
        println!("{DMA_LATENCY_PATH} reads {baseline} µs before the test");
        if baseline <= 7 {
            println!("NOTE: another process already holds a request of {baseline} µs");
        }
        {
            let guard = DmaLatencyGuard::set(7).unwrap();
            assert_eq!(guard.value_us(), 7);
            assert_eq!(guard.current_us().unwrap(), baseline.min(7));
            assert_eq!(read_dma_latency(path).unwrap(), baseline.min(7));
            {
                // A second, stricter request wins while both are held …
                let strict = DmaLatencyGuard::set(3).unwrap();
                assert_eq!(strict.current_us().unwrap(), baseline.min(3));
            }
            // … and the first one is in force again after it is released.
            assert_eq!(guard.current_us().unwrap(), baseline.min(7));
        }
        assert_eq!(
            read_dma_latency(path).unwrap(),
            baseline,
            "request not withdrawn on drop"
        );
    }

    #[test]
    fn refusals_are_typed_errors() {
        assert_eq!(
            DmaLatencyGuard::set(-1).unwrap_err(),
            DmaLatencyError::Invalid(-1)
        );
        let missing = Path::new("/nonexistent/cpu_dma_latency");
        let err = DmaLatencyGuard::set_at(missing, 0).unwrap_err();
        assert_eq!(
            err,
            DmaLatencyError::Missing {
                path: missing.to_path_buf()
            }
        );
        assert!(err.to_string().contains("no such file"));
        assert!(matches!(
            read_dma_latency(missing),
            Err(DmaLatencyError::Missing { .. })
        ));
    }

    #[test]
    #[ignore = "child process of unprivileged_guard_is_refused"]
    fn child_dma_latency_as_nobody() {
        if !test_support::is_child() {
            return;
        }
        let path = Path::new(DMA_LATENCY_PATH);
        if !path.exists() {
            println!("NOTE: {DMA_LATENCY_PATH} does not exist on this kernel");
            assert!(matches!(
                DmaLatencyGuard::set(0),
                Err(DmaLatencyError::Missing { .. })
            ));
            return;
        }
        match DmaLatencyGuard::set(0) {
            Err(
                e @ DmaLatencyError::Denied {
                    errno: Errno::EACCES,
                    ..
                },
            ) => {
                println!("as nobody: {e}");
                assert!(e.to_string().contains("run as root"));
            }
            other => panic!("opening {DMA_LATENCY_PATH} as nobody: {other:?}"),
        }
    }

    #[test]
    fn unprivileged_guard_is_refused() {
        test_support::run_child(
            "dma_latency::tests::child_dma_latency_as_nobody",
            Child {
                nobody: true,
                ..Child::default()
            },
        );
    }
}
