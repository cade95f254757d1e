//! `rtlat tune apply PROFILE` through the binary, on a writable copy of a captured machine
//! (the HP t630 tree, CPU 3 isolated, its IRQs on every CPU, GRUB's /etc/default/grub
//! added): the dry run changes nothing; `--apply` moves the IRQs, sets the governor and
//! holds the frequency, and `rtlat verify` finds them in place (the kernel line it cannot
//! change still drifted); drift injected (an IRQ put back, the governor reset) is reported; `--restore` undoes it all; `--persist` writes GRUB's drop-in, the
//! unit (which `systemd-analyze verify` accepts) and the profile copy, and `--unpersist`
//! leaves the tree as it was.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{copy_of_hp_t630, drifted_items};

const QUICK: Duration = Duration::from_secs(30);

const PROFILE: &str = "version = 1\n[kernel]\ncmdline = [\"nohz_full=3\", \"rcu_nocbs=3\"]\n[irq]\naway_from = \"3\"\n[cpufreq]\ncpus = \"3\"\ngovernor = \"performance\"\nfrequency_khz = 2000000\n";

fn rtlat(command: &str, args: &[&str], cwd: &common::TempDir) -> common::Outcome {
    common::rtlat_command(command, args, Some(cwd.path()), QUICK)
}

/// Every file under `root` (a link: its target), sorted: the tree's state.
fn tree(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            let meta = path.symlink_metadata().unwrap();
            if meta.file_type().is_symlink() {
                out.push((
                    name,
                    format!("-> {}", std::fs::read_link(&path).unwrap().display()),
                ));
            } else if meta.is_dir() {
                out.push((name, "/".into()));
                stack.push(path);
            } else {
                out.push((
                    name,
                    String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned(),
                ));
            }
        }
    }
    out.sort();
    out
}

fn drifted(out: &common::Outcome) -> Vec<String> {
    drifted_items(&out.stdout)
}

