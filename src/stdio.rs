//! Standard output and standard error for every command, written so that nothing a reader
//! does can crash rtlat: `print!` and `eprint!` panic when a write fails (exit 101, "failed
//! printing to stdout: Broken pipe"); [`out!`](crate::out), [`outln!`](crate::outln),
//! [`err!`](crate::err) and [`errln!`](crate::errln) never do.
//!
//! A reader that went away (`rtlat run -v | head -3`: the write fails with `EPIPE`, Rust
//! having started the process with SIGPIPE ignored) is noted, not acted on where it happens:
//! the command sees [`reader_gone`], ends its run as a stop signal would, restores what it
//! changed (a held governor, `/dev/cpu_dma_latency`, the snapshot file), and [`exit`] then
//! ends the process by SIGPIPE, as cyclictest and every Unix filter die of it: status 141 in
//! the shell, nothing more printed. Dying of SIGPIPE at the write itself would skip the
//! restoring.
//!
//! Any other failed write to standard output (`> /dev/full`) is one line on standard error
//! at the end and exit status 4 (output lost), instead of 0.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first `EPIPE` on standard output or standard error.
static READER_GONE: AtomicBool = AtomicBool::new(false);
/// The first other error of a write to standard output.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// Prints to standard output without a newline; never panics (see [`crate::stdio`]).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        $crate::stdio::write_out(::core::format_args!($($arg)*));
    }};
}

/// Prints a line to standard output; never panics (see [`crate::stdio`]).
#[macro_export]
macro_rules! outln {
    () => {{
        $crate::stdio::write_out(::core::format_args!("\n"));
    }};
    ($($arg:tt)*) => {{
        $crate::stdio::write_out(::core::format_args!("{}\n", ::core::format_args!($($arg)*)));
    }};
}

/// Prints to standard error without a newline; never panics (see [`crate::stdio`]).
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => {{
        $crate::stdio::write_err(::core::format_args!($($arg)*));
    }};
}

/// Prints a line to standard error; never panics (see [`crate::stdio`]).
#[macro_export]
macro_rules! errln {
    () => {{
        $crate::stdio::write_err(::core::format_args!("\n"));
    }};
    ($($arg:tt)*) => {{
        $crate::stdio::write_err(::core::format_args!("{}\n", ::core::format_args!($($arg)*)));
    }};
}

/// Writes `args` to standard output and flushes; a failure is noted (see [`crate::stdio`]).
/// Returns whether the text was written.
pub fn write_out(args: fmt::Arguments<'_>) -> bool {
    let mut stdout = io::stdout().lock();
    let written = stdout.write_fmt(args).and_then(|()| stdout.flush());
    match written {
        Ok(()) => true,
        Err(e) => {
            stdout_failed(&e);
            false
        }
    }
}

/// Writes `args` to standard error; a reader gone is noted, any other failure ignored (there
/// is nowhere left to say it).
pub fn write_err(args: fmt::Arguments<'_>) -> bool {
    let mut stderr = io::stderr().lock();
    match stderr.write_fmt(args).and_then(|()| stderr.flush()) {
        Ok(()) => true,
        Err(e) => {
            note_reader_gone(&e);
            false
        }
    }
}

/// Notes `e`, the error of a write to standard output made elsewhere (a buffered writer of
/// its own): returns true if it means the reader has gone, which the caller then reports to
/// nobody (the process ends by SIGPIPE at [`exit`]). Any other error is said at [`exit`].
pub fn stdout_failed(e: &io::Error) -> bool {
    if note_reader_gone(e) {
        return true;
    }
    let mut failed = FAILED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    failed.get_or_insert_with(|| e.to_string());
    false
}

/// Notes `e` only if it means the reader has gone (`EPIPE`), and says so: for a caller that
/// reports its other write errors itself.
pub fn note_reader_gone(e: &io::Error) -> bool {
    let gone = e.kind() == io::ErrorKind::BrokenPipe;
    if gone {
        READER_GONE.store(true, Ordering::SeqCst);
    }
    gone
}

/// True once a write to standard output or standard error found its reader gone (`EPIPE`):
/// a running command ends its run, as on a stop signal.
pub fn reader_gone() -> bool {
    READER_GONE.load(Ordering::Relaxed)
}

/// The end of `main`, once everything the command changed is restored: with its reader gone,
/// the process ends by SIGPIPE (this does not return); after another failed write to standard
/// output, one line naming it, and status 4 where the command would have ended with 0 or 1.
/// `program` names the command in that line.
pub fn exit(program: &str, code: ExitCode) -> ExitCode {
    if reader_gone() {
        rtlat_linux::signals::die_of_sigpipe();
    }
    let failed = FAILED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    match failed {
        Some(e) => {
            crate::errln!("{program}: cannot write to standard output: {e}; output was lost");
            if code == ExitCode::SUCCESS
                || code == ExitCode::from(crate::exit_status::OVER_THRESHOLD)
            {
                ExitCode::from(crate::exit_status::NOT_WRITTEN)
            } else {
                code
            }
        }
        None => code,
    }
}

#[cfg(test)]
mod tests {
    /// Every command prints through this module: a `print!`, `println!`, `eprint!` or
    /// `eprintln!` outside tests (which panic on a closed pipe) is a bug. Tests (a
    /// `#[cfg(test)]` module, the last thing in a file by the project's convention) may print.
    #[test]
    fn no_panicking_print_macros_outside_tests() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut offenders = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    if line.trim_start().starts_with("#[cfg(test)]") {
                        break;
                    }
                    let code = line.split("//").next().unwrap_or("");
                    for banned in ["print!(", "println!(", "eprint!(", "eprintln!("] {
                        let mut rest = code;
                        while let Some(at) = rest.find(banned) {
                            let before = rest[..at].chars().next_back();
                            // `out!`/`errln!` and the like are fine; only the bare std names.
                            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                                offenders.push(format!(
                                    "{}:{}: {}",
                                    path.display(),
                                    n + 1,
                                    line.trim()
                                ));
                            }
                            rest = &rest[at + banned.len()..];
                        }
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "use rtlat's out!/outln!/err!/errln! (src/stdio.rs), which never panic:\n{}",
            offenders.join("\n")
        );
    }
}
