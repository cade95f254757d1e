//! `rtlat tune` and `rtlat verify` on a real kernel (`guest/suites/tune.sh`): the profile
//! `guest/tune.toml` persisted on the host (`rtlat tune apply --persist` into a copy of a
//! captured machine with GRUB's `/etc/default/grub`), Debian's 6.12 RT kernel booted with
//! the line GRUB's drop-in then holds, and inside it the profile verified, applied,
//! verified clean, drifted (an IRQ back on the isolated CPU, a thread's priority lost) and
//! verified again, then the apply undone.

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::machine::Results;
use super::x86::{BootedOnce, boot, booted_once};
use crate::common::{copy_of_hp_t630, drifted_items};

/// How long the suite may take (about a minute under TCG on an idle 2-CPU machine).
const LIMIT: Duration = Duration::from_secs(420);

fn profile() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rt_guest/guest/tune.toml")
}

/// The kernel parameters `rtlat tune apply PROFILE --persist --apply` writes into GRUB's
/// drop-in (what `update-grub` would put on the next boot's line), from a copy of the HP
/// t630 tree with an `/etc/default/grub`.
fn persisted_line() -> String {
    let (dir, root) = copy_of_hp_t630("tune-persist");
    std::fs::create_dir_all(root.join("etc/default")).unwrap();
    std::fs::write(
        root.join("etc/default/grub"),
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
    )
    .unwrap();
    let save = dir.join("restore.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rtlat"))
        .args(["tune", "apply"])
        .arg(profile())
        .args(["--persist", "--apply", "--root"])
        .arg(&root)
        .arg("--save")
        .arg(&save)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drop_in = std::fs::read_to_string(root.join("etc/default/grub.d/rtlat.cfg")).unwrap();
    drop_in
        .lines()
        .find_map(|l| l.strip_prefix("GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} "))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no line in {drop_in}"))
        .to_owned()
}

fn suite(test: &str) -> Option<Arc<Results>> {
    static TUNE: BootedOnce = OnceLock::new();
    booted_once(&TUNE, test, || {
        let line = persisted_line();
        boot("6.12", &line, test, ("tune", false, None), LIMIT)
    })
}

/// The ids of the drifted items of `rtlat verify --json`'s output.
fn drifted(r: &Results, key: &str) -> Vec<String> {
    drifted_items(&r.out(key))
}

#[test]
fn a_persisted_profile_boots_verifies_applies_and_its_drift_is_reported() {
    let test =
        "rt_guest::tune::a_persisted_profile_boots_verifies_applies_and_its_drift_is_reported";
    let Some(r) = suite(test) else {
        return;
    };
    // Booted with the persisted line: every parameter of the profile is on it.
    let booted = r.text("guest.cmdline");
    for p in ["isolcpus=1", "nohz_full=1", "rcu_nocbs=1", "irqaffinity=0"] {
        assert!(
            booted.split_whitespace().any(|w| w == p),
            "{p} not in {booted}"
        );
    }
    let sleeper = r.text("sleeper").trim().to_owned();
    let thread = format!("thread.0.{sleeper}");
    // Before: the kernel line is the profile's; the thread is not SCHED_FIFO 10 on CPU 0.
    r.assert_rc("verify.before", 1);
    assert_eq!(
        drifted(&r, "verify.before"),
        std::slice::from_ref(&thread),
        "{}",
        r.out("verify.before")
    );
    // Applied: nothing drifts.
    r.assert_rc("apply", 0);
    r.assert_rc("verify.applied", 0);
    assert!(
        drifted(&r, "verify.applied").is_empty(),
        "{}",
        r.out("verify.applied")
    );
    // Drifted: the IRQ put back on CPU 1 and the thread's priority lost, each named.
    let irq = r.text("drift.irq").trim().to_owned();
    assert!(!irq.is_empty(), "no IRQ could be moved onto CPU 1");
    r.assert_rc("verify.drifted", 1);
    let mut want = vec![format!("irq.{irq}"), thread];
    want.sort();
    let mut got = drifted(&r, "verify.drifted");
    got.sort();
    assert_eq!(got, want, "{}", r.out("verify.drifted"));
    // The restore file undoes the apply: the thread SCHED_OTHER again.
    r.assert_rc("restore", 0);
    assert_eq!(r.text("sleeper.after").trim(), "0 0");
}
