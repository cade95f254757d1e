//! `rtlat irq` through the binary: listing, `--away-from` dry run, apply and restore on a
//! writable copy of the constructed hp-t630 tree (IRQ 26, `enp1s0`, runs on its isolated
//! CPU 3), bad input, and on this machine's real `/proc`: a dry run that lists its IRQs, then
//! a real apply and restore, guarded so that every affinity is put back whatever happens.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Outcome, TempDir, as_nobody, is_root};

const QUICK: Duration = Duration::from_secs(20);

use common::{copy_of_hp_t630 as copy_of_tree, hp_t630_tree as tree, same_dir};

fn irq(args: &[&str], cwd: &Path) -> Outcome {
    common::rtlat_command("irq", args, Some(cwd), QUICK)
}

#[test]
fn lists_affinity_effective_affinity_and_names() {
    let (dir, root) = copy_of_tree("irq-list");
    let out = irq(&["--root", root.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["IRQ", "AFFINITY", "EFFECTIVE", "MOVABLE", "NAME"]
    );
    let enp1s0 = lines.iter().find(|l| l.ends_with("enp1s0")).unwrap();
    assert_eq!(
        enp1s0.split_whitespace().collect::<Vec<_>>(),
        ["26", "0-3", "3", "yes", "enp1s0"]
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("ohci_hcd:usb2, ohci_hcd:usb3"))
    );
    assert_eq!(
        *lines.last().unwrap(),
        "# default_smp_affinity f: new IRQs may run on CPUs 0-3"
    );
    assert_eq!(lines.len(), 1 + 10 + 1);
}

