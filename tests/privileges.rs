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