#[test]
fn a_profile_applied_verified_drifted_restored_persisted_and_unpersisted() {
    let (dir, root) = copy_of_hp_t630("tune");
    std::fs::create_dir_all(root.join("etc/default")).unwrap();
    std::fs::write(
        root.join("etc/default/grub"),
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
    )
    .unwrap();
    let profile = dir.join("profile.toml");
    std::fs::write(&profile, PROFILE).unwrap();
    let (p, r) = (profile.to_str().unwrap(), root.to_str().unwrap());
    let pristine = tree(&root);

    // Before: the IRQs on CPU 3 and rcu_nocbs (the tree misspells it) drift.
    let before = rtlat("verify", &[p, "--root", r, "--json"], &dir);
    assert_eq!(before.code(), 1, "{}", before.stderr);
    let before = drifted(&before);
    assert!(
        before.contains(&"cmdline.rcu_nocbs".to_owned()),
        "{before:?}"
    );
    assert!(
        before.iter().filter(|i| i.starts_with("irq.")).count() >= 2,
        "{before:?}"
    );

    // The dry run changes nothing, and says what it would.
    let dry = rtlat("tune", &["apply", p, "--root", r], &dir);
    assert_eq!(dry.code(), 0, "{}", dry.stderr);
    assert!(
        dry.stdout
            .contains("# the running kernel lacks: rcu_nocbs=3"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stdout.contains("# dry run: nothing changed"),
        "{}",
        dry.stdout
    );
    assert_eq!(tree(&root), pristine);

    // --apply: the IRQs moved; only the kernel line still drifts.
    let save = dir.join("restore.json");
    let applied = rtlat(
        "tune",
        &[
            "apply",
            p,
            "--root",
            r,
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(applied.code(), 0, "{}", applied.stderr);
    let after = rtlat("verify", &[p, "--root", r, "--json"], &dir);
    assert_eq!(drifted(&after), ["cmdline.rcu_nocbs"]);

    // Drift injected: an IRQ back on CPU 3, as irqbalance would, and the governor reset.
    std::fs::write(root.join("proc/irq/25/smp_affinity_list"), "0-3\n").unwrap();
    let governor = root.join("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor");
    std::fs::write(&governor, "powersave\n").unwrap();
    let drift = rtlat("verify", &[p, "--root", r, "--json"], &dir);
    assert_eq!(
        drifted(&drift),
        ["cmdline.rcu_nocbs", "irq.25", "cpufreq.cpu3"]
    );
    std::fs::write(&governor, "performance\n").unwrap();

    // --restore undoes what --apply changed (the injected IRQ is the file's old value again).
    let restored = rtlat(
        "tune",
        &["--restore", save.to_str().unwrap(), "--root", r],
        &dir,
    );
    assert_eq!(restored.code(), 0, "{}{}", restored.stdout, restored.stderr);
    std::fs::remove_file(&save).unwrap();
    assert_eq!(tree(&root), pristine);

    // --persist writes the drop-in, the unit and its link, and the profile's copy.
    let persisted = rtlat(
        "tune",
        &[
            "apply",
            p,
            "--root",
            r,
            "--persist",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        &dir,
    );
    assert_eq!(persisted.code(), 0, "{}", persisted.stderr);
    for file in [
        "/etc/rtlat/tune.toml",
        "/etc/default/grub.d/rtlat.cfg",
        "/etc/systemd/system/rtlat-tune.service",
        "/etc/systemd/system/multi-user.target.wants/rtlat-tune.service",
    ] {
        assert!(
            persisted.stdout.contains(&format!("# persisted: {file}")),
            "{}",
            persisted.stdout
        );
    }
    let drop_in = std::fs::read_to_string(root.join("etc/default/grub.d/rtlat.cfg")).unwrap();
    assert!(
        drop_in.contains(
            "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} nohz_full=3 rcu_nocbs=3\""
        ),
        "{drop_in}"
    );
    // The persisted profile is the profile (what the unit applies at boot).
    let copy = root.join("etc/rtlat/tune.toml");
    let again = rtlat(
        "verify",
        &[copy.to_str().unwrap(), "--root", r, "--json"],
        &dir,
    );
    assert_eq!(drifted(&again), ["cmdline.rcu_nocbs"]);
    // systemd's own check of the unit, where systemd-analyze is installed (Debian has it).
    let unit = root.join("etc/systemd/system/rtlat-tune.service");
    match std::process::Command::new("systemd-analyze")
        .arg("verify")
        .arg(&unit)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "systemd-analyze verify: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => eprintln!("NOT RUN: systemd-analyze verify ({e})"),
    }

    // --unpersist and --restore: the tree exactly as it was.
    let unpersisted = rtlat(
        "tune",
        &["apply", "--unpersist", "--root", r, "--apply"],
        &dir,
    );
    assert_eq!(unpersisted.code(), 0, "{}", unpersisted.stderr);
    let restored = rtlat(
        "tune",
        &["--restore", save.to_str().unwrap(), "--root", r],
        &dir,
    );
    assert_eq!(restored.code(), 0, "{}", restored.stderr);
    assert_eq!(tree(&root), pristine);
}

#[test]
fn bad_tune_command_lines_are_refused_in_one_line() {
    let (dir, root) = copy_of_hp_t630("tune-bad");
    let r = root.to_str().unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "version = 1\n[cpufreq]\ncpus = \"3\"\ngovernor = \"no such\"\n",
    )
    .unwrap();
    let good = dir.join("good.toml");
    std::fs::write(&good, PROFILE).unwrap();
    let (bad, good) = (bad.to_str().unwrap(), good.to_str().unwrap());
    for args in [
        vec![],
        vec!["apply"],
        vec!["apply", bad, "--root", r],
        vec!["apply", "/nonexistent-rtlat-dir/p.toml"],
        vec!["apply", good, "--unpersist", "--root", r],
        vec!["apply", good, "--bogus"],
        vec!["apply", good, "--before", "cnc.service", "--root", r],
        vec![
            "apply",
            good,
            "--persist",
            "--before",
            "not a unit",
            "--root",
            r,
        ],
        vec!["frobnicate"],
    ] {
        let out = rtlat("tune", &args, &dir);
        assert_eq!(out.code(), 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.starts_with("rtlat tune: "),
            "{args:?}: {}",
            out.stderr
        );
    }
}
