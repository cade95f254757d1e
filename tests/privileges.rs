//! Without the right to use SCHED_FIFO, `rtlat run` refuses at once with a line saying how to
//! get it (exit 2) — unless `--policy other` was asked. Runs the binary as user `nobody`
//! through `setpriv` (util-linux), from a copy in a world-readable temporary folder.

use crate::common;

use common::as_nobody;

#[test]
fn fifo_without_privilege_is_refused_with_the_remedy() {
    let out = as_nobody(&["run", "-t", "1", "-p", "80", "-l", "10", "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing measured: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("SCHED_FIFO") && err.contains("ulimit -r"),
        "{err}"
    );
}

#[test]
fn policy_other_runs_without_privilege() {
    let out = as_nobody(&[
        "run", "-t", "1", "--policy", "other", "-i", "1000", "-l", "20", "-q",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("C:     20"), "{stdout}");
    // cpu_dma_latency needs root: a warning that says so, and the run goes on.
    assert!(String::from_utf8_lossy(&out.stderr).contains("cpu_dma_latency"));
}

/// A user id no account has: its process count (what RLIMIT_NPROC limits) is this test's own.
const UNUSED_UID: &str = "61999";

#[test]
fn a_measuring_thread_that_cannot_start_ends_the_run_in_one_line_with_nothing_left() {
    use std::os::unix::fs::PermissionsExt as _;
    use std::os::unix::process::CommandExt as _;
    assert!(
        common::is_root(),
        "switches to an unused user id: run as root"
    );
    let dir = common::TempDir::new("spawn-fails");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let binary = dir.join("rtlat");
    common::place_rtlat(&binary);
    // The main thread and two measuring threads may exist; the third cannot start (EAGAIN).
    let mut command = std::process::Command::new("setpriv");
    command
        .args([
            &format!("--reuid={UNUSED_UID}"),
            &format!("--regid={UNUSED_UID}"),
            "--clear-groups",
            "--inh-caps=-all",
        ])
        .arg(&binary)
        .args([
            "run", "-t", "4", "--policy", "other", "-i", "1000", "-l", "100000", "-q",
        ])
        .current_dir(dir.path());
    // SAFETY: setrlimit only, between fork and exec; the limit is inherited by setpriv and
    // by rtlat once its user id is the unused one.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 3,
                rlim_max: 3,
            };
            if libc::setrlimit(libc::RLIMIT_NPROC, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    // 100 s of cycles if the threads ran: an end within 30 s is the refusal, not the run; a
    // run left waiting is killed then, and fails below.
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("setpriv (util-linux) must be installed");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing measured: {:?}", out.stdout);
    // cpu_dma_latency's warning (not root), then the one line of the refusal.
    let last = stderr.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "rtlat run: cannot start the measuring thread rtlat-t2: Resource temporarily unavailable (os error 11)",
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .all(|l| l == last || l.contains("cpu_dma_latency")),
        "{stderr}"
    );
    // Nothing left running under that user id.
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter(|status| {
            status
                .lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some(UNUSED_UID))
        })
        .collect();
    assert!(left.is_empty(), "left running: {left:?}");
}
