//! Running programs with a timeout, collecting their output, sending them signals.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::rtlat;

/// What a finished process left.
#[derive(Debug)]
pub struct Outcome {
    /// Exit status (`None` if it had to be killed after the timeout).
    pub status: Option<ExitStatus>,
    /// Everything written to stdout.
    pub stdout: String,
    /// Everything written to stderr.
    pub stderr: String,
    /// Wall time until exit (or until the kill).
    pub elapsed: Duration,
}

impl Outcome {
    /// A refused invocation: exit status 2 and one stderr line containing `fragment`
    /// (`what` names the invocation in a failure).
    pub fn assert_refused(&self, what: &dyn std::fmt::Debug, fragment: &str) {
        assert_eq!(self.code(), 2, "{what:?}: {}", self.stdout);
        assert_eq!(self.stderr.lines().count(), 1, "{what:?}: {}", self.stderr);
        assert!(self.stderr.contains(fragment), "{what:?}: {}", self.stderr);
    }

    /// The exit code; panics (with the output) if the process was killed or signalled.
    pub fn code(&self) -> i32 {
        match self.status.and_then(|s| s.code()) {
            Some(code) => code,
            None => panic!(
                "the process did not exit normally ({:?}) after {:?}\nstdout:\n{}\nstderr:\n{}",
                self.status, self.elapsed, self.stdout, self.stderr
            ),
        }
    }
}

/// A running child whose stdout and stderr are collected in the background.
pub struct Running {
    child: Child,
    started: Instant,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
}

fn collect(mut from: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => into
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .extend_from_slice(&buf[..n]),
            }
        }
    })
}

/// Starts `program args` in `cwd` (the current folder if `None`).
pub fn spawn(program: &Path, args: &[&str], cwd: Option<&Path>) -> Running {
    spawn_with(program, args, cwd, None)
}

/// In the child before exec: SIGHUP, SIGINT, SIGQUIT and SIGTERM at their default, as an
/// interactive shell starts a command. A process inherits ignored signals across exec, and a
/// test run started under `nohup` (SIGHUP ignored) or as a background job of a script (SIGINT
/// and SIGQUIT ignored) would otherwise test rtlat under those, where a stop signal it honours
/// as ignored (`nohup rtlat run`) does not end it.
fn stop_signals_as_from_a_shell() -> std::io::Result<()> {
    for signo in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM] {
        // SAFETY: signal(2) with SIG_DFL is async-signal-safe.
        if unsafe { libc::signal(signo, libc::SIG_DFL) } == libc::SIG_ERR {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// [`spawn`], running `before_exec` in the child between fork and exec (e.g. to block or
/// ignore signals: a process inherits its signal mask and ignored signals across exec). It
/// must only make async-signal-safe calls.
pub fn spawn_with(
    program: &Path,
    args: &[&str],
    cwd: Option<&Path>,
    before_exec: Option<fn() -> std::io::Result<()>>,
) -> Running {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("LC_ALL", "C");
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    use std::os::unix::process::CommandExt as _;
    // SAFETY: `stop_signals_as_from_a_shell` calls signal(2) only, and the callers pass
    // functions that only make async-signal-safe calls (sigprocmask, sigaction), as a child
    // between fork and exec requires.
    unsafe {
        cmd.pre_exec(move || {
            stop_signals_as_from_a_shell()?;
            before_exec.map_or(Ok(()), |f| f())
        })
    };
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let readers = vec![
        collect(child.stdout.take().expect("piped stdout"), stdout.clone()),
        collect(child.stderr.take().expect("piped stderr"), stderr.clone()),
    ];
    Running {
        child,
        started: Instant::now(),
        stdout,
        stderr,
        readers,
    }
}

impl Running {
    /// The process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends `signal` to the process.
    pub fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped yet.
        let rc = unsafe { libc::kill(self.pid(), signal) };
        assert_eq!(rc, 0, "kill({}, {signal}) failed", self.pid());
    }

    /// What the process wrote on stderr so far.
    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }

    /// Waits until stderr contains `needle` or `timeout` passes; returns whether it did.
    pub fn wait_for_stderr(&self, needle: &str, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if self.stderr_so_far().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stderr_so_far().contains(needle)
    }

    /// What the process wrote on stdout so far.
    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&self.stdout.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }

    /// Waits until stdout contains `needle` or `timeout` passes; returns whether it did.
    pub fn wait_for_stdout(&self, needle: &str, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if self.stdout_so_far().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stdout_so_far().contains(needle)
    }

    /// Whether the process has exited.
    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Waits for the exit, killing the process after `timeout`.
    pub fn finish(mut self, timeout: Duration) -> Outcome {
        let until = self.started + timeout;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
            }
        };
        let elapsed = self.started.elapsed();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        let text = |b: &Arc<Mutex<Vec<u8>>>| {
            String::from_utf8_lossy(&b.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
        };
        Outcome {
            status,
            stdout: text(&self.stdout),
            stderr: text(&self.stderr),
            elapsed,
        }
    }

    /// Waits up to `timeout` for the exit, measured from now; returns the outcome and the time
    /// the exit took.
    pub fn finish_within(self, timeout: Duration) -> (Outcome, Duration) {
        let asked = Instant::now();
        let budget = (asked - self.started) + timeout;
        let outcome = self.finish(budget);
        (outcome, asked.elapsed())
    }
}

/// Runs `program args` to the end (killed after `timeout`).
pub fn run(program: &Path, args: &[&str], cwd: Option<&Path>, timeout: Duration) -> Outcome {
    spawn(program, args, cwd).finish(timeout)
}

/// `rtlat COMMAND ARGS` to the end (killed after `timeout`).
pub fn rtlat_command(
    command: &str,
    args: &[&str],
    cwd: Option<&Path>,
    timeout: Duration,
) -> Outcome {
    let mut all = vec![command];
    all.extend_from_slice(args);
    run(&rtlat(), &all, cwd, timeout)
}

/// `rtlat run ARGS`.
pub fn rtlat_run(args: &[&str], cwd: Option<&Path>, timeout: Duration) -> Outcome {
    rtlat_command("run", args, cwd, timeout)
}
