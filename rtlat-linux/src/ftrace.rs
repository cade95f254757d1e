//! ftrace from user space: finding tracefs ([`find_tracefs`]), writing a mark into the trace and
//! stopping it ([`Ftrace`]), as cyclictest's `-b … --tracemark` does when a latency crosses the
//! threshold.
//!
//! Paths are read through a root directory (`/` on a live system), so tests and captured
//! trees of other machines work the same way.

use core::fmt;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Component, Path, PathBuf};

use crate::errno::Errno;

/// Finding tracefs, or opening or writing one of its files, failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FtraceError {
    /// No tracefs was found under the root.
    #[error("tracefs not found under {}: mount it with `mount -t tracefs nodev /sys/kernel/tracing`", root.display())]
    TracefsNotFound {
        /// The root searched.
        root: PathBuf,
    },
    /// An ftrace file could not be opened or written.
    #[error("cannot {call} {}: {errno}; run as root (tracefs files are root-only)", path.display())]
    Ftrace {
        /// `open` or `write`.
        call: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A system file (`/proc/mounts`) could not be read.
    #[error("cannot read {}: {errno}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
}

/// Where cyclictest looks for tracefs first, in this order, before `/proc/mounts`.
pub const CYCLICTEST_PLACES: [&str; 2] = ["/sys/kernel/debug/tracing", "/debug/tracing"];

/// Where tracefs is looked for when `/proc/mounts` names none, in this order.
pub const TRACEFS_FALLBACKS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// The longest mark [`Ftrace::write_marker_fmt`] formats (longer text is cut).
pub const MAX_MARK: usize = 256;

/// The tracefs directory under `root`, looked for where cyclictest looks (so both name the
/// same directory when tracefs is mounted in several places): [`CYCLICTEST_PLACES`], then
/// the first `debugfs` mount of `root/proc/mounts` plus `/tracing`; then the first `tracefs`
/// mount, else [`TRACEFS_FALLBACKS`]. A candidate counts only if it holds a `trace_marker`
/// file. The path returned is under `root`.
pub fn find_tracefs(root: &Path) -> Result<PathBuf, FtraceError> {
    let mounts_path = root.join("proc/mounts");
    let mounts = match std::fs::read_to_string(&mounts_path) {
        Ok(text) => text,
        // No /proc/mounts (a captured tree without it): only the fallbacks are left.
        Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(FtraceError::Read {
                path: mounts_path,
                errno: Errno::from_io(&e),
            });
        }
    };
    let entries: Vec<(String, String)> = mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (_device, dir, fstype) = (fields.next()?, fields.next()?, fields.next()?);
            Some((unescape_mount_path(dir), fstype.to_owned()))
        })
        .collect();
    let tracefs = entries
        .iter()
        .filter(|(_, fs)| fs == "tracefs")
        .map(|(dir, _)| dir.clone());
    let debugfs = entries
        .iter()
        .filter(|(_, fs)| fs == "debugfs")
        .map(|(dir, _)| format!("{}/tracing", dir.trim_end_matches('/')));
    let fallbacks = TRACEFS_FALLBACKS.iter().map(|dir| (*dir).to_owned());
    let cyclictest = CYCLICTEST_PLACES.iter().map(|dir| (*dir).to_owned());
    cyclictest
        .chain(debugfs)
        .chain(tracefs)
        .chain(fallbacks)
        .map(|dir| under_root(root, &dir))
        .find(|dir| dir.join("trace_marker").exists())
        .ok_or_else(|| FtraceError::TracefsNotFound {
            root: root.to_path_buf(),
        })
}

