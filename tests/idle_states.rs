//! `--deepest-idle-state N` (current cyclictest's option) through the binary, in a private
//! mount namespace where a fake `/sys/devices/system/cpu` with idle states stands in: the
//! states deeper than N are disabled while the run runs and enabled again at its end, on
//! SIGINT and on SIGTERM; a state disabled before stays disabled.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Alias, TempDir, child_of, fake_cpu_dir, online_cpus, run, spawn_with_fake_cpus};

const QUICK: Duration = Duration::from_secs(20);

/// The fake CPU folder, each online CPU with idle states 0 to 3 (state 3 of the first CPU
/// already disabled).
fn fake_with_idle_states(dir: &TempDir) -> PathBuf {
    let fake = fake_cpu_dir(dir);
    let first = online_cpus()[0];
    for cpu in online_cpus() {
        for state in 0..4 {
            let folder = fake.join(format!("cpu{cpu}/cpuidle/state{state}"));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("name"), format!("C{state}\n")).unwrap();
            std::fs::write(folder.join("latency"), format!("{}\n", state * 20)).unwrap();
            let off = cpu == first && state == 3;
            std::fs::write(folder.join("disable"), if off { "1\n" } else { "0\n" }).unwrap();
        }
    }
    fake
}

/// `disable` of each state of `cpu`.
fn disabled(fake: &Path, cpu: usize) -> Vec<String> {
    (0..4)
        .map(|state| {
            std::fs::read_to_string(fake.join(format!("cpu{cpu}/cpuidle/state{state}/disable")))
                .unwrap()
                .trim()
                .to_owned()
        })
        .collect()
}

fn as_before(fake: &Path) {
    let first = online_cpus()[0];
    for cpu in online_cpus() {
        let last = if cpu == first { "1" } else { "0" };
        assert_eq!(disabled(fake, cpu), ["0", "0", "0", last], "CPU {cpu}");
    }
}

#[test]
fn deeper_idle_states_are_disabled_for_the_run_and_restored() {
    let _serial = common::measuring();
    let dir = TempDir::new("idle-states-run");
    let fake = fake_with_idle_states(&dir);
    let out = spawn_with_fake_cpus(
        &fake,
        &["--deepest-idle-state", "1", "-i", "1000", "-l", "50", "-q"],
    )
    .finish(QUICK);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains("T: 0"), "{}", out.stdout);
    let cpus = online_cpus();
    let count = 2 * cpus.len() - 1;
    assert!(
        out.stderr.contains(&format!(
            "idle states deeper than state 1 disabled on CPU{} ",
            if cpus.len() == 1 { "" } else { "s" }
        )) && out
            .stderr
            .contains(&format!("({count} switched off, restored at exit)")),
        "{}",
        out.stderr
    );
    as_before(&fake);
}

fn restored_on(signal: i32) {
    let _serial = common::measuring();
    let dir = TempDir::new("idle-states-signal");
    let fake = fake_with_idle_states(&dir);
    let first = online_cpus()[0];
    let child = spawn_with_fake_cpus(
        &fake,
        &["--deepest-idle-state=-1", "-a", &first.to_string(), "-q"],
    );
    assert!(
        child.wait_for_stderr("every idle state disabled on CPU", QUICK),
        "{}",
        child.stderr_so_far()
    );
    assert_eq!(
        disabled(&fake, first),
        ["1", "1", "1", "1"],
        "held while the run runs"
    );
    if let Some(other) = online_cpus().into_iter().find(|&c| c != first) {
        assert_eq!(
            disabled(&fake, other),
            ["0", "0", "0", "0"],
            "-a: only CPU {first}"
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    let pid = child_of(child.pid());
    // SAFETY: kill(2) on a process of this test's own making.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let out = child.finish(QUICK);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains("T: 0"), "{}", out.stdout);
    as_before(&fake);
}

#[test]
fn idle_states_are_restored_on_sigint() {
    restored_on(libc::SIGINT);
}

#[test]
fn idle_states_are_restored_on_sigterm() {
    restored_on(libc::SIGTERM);
}

#[test]
fn under_the_name_cyclictest_it_runs_on_a_machine_without_idle_states() {
    // This VM has no cpuidle folders: nothing to limit, the run runs, as with libcpupower.
    let _serial = common::measuring();
    let alias = Alias::new();
    let out = run(
        &alias.path(),
        &["--deepest-idle-state", "0", "-l", "50", "-i", "1000", "-q"],
        None,
        QUICK,
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains("T: 0"), "{}", out.stdout);
    assert!(
        out.stderr.is_empty(),
        "cyclictest says nothing: {}",
        out.stderr
    );
}