#[test]
fn dry_run_prints_every_write_and_changes_nothing() {
    let (dir, root) = copy_of_tree("irq-dry");
    let root_text = root.to_str().unwrap();
    let out = irq(&["--root", root_text, "--away-from", "3"], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let changes: Vec<String> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.replace(root_text, ""))
        .collect();
    let expected: Vec<String> = [0, 1, 8, 9, 16, 18, 25, 26, 27]
        .iter()
        .map(|n| format!("/proc/irq/{n}/smp_affinity_list: 0-3 → 0-2"))
        .collect();
    assert_eq!(changes, expected);
    assert!(out.stdout.contains("# already away from CPU 3: IRQ 28"));
    assert!(
        out.stdout.contains("add --default to make it 7 (CPUs 0-2)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .ends_with("# dry run: nothing changed; add --apply to make these 9 changes\n")
    );
    // irqbalance (PID 512) runs in that tree.
    assert!(
        out.stderr.contains("irqbalance is running"),
        "{}",
        out.stderr
    );
    assert!(same_dir(&tree(), &root), "a dry run writes nothing");
    assert_eq!(dir.names(), ["root"], "and saves nothing");
}

#[test]
fn apply_saves_what_it_changed_and_restore_undoes_it() {
    let (dir, root) = copy_of_tree("irq-apply");
    let root_text = root.to_str().unwrap();
    let save = dir.join("irq-restore.json");
    let save_text = save.to_str().unwrap();
    let out = irq(
        &[
            "--root",
            root_text,
            "--away-from",
            "3",
            "--default",
            "--apply",
            "--save",
            save_text,
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    assert_eq!(read("proc/irq/26/smp_affinity_list"), "0-2\n");
    assert_eq!(read("proc/irq/0/smp_affinity_list"), "0-2\n");
    assert_eq!(read("proc/irq/28/smp_affinity_list"), "0-2\n");
    assert_eq!(read("proc/irq/default_smp_affinity"), "7\n");
    assert!(out.stdout.contains(&format!(
        "{root_text}/proc/irq/26/smp_affinity_list: 0-3 → 0-2\n"
    )));
    assert!(out.stdout.contains(&format!(
        "{root_text}/proc/irq/default_smp_affinity: f → 7\n"
    )));
    assert!(out.stdout.contains(&format!(
        "# saved to {save_text}: undo with `rtlat irq --restore {save_text}`"
    )));

    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(saved["format"], "rtlat-restore-2");
    assert_eq!(saved["command"], "irq");
    assert_eq!(saved["root"], root_text);
    assert_eq!(saved["applied"], true);
    let changes = saved["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 10);
    // What was set, never a path; the IRQ with its handlers.
    assert_eq!(
        changes[7],
        serde_json::json!({"setting": "irq_affinity", "irq": 26, "actions": ["enp1s0"], "old": "0-3", "new": "0-2"})
    );
    assert_eq!(
        changes[9],
        serde_json::json!({"setting": "default_irq_affinity", "old": "f", "new": "7"})
    );
    assert!(saved["hostname"].is_string() && saved["saved_unix"].is_u64());
    assert_eq!(saved["boot_id"], current_boot_id());

    // Saving over an existing restore file is refused: it may be the only record.
    let again = irq(
        &[
            "--root",
            root_text,
            "--away-from",
            "2",
            "--apply",
            "--save",
            save_text,
        ],
        dir.path(),
    );
    assert_eq!(again.code(), 2);
    assert!(again.stderr.contains("the file exists"), "{}", again.stderr);
    assert_eq!(
        read("proc/irq/26/smp_affinity_list"),
        "0-2\n",
        "nothing changed"
    );

    // The tree is named again: the file's root must be the one given.
    let out = irq(&["--restore", save_text], dir.path());
    out.assert_refused(&"no --root", "give --root");
    let out = irq(&["--root", root_text, "--restore", save_text], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains(&format!(
        "{root_text}/proc/irq/26/smp_affinity_list: 0-2 → 0-3\n"
    )));
    assert!(same_dir(&tree(), &root), "every file back as it was");
}

#[test]
fn apply_without_save_names_its_restore_file() {
    let (dir, root) = copy_of_tree("irq-default-save");
    let out = irq(
        &[
            "--root",
            root.to_str().unwrap(),
            "--away-from",
            "2-3",
            "--apply",
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let names = dir.names();
    let file = names
        .iter()
        .find(|n| n.starts_with("rtlat-irq-restore-") && n.ends_with(".json"))
        .unwrap_or_else(|| panic!("no restore file in {names:?}"));
    assert!(
        out.stdout
            .contains(&format!("# saved to {file}: undo with"))
    );
    assert_eq!(
        std::fs::read_to_string(root.join("proc/irq/26/smp_affinity_list")).unwrap(),
        "0-1\n"
    );
    let out = irq(
        &["--root", root.to_str().unwrap(), "--restore", file],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(same_dir(&tree(), &root));
}

#[test]
fn restore_refuses_bad_files_before_writing() {
    let (dir, root) = copy_of_tree("irq-restore-bad");
    let root_text = root.to_str().unwrap();
    let save = dir.join("r.json");
    let out = irq(
        &[
            "--root",
            root_text,
            "--away-from",
            "3",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);

    let restore = |file: &Path| {
        irq(
            &["--root", root_text, "--restore", file.to_str().unwrap()],
            dir.path(),
        )
    };
    // An IRQ that went away since: refused as a whole, IRQ 25 not restored either.
    let gone = root.join("proc/irq/26");
    std::fs::rename(&gone, root.join("proc/irq/gone")).unwrap();
    let out = restore(&save);
    out.assert_refused(&"IRQ 26 gone", "change 8: IRQ 26 no longer exists");
    assert_eq!(
        std::fs::read_to_string(root.join("proc/irq/25/smp_affinity_list")).unwrap(),
        "0-2\n"
    );
    std::fs::rename(root.join("proc/irq/gone"), &gone).unwrap();

    for (content, fragment) in [
        ("not json", "not an rtlat restore file"),
        (
            "{\"format\": \"rtlat-restore-2\"}",
            "not an rtlat restore file",
        ),
    ] {
        let bad = dir.join("bad.json");
        std::fs::write(&bad, content).unwrap();
        restore(&bad).assert_refused(&content, fragment);
    }
    // A path in the file is not read, it is refused.
    let text = std::fs::read_to_string(&save).unwrap().replacen(
        "\"irq\": 26,",
        "\"irq\": 26, \"path\": \"/etc/hostname\",",
        1,
    );
    let evil = dir.join("evil.json");
    std::fs::write(&evil, text).unwrap();
    restore(&evil).assert_refused(&"path", "unknown field `path`");

    // Another command's file.
    let text = std::fs::read_to_string(&save)
        .unwrap()
        .replace("\"command\": \"irq\"", "\"command\": \"cpufreq\"");
    let other = dir.join("other.json");
    std::fs::write(&other, text).unwrap();
    restore(&other).assert_refused(
        &"cpufreq's",
        "saved by `rtlat cpufreq`: restore it with `rtlat cpufreq --restore",
    );

    let out = restore(&save);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(same_dir(&tree(), &root));
}

/// The boot id of the running system.
fn current_boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .unwrap()
        .trim()
        .to_owned()
}

/// A copy of the tree with every IRQ moved away from CPU 3 and the default too, and its
/// restore file `r.json` (readable by everyone).
fn moved(tag: &str) -> (TempDir, PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt as _;
    let (dir, root) = copy_of_tree(tag);
    let save = dir.join("r.json");
    let out = irq(
        &[
            "--root",
            root.to_str().unwrap(),
            "--away-from",
            "3",
            "--default",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    std::fs::set_permissions(&save, std::fs::Permissions::from_mode(0o644)).unwrap();
    (dir, root, save)
}

/// The tree's files as they are (to check that a refused restore wrote nothing).
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                dirs.push(entry.path());
            } else if kind.is_file() {
                files.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_restore_file_cannot_make_root_write_through_a_link() {
    // Issue 10, item 1: a file naming its own root, with a link in that tree to a file
    // elsewhere, made root overwrite that file with the restore file's "old" value.
    let (dir, root, save) = moved("irq-link");
    let root_text = root.to_str().unwrap();
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    let affinity = root.join("proc/irq/26/smp_affinity_list");
    std::fs::remove_file(&affinity).unwrap();
    std::os::unix::fs::symlink(&victim, &affinity).unwrap();
    let before = snapshot(&root);

    // The file's root alone is not enough: it must be the --root given (default /).
    let out = irq(&["--restore", save.to_str().unwrap()], dir.path());
    out.assert_refused(
        &"root from the file",
        &format!("made under the root {root_text}, and this restore acts on /"),
    );
    // Given, the link is refused, and so is the whole file.
    let out = irq(
        &["--root", root_text, "--restore", save.to_str().unwrap()],
        dir.path(),
    );
    out.assert_refused(&"link", "is a symbolic link");
    assert!(out.stderr.contains("change 8: refusing "), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(snapshot(&root), before, "nothing written");

    // A link higher up, to a folder elsewhere: the same.
    std::fs::remove_file(&affinity).unwrap();
    let elsewhere = dir.join("elsewhere");
    std::fs::rename(root.join("proc/irq/26"), &elsewhere).unwrap();
    std::fs::write(elsewhere.join("smp_affinity_list"), "precious\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("proc/irq/26")).unwrap();
    let out = irq(
        &["--root", root_text, "--restore", save.to_str().unwrap()],
        dir.path(),
    );
    out.assert_refused(
        &"folder link",
        "proc/irq/26 is a symbolic link where the kernel has none",
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("smp_affinity_list")).unwrap(),
        "precious\n"
    );

    // And the old format, whose files named their paths, is refused with what to do.
    let old = dir.join("old.json");
    std::fs::write(
        &old,
        format!(
            "{{\"format\": \"rtlat-restore-1\", \"command\": \"irq\", \"root\": \"{root_text}\", \"changes\": [{{\"path\": \"/proc/irq/24/smp_affinity_list\", \"old\": \"x\", \"new\": \"0\"}}]}}"
        ),
    )
    .unwrap();
    let out = irq(
        &["--root", root_text, "--restore", old.to_str().unwrap()],
        dir.path(),
    );
    out.assert_refused(&"format 1", "older rtlat (format rtlat-restore-1)");
}

#[test]
fn a_restore_file_is_checked_whole_against_this_machine_and_boot() {
    // Issue 10, item 15: no boot check, no IRQ names, the host name alone, and a bad value
    // applied the writes before it.
    let (dir, root, save) = moved("irq-whole");
    let root_text = root.to_str().unwrap();
    let text = std::fs::read_to_string(&save).unwrap();
    let before = snapshot(&root);
    let restore = |name: &str, content: String| {
        let file = dir.join(name);
        std::fs::write(&file, content).unwrap();
        irq(
            &["--root", root_text, "--restore", file.to_str().unwrap()],
            dir.path(),
        )
    };
    let boot = current_boot_id();
    for (name, content, fragment) in [
        (
            "boot.json",
            text.replace(&boot, "00000000-0000-0000-0000-000000000000"),
            "saved before the machine last booted",
        ),
        (
            "host.json",
            text.replacen("\"hostname\": \"", "\"hostname\": \"x", 1),
            "saved on machine `x",
        ),
        // The last of the ten values: nothing before it is written either.
        (
            "value.json",
            text.replacen("\"old\": \"f\"", "\"old\": \"1ff\"", 1),
            "/proc/irq/default_smp_affinity: 0-8 names CPUs this machine does not have (4-8; its CPUs are 0-3)",
        ),
        (
            "cpu.json",
            text.replacen("\"old\": \"0-3\"", "\"old\": \"0-3,7\"", 1),
            "proc/irq/0/smp_affinity_list: 0-3,7 names CPUs this machine does not have (7; its CPUs are 0-3)",
        ),
        (
            "word.json",
            text.replacen("\"old\": \"0-3\"", "\"old\": \"0-3 evil\"", 1),
            "change 1: not a valid IRQ affinity",
        ),
    ] {
        let out = restore(name, content);
        out.assert_refused(&name, fragment);
        assert_eq!(snapshot(&root), before, "{name}: nothing written");
    }
    assert!(text.contains(&boot), "the boot is recorded");

    // The IRQ number now another device's.
    let interrupts = root.join("proc/interrupts");
    let lines = std::fs::read_to_string(&interrupts).unwrap();
    std::fs::write(&interrupts, lines.replace("enp1s0", "nvme0q1")).unwrap();
    restore("r2.json", text.clone())
        .assert_refused(&"actions", "IRQ 26 was `enp1s0` and is now `nvme0q1`");
    std::fs::write(&interrupts, &lines).unwrap();

    // A cloned image: same host name, another /etc/machine-id under the root.
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(
        root.join("etc/machine-id"),
        "0123456789abcdef0123456789abcdef\n",
    )
    .unwrap();
    restore("r3.json", text.clone())
        .assert_refused(&"machine-id", "machine id 0123456789abcdef0123456789abcdef");
    std::fs::remove_file(root.join("etc/machine-id")).unwrap();

    let out = restore("r4.json", text);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(same_dir(&tree(), &root));
}

#[test]
fn an_unprivileged_restore_is_refused_up_front_in_one_line() {
    // Issue 10, item 16: as a user who may not write the files, every write was tried and
    // each failure printed.
    assert!(
        is_root(),
        "this test switches to user nobody and needs root"
    );
    let (_dir, root, save) = moved("irq-restore-nobody");
    let before = snapshot(&root);
    let out = as_nobody(&[
        "irq",
        "--root",
        root.to_str().unwrap(),
        "--restore",
        save.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("proc/irq/0/smp_affinity_list needs root (the file is root's, mode 644")
            && err.ends_with("nothing was changed\n"),
        "{err}"
    );
    assert_eq!(snapshot(&root), before);
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_option() {
    let (dir, root) = copy_of_tree("irq-bad");
    let root_text = root.to_str().unwrap();
    for (args, fragment) in [
        (
            vec!["--away-from", "7"],
            "invalid value '7' for --away-from: CPU 7 is not online (online CPUs: 0-3)",
        ),
        (
            vec!["--away-from", "1,,2"],
            "invalid value '1,,2' for --away-from: the CPU list has an empty element",
        ),
        (
            vec!["--away-from", "x"],
            "invalid value 'x' for --away-from: 'x' is not a CPU number or range",
        ),
        (
            vec!["--away-from", "0-3"],
            "leaves no online CPU for them (online CPUs: 0-3)",
        ),
        (
            vec!["--away-from"],
            "option --away-from needs a value: expected a CPU list",
        ),
        (
            vec!["--away-from", "3", "--save", "x.json"],
            "--save has no effect without --apply",
        ),
        (vec!["--apply"], "--apply has no effect without --away-from"),
        (vec!["--frob"], "unknown option '--frob'"),
    ] {
        let mut all = vec!["--root", root_text];
        all.extend(args.iter().copied());
        let out = irq(&all, dir.path());
        out.assert_refused(&args, fragment);
        assert!(out.stderr.starts_with("rtlat irq: "), "{}", out.stderr);
    }
    let out = irq(&["--root", "/nonexistent-rtlat-root"], dir.path());
    assert_eq!(out.code(), 2);
    assert!(same_dir(&tree(), &root));
}

// ---- this machine's /proc ----------------------------------------------------------------

/// Every IRQ's `smp_affinity_list` and the default affinity, as found; writes them all back
/// when dropped, whatever the test did or where it panicked.
struct RealIrqGuard {
    saved: Vec<(PathBuf, String)>,
}

impl RealIrqGuard {
    fn take() -> RealIrqGuard {
        let mut saved = Vec::new();
        for entry in std::fs::read_dir("/proc/irq").unwrap() {
            let dir = entry.unwrap().path();
            let file = dir.join("smp_affinity_list");
            if let Ok(text) = std::fs::read_to_string(&file) {
                saved.push((file, text.trim().to_owned()));
            }
        }
        let default = PathBuf::from("/proc/irq/default_smp_affinity");
        saved.push((
            default.clone(),
            std::fs::read_to_string(&default).unwrap().trim().to_owned(),
        ));
        RealIrqGuard { saved }
    }

    fn changed(&self) -> Vec<String> {
        self.saved
            .iter()
            .filter(|(path, text)| current(path).as_deref() != Some(text.as_str()))
            .map(|(path, _)| path.display().to_string())
            .collect()
    }
}

impl Drop for RealIrqGuard {
    fn drop(&mut self) {
        for (path, text) in &self.saved {
            if current(path).as_deref() != Some(text.as_str()) {
                let _ = std::fs::write(path, format!("{text}\n"));
            }
        }
    }
}

fn current(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.trim().to_owned())
}

/// The highest online CPU, which IRQs are moved away from (this VM has CPUs 0-1).
fn last_online_cpu() -> String {
    common::online_cpus().last().unwrap().to_string()
}

#[test]
fn real_irqs_dry_run_then_apply_and_restore() {
    assert!(
        is_root(),
        "this test moves the machine's IRQs and needs root"
    );
    let cpus = common::online_cpus();
    assert!(
        cpus.len() >= 2,
        "moving IRQs away from a CPU needs two online CPUs"
    );
    let cpu = last_online_cpu();
    let dir = TempDir::new("irq-real");

    let _serial = common::measuring(); // one test at a time on the real /proc/irq
    let guard = RealIrqGuard::take();
    let out = irq(&["--away-from", &cpu], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let planned: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("/proc/irq/"))
        .collect();
    assert!(
        !planned.is_empty(),
        "no IRQ to move on this machine:\n{}",
        out.stdout
    );
    for line in &planned {
        assert!(
            line.contains("/smp_affinity_list: ")
                || line.starts_with("/proc/irq/default_smp_affinity"),
            "{line}"
        );
        assert!(line.contains(" → "), "{line}");
    }
    assert!(
        guard.changed().is_empty(),
        "the dry run changed {:?}",
        guard.changed()
    );

    // For real: applied, saved, restored; the guard puts back anything the test leaves.
    let save = dir.join("real.json");
    let out = irq(
        &[
            "--away-from",
            &cpu,
            "--default",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}\n{}", out.stdout, out.stderr);
    for line in out
        .stdout
        .lines()
        .filter(|l| l.starts_with("/proc/irq/") && l.contains("smp_affinity_list"))
    {
        let (path, values) = line.split_once(": ").unwrap();
        let new = values.split(" → ").nth(1).unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap().trim(), new, "{line}");
        assert!(
            !rtlat_linux_cpus(new).contains(&cpu.parse().unwrap()),
            "{line}"
        );
    }
    assert!(!guard.changed().is_empty());
    let out = irq(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        guard.changed().is_empty(),
        "not restored: {:?}",
        guard.changed()
    );
    drop(guard);
}

fn rtlat_linux_cpus(list: &str) -> Vec<usize> {
    rtlat_linux::cpuset::CpuSet::parse(list)
        .unwrap()
        .iter()
        .collect()
}

#[test]
fn without_privilege_the_error_names_root_and_nothing_changes() {
    assert!(
        is_root(),
        "this test switches to user nobody and needs root"
    );
    let _serial = common::measuring(); // one test at a time on the real /proc/irq
    let guard = RealIrqGuard::take();
    let cpu = last_online_cpu();
    let out = as_nobody(&["irq", "--away-from", &cpu, "--apply"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("rtlat irq: writing /proc/irq/")
            && err.contains("smp_affinity_list needs root")
            && err.ends_with("nothing was changed\n"),
        "{err}"
    );
    assert!(guard.changed().is_empty(), "{:?}", guard.changed());
}