/// `/proc/mounts` writes a space, tab, newline and backslash in a path as `\040`, `\011`,
/// `\012`, `\134`; this undoes any three-digit octal escape.
fn unescape_mount_path(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = bytes.get(i + 1..i + 4).filter(|_| bytes[i] == b'\\');
        match escape
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u8::from_str_radix(d, 8).ok())
        {
            Some(byte) => {
                out.push(byte);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `dir` (absolute on the traced system) as a path under `root`; `..` parts are dropped so a
/// mount line cannot point outside the root.
fn under_root(root: &Path, dir: &str) -> PathBuf {
    let mut path = root.to_path_buf();
    for part in Path::new(dir).components() {
        if let Component::Normal(part) = part {
            path.push(part);
        }
    }
    path
}

/// An open tracefs: `trace_marker` and `tracing_on` are opened up front, so that writing a
/// mark and stopping the trace at a latency break opens nothing and allocates nothing.
#[derive(Debug)]
pub struct Ftrace {
    dir: PathBuf,
    marker: File,
    tracing_on: File,
}

impl Ftrace {
    /// Finds tracefs under `root` ([`find_tracefs`]) and opens it.
    pub fn open(root: &Path) -> Result<Self, FtraceError> {
        Self::open_dir(find_tracefs(root)?)
    }

    /// Opens the tracefs directory `dir` (its `trace_marker` and `tracing_on`, for writing;
    /// nothing is created).
    pub fn open_dir(dir: impl Into<PathBuf>) -> Result<Self, FtraceError> {
        let dir = dir.into();
        let open = |name: &str| {
            let path = dir.join(name);
            OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| FtraceError::Ftrace {
                    call: "open",
                    errno: Errno::from_io(&e),
                    path,
                })
        };
        Ok(Ftrace {
            marker: open("trace_marker")?,
            tracing_on: open("tracing_on")?,
            dir,
        })
    }

    /// The tracefs directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `text` into the trace as one mark (one `write` to `trace_marker`; the kernel
    /// cuts a mark longer than its buffer).
    pub fn write_marker(&self, text: &str) -> Result<(), FtraceError> {
        (&self.marker)
            .write(text.as_bytes())
            .map(drop)
            .map_err(|e| self.error("trace_marker", &e))
    }

    /// Formats a mark into a stack buffer of [`MAX_MARK`] bytes (cutting what does not fit)
    /// and writes it, allocating nothing: e.g.
    /// `write_marker_fmt(format_args!("hit latency threshold ({max} > {threshold})"))`.
    pub fn write_marker_fmt(&self, args: fmt::Arguments<'_>) -> Result<(), FtraceError> {
        let mut mark = StackText {
            buf: [0; MAX_MARK],
            len: 0,
        };
        // A full buffer only cuts the text; it is not an error.
        let _ = fmt::write(&mut mark, args);
        (&self.marker)
            .write(&mark.buf[..mark.len])
            .map(drop)
            .map_err(|e| self.error("trace_marker", &e))
    }

    /// Stops tracing: writes `0` to `tracing_on`. The trace buffer keeps what led up to now.
    pub fn stop(&self) -> Result<(), FtraceError> {
        (&self.tracing_on)
            .write_all(b"0")
            .map_err(|e| self.error("tracing_on", &e))
    }

    /// Starts tracing again: writes `1` to `tracing_on`.
    pub fn start(&self) -> Result<(), FtraceError> {
        (&self.tracing_on)
            .write_all(b"1")
            .map_err(|e| self.error("tracing_on", &e))
    }

    #[cold]
    fn error(&self, file: &str, e: &std::io::Error) -> FtraceError {
        FtraceError::Ftrace {
            call: "write",
            path: self.dir.join(file),
            errno: Errno::from_io(e),
        }
    }
}

/// A fixed buffer that `fmt::Write` fills up to its size, cutting on a character boundary.
struct StackText {
    buf: [u8; MAX_MARK],
    len: usize,
}

impl fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = MAX_MARK - self.len;
        let mut take = s.len().min(room);
        while !s.is_char_boundary(take) {
            take -= 1;
        }
        self.buf[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        if take < s.len() {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A temporary directory removed on drop.
    struct TempTree(PathBuf);

    impl TempTree {
        fn new(name: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("rtlat-ftrace-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempTree(dir)
        }

        fn file(&self, path: &str, text: &str) -> PathBuf {
            let path = self.0.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            path
        }

        fn tracefs(&self, dir: &str) {
            self.file(&format!("{dir}/trace_marker"), "");
            self.file(&format!("{dir}/tracing_on"), "1\n");
        }
    }

    impl Drop for TempTree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    const MOUNTS: &str = "\
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /mnt/my\\040trace tracefs rw,nosuid,nodev,noexec,relatime 0 0
";

    #[test]
    fn tracefs_is_found_from_proc_mounts() {
        let tree = TempTree::new("mounts");
        tree.file("proc/mounts", MOUNTS);
        tree.tracefs("mnt/my trace");
        tree.tracefs("sys/kernel/tracing");
        assert_eq!(find_tracefs(&tree.0).unwrap(), tree.0.join("mnt/my trace"));
        // Where cyclictest looks first wins (it names the same tracefs).
        tree.tracefs("debug/tracing");
        assert_eq!(find_tracefs(&tree.0).unwrap(), tree.0.join("debug/tracing"));
        tree.tracefs("sys/kernel/debug/tracing");
        assert_eq!(
            find_tracefs(&tree.0).unwrap(),
            tree.0.join("sys/kernel/debug/tracing")
        );
    }

    #[test]
    fn debugfs_then_fallbacks_when_no_tracefs_mount() {
        let tree = TempTree::new("debugfs");
        tree.file("proc/mounts", &MOUNTS.replace("tracefs /mnt", "tmpfs /mnt"));
        tree.tracefs("sys/kernel/debug/tracing");
        tree.tracefs("sys/kernel/tracing");
        assert_eq!(
            find_tracefs(&tree.0).unwrap(),
            tree.0.join("sys/kernel/debug/tracing")
        );

        // No usable mount at all: the fallbacks, cyclictest's place first.
        let tree = TempTree::new("fallback");
        tree.file("proc/mounts", "proc /proc proc rw 0 0\n");
        tree.tracefs("sys/kernel/tracing");
        assert_eq!(
            find_tracefs(&tree.0).unwrap(),
            tree.0.join("sys/kernel/tracing")
        );
        tree.tracefs("sys/kernel/debug/tracing");
        assert_eq!(
            find_tracefs(&tree.0).unwrap(),
            tree.0.join("sys/kernel/debug/tracing")
        );

        // A mount whose directory lacks trace_marker (not mounted here) is passed over, and a
        // missing /proc/mounts is not an error.
        let tree = TempTree::new("nomounts");
        fs::create_dir_all(tree.0.join("sys/kernel/tracing")).unwrap();
        assert_eq!(
            find_tracefs(&tree.0).unwrap_err(),
            FtraceError::TracefsNotFound {
                root: tree.0.clone()
            }
        );
        tree.tracefs("sys/kernel/debug/tracing");
        assert_eq!(
            find_tracefs(&tree.0).unwrap(),
            tree.0.join("sys/kernel/debug/tracing")
        );
    }

    #[test]
    fn mount_paths_are_unescaped_and_kept_under_the_root() {
        assert_eq!(unescape_mount_path("/a\\040b\\011c\\134d"), "/a b\tc\\d");
        assert_eq!(unescape_mount_path("/plain\\0"), "/plain\\0");
        assert_eq!(
            under_root(Path::new("/r"), "/../../etc/x"),
            PathBuf::from("/r/etc/x")
        );
    }

    #[test]
    fn marks_and_stop_write_the_files() {
        let tree = TempTree::new("write");
        tree.file(
            "proc/mounts",
            "tracefs /sys/kernel/tracing tracefs rw 0 0\n",
        );
        tree.tracefs("sys/kernel/tracing");
        let ftrace = Ftrace::open(&tree.0).unwrap();
        assert_eq!(ftrace.dir(), tree.0.join("sys/kernel/tracing"));

        ftrace.write_marker("rtlat start\n").unwrap();
        let (max, threshold) = (1234, 100);
        ftrace
            .write_marker_fmt(format_args!("hit latency threshold ({max} > {threshold})"))
            .unwrap();
        ftrace.stop().unwrap();
        let marks = fs::read_to_string(tree.0.join("sys/kernel/tracing/trace_marker")).unwrap();
        assert_eq!(marks, "rtlat start\nhit latency threshold (1234 > 100)");
        let on = fs::read_to_string(tree.0.join("sys/kernel/tracing/tracing_on")).unwrap();
        assert!(on.starts_with('0'), "tracing_on holds {on:?}");
    }

    #[test]
    fn long_marks_are_cut_not_refused() {
        let tree = TempTree::new("long");
        tree.tracefs("t");
        let ftrace = Ftrace::open_dir(tree.0.join("t")).unwrap();
        let long = "é".repeat(MAX_MARK);
        ftrace.write_marker_fmt(format_args!("{long}")).unwrap();
        let mark = fs::read_to_string(tree.0.join("t/trace_marker")).unwrap();
        assert_eq!(
            mark.len(),
            MAX_MARK,
            "cut on a character boundary at {MAX_MARK} bytes"
        );
    }

    #[test]
    fn missing_files_are_typed_errors() {
        let tree = TempTree::new("missing");
        tree.file("t/trace_marker", "");
        match Ftrace::open_dir(tree.0.join("t")) {
            Err(FtraceError::Ftrace {
                call: "open",
                path,
                errno,
            }) => {
                assert_eq!(path, tree.0.join("t/tracing_on"));
                assert_eq!(errno, Errno::ENOENT);
            }
            other => panic!("expected an open error, got {other:?}"),
        }
        assert!(!tree.0.join("t/tracing_on").exists(), "nothing is created");
    }

    /// The live system: tracefs if it is mounted, else the error that says how to mount it.
    #[test]
    fn live_system() {
        match Ftrace::open(Path::new("/")) {
            Ok(ftrace) => {
                println!("tracefs at {}", ftrace.dir().display());
                ftrace.write_marker("rtlat-linux test mark\n").unwrap();
                let trace = fs::read_to_string(ftrace.dir().join("trace")).unwrap_or_default();
                let on = fs::read_to_string(ftrace.dir().join("tracing_on")).unwrap_or_default();
                if on.trim() == "1" {
                    assert!(
                        trace.contains("rtlat-linux test mark"),
                        "mark not in the trace"
                    );
                }
            }
            Err(e @ FtraceError::TracefsNotFound { .. }) => {
                println!("NOTE: tracefs is not mounted on this machine; checked the error: {e}");
                assert!(e.to_string().contains("mount -t tracefs"));
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
}
