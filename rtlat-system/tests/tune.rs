//! The write side (`rtlat_system::tune`) on writable copies of the captured and constructed
//! machine trees in `tests/data/`: IRQ moves, governors and fixed frequencies planned, made,
//! held and undone, restore files saved and refused. Nothing here writes the live system.

use std::path::{Path, PathBuf};

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::TuneError;
use rtlat_system::facts::Facts;
use rtlat_system::tune::{self, Change, Hold, RestoreFile, cpufreq, irq, transaction};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A writable copy of a data tree, removed on drop.
struct Copy {
    root: PathBuf,
}

impl Copy {
    fn of(name: &str, tag: &str) -> Copy {
        let root =
            std::env::temp_dir().join(format!("rtlat-tune-{name}-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        copy_dir(&data(name), &root);
        Copy { root }
    }

    fn facts(&self) -> Facts {
        Facts::at(&self.root)
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap()
    }

    /// Whether every file is as in the original tree.
    fn same_as(&self, name: &str) -> bool {
        same_dir(&data(name), &self.root)
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    std::fs::read_dir(a).unwrap().all(|entry| {
        let entry = entry.unwrap();
        let other = b.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            same_dir(&entry.path(), &other)
        } else {
            std::fs::read(entry.path()).ok() == std::fs::read(&other).ok()
        }
    })
}

fn cpus(list: &str) -> CpuSet {
    CpuSet::parse(list).unwrap()
}

#[test]
fn irqs_leave_the_isolated_cpu_of_the_hp_t630() {
    let tree = Copy::of("hp-t630", "irq");
    let plan = irq::away_from(&tree.facts(), &cpus("3")).unwrap();
    assert_eq!(plan.housekeeping, cpus("0-2"));
    let moved: Vec<u32> = plan.moves.iter().map(|m| m.irq.irq).collect();
    assert_eq!(moved, [0, 1, 8, 9, 16, 18, 25, 26, 27]);
    let enp1s0 = plan.moves.iter().find(|m| m.irq.irq == 26).unwrap();
    assert_eq!(enp1s0.irq.name(), "enp1s0");
    assert_eq!(
        enp1s0.change.target,
        tune::Target::IrqAffinity {
            irq: 26,
            actions: vec!["enp1s0".into()]
        },
        "the IRQ's handlers are recorded, to recognise it"
    );
    assert_eq!(
        enp1s0.change.to_string(),
        "/proc/irq/26/smp_affinity_list: 0-3 → 0-2"
    );
    let away: Vec<u32> = plan.already_away.iter().map(|i| i.irq).collect();
    assert_eq!(away, [28], "xhci_hcd is on 0-2 already");
    assert!(plan.fixed.is_empty());
    assert_eq!(plan.default_affinity, Some(cpus("0-3")));
    assert_eq!(
        plan.default_change,
        Some(Change::new(tune::Target::DefaultIrqAffinity, "f", "7"))
    );

    let mut changes: Vec<Change> = plan.moves.iter().map(|m| m.change.clone()).collect();
    changes.extend(plan.default_change.clone());
    let applied = transaction::apply(&tree.root, &changes, |_, e| irq::is_unmovable(e)).unwrap();
    assert_eq!(applied.done, changes);
    assert_eq!(tree.read("proc/irq/26/smp_affinity_list"), "0-2\n");
    assert_eq!(tree.read("proc/irq/default_smp_affinity"), "7\n");
    // Read back, the machine has nothing left on CPU 3.
    let again = irq::away_from(&tree.facts(), &cpus("3")).unwrap();
    assert!(again.moves.is_empty() && again.default_change.is_none());

    let (undone, failed) = transaction::undo(&tree.root, &applied.done);
    assert_eq!(undone.len(), changes.len());
    assert!(failed.is_empty());
    assert!(tree.same_as("hp-t630"), "every file back as it was");
}

#[test]
fn an_irq_with_nothing_left_goes_to_the_housekeeping_cpus() {
    let tree = Copy::of("hp-t630", "housekeeping");
    std::fs::write(tree.root.join("proc/irq/26/smp_affinity_list"), "3\n").unwrap();
    let plan = irq::away_from(&tree.facts(), &cpus("2-3")).unwrap();
    let enp1s0 = plan.moves.iter().find(|m| m.irq.irq == 26).unwrap();
    assert_eq!(enp1s0.change.new, "0-1");
    let xhci = plan.moves.iter().find(|m| m.irq.irq == 28).unwrap();
    assert_eq!(xhci.change.new, "0-1", "0-2 loses 2");

    let err = irq::away_from(&tree.facts(), &cpus("0-3")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "moving IRQs away from CPUs 0-3 leaves no online CPU for them (online CPUs: 0-3): keep at least one housekeeping CPU"
    );
}

#[test]
fn read_only_affinity_files_are_fixed_irqs() {
    use std::os::unix::fs::PermissionsExt as _;
    let tree = Copy::of("hp-t630", "fixed");
    let file = tree.root.join("proc/irq/0/smp_affinity_list");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let plan = irq::away_from(&tree.facts(), &cpus("3")).unwrap();
    let fixed: Vec<u32> = plan.fixed.iter().map(|i| i.irq).collect();
    assert_eq!(fixed, [0]);
    assert!(plan.moves.iter().all(|m| m.irq.irq != 0));
    assert!(irq::is_unmovable(&TuneError::WriteRefused {
        path: file,
        value: "0-2".into(),
        errno: rtlat_linux::Errno::EIO,
    }));
}

#[test]
fn governor_and_frequency_on_the_hp_t630() {
    let tree = Copy::of("hp-t630", "cpufreq");
    let facts = tree.facts();
    let changes = cpufreq::governor_changes(&facts, &cpus("2-3"), "performance").unwrap();
    assert_eq!(
        changes.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor: ondemand → performance",
            "/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor: ondemand → performance",
        ]
    );
    let err = cpufreq::governor_changes(&facts, &cpus("0"), "turbo").unwrap_err();
    assert_eq!(
        err.to_string(),
        "CPU 0 has no cpufreq governor `turbo`: its governors are conservative ondemand userspace powersave performance schedutil"
    );

    // 1.6 GHz: the ceiling comes down first, then the floor goes up.
    let changes = cpufreq::frequency_changes(&facts, &cpus("3"), 1_600_000).unwrap();
    let files: Vec<(&str, &str, &str)> = changes
        .iter()
        .map(|c| match &c.target {
            tune::Target::Cpufreq { setting, .. } => {
                (setting.file_name(), c.old.as_str(), c.new.as_str())
            }
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        files,
        [
            ("scaling_max_freq", "2000000", "1600000"),
            ("scaling_min_freq", "1200000", "1600000"),
        ]
    );
    // Below the floor: the floor comes down first.
    std::fs::write(
        tree.root
            .join("sys/devices/system/cpu/cpu3/cpufreq/scaling_min_freq"),
        "1800000\n",
    )
    .unwrap();
    let changes = cpufreq::frequency_changes(&facts, &cpus("3"), 1_200_000).unwrap();
    assert!(
        changes[0]
            .to_string()
            .contains("scaling_min_freq: 1800000 → 1200000")
    );
    assert!(
        changes[1]
            .to_string()
            .contains("scaling_max_freq: 2000000 → 1200000")
    );

    let err = cpufreq::frequency_changes(&facts, &cpus("0"), 1_700_000).unwrap_err();
    assert_eq!(
        err.to_string(),
        "CPU 0 does not offer 1.7GHz (1700000 kHz): it offers 2GHz, 1.8GHz, 1.6GHz, 1.2GHz"
    );
    // Without a frequency table, the hardware range decides.
    std::fs::remove_file(
        tree.root
            .join("sys/devices/system/cpu/cpu1/cpufreq/scaling_available_frequencies"),
    )
    .unwrap();
    assert!(cpufreq::frequency_changes(&facts, &cpus("1"), 1_700_000).is_ok());
    let err = cpufreq::frequency_changes(&facts, &cpus("1"), 2_100_000).unwrap_err();
    assert!(
        err.to_string().ends_with("it runs from 1.2GHz to 2GHz"),
        "{err}"
    );
}

#[test]
fn no_cpufreq_is_said_plainly() {
    // The captured VM has no cpufreq at all; the live VM neither (checked through the CLI).
    let facts = Facts::at(data("vm-2cpu"));
    let err = cpufreq::governor_changes(&facts, &cpus("0-1"), "performance").unwrap_err();
    let path = data("vm-2cpu").join("sys/devices/system/cpu/cpu0/cpufreq");
    assert_eq!(
        err.to_string(),
        format!(
            "no cpufreq on this machine ({} missing): nothing to set",
            path.display()
        )
    );
    // Only one CPU without it: that CPU's directory is named, not "no cpufreq".
    let tree = Copy::of("hp-t630", "partial");
    std::fs::remove_dir_all(tree.root.join("sys/devices/system/cpu/cpu2/cpufreq")).unwrap();
    let err = cpufreq::governor_changes(&tree.facts(), &cpus("1-2"), "performance").unwrap_err();
    assert!(
        err.to_string().contains("cpu2/cpufreq does not exist"),
        "{err}"
    );
}

#[test]
fn a_hold_restores_the_governor_when_dropped() {
    let tree = Copy::of("hp-t630", "hold");
    let changes = cpufreq::governor_changes(&tree.facts(), &cpus("0-3"), "performance").unwrap();
    let governor = "sys/devices/system/cpu/cpu2/cpufreq/scaling_governor";
    {
        let hold = Hold::apply(&tree.root, changes).unwrap();
        assert_eq!(hold.changes().len(), 4);
        assert_eq!(tree.read(governor), "performance\n");
    }
    assert!(tree.same_as("hp-t630"));

    // A change that fails undoes the ones made before it.
    std::fs::remove_file(
        tree.root
            .join("sys/devices/system/cpu/cpu3/cpufreq/scaling_governor"),
    )
    .unwrap();
    let mut changes: Vec<Change> =
        cpufreq::governor_changes(&tree.facts(), &cpus("0-2"), "performance").unwrap();
    changes.push(Change::new(
        tune::Target::Cpufreq {
            cpu: 3,
            setting: tune::CpufreqSetting::Governor,
        },
        "ondemand",
        "performance",
    ));
    let failed = Hold::apply(&tree.root, changes).unwrap_err();
    assert_eq!(failed.undone.len(), 3);
    assert_eq!(tree.read(governor), "ondemand\n");
}

#[test]
fn restore_files_undo_and_refuse_what_is_gone() {
    let tree = Copy::of("hp-t630", "restore");
    let plan = irq::away_from(&tree.facts(), &cpus("3")).unwrap();
    let changes: Vec<Change> = plan.moves.iter().map(|m| m.change.clone()).collect();
    transaction::apply(&tree.root, &changes, |_, _| false).unwrap();
    let mut file = RestoreFile::new("irq", &["rtlat".into(), "irq".into()], &tree.root, changes);
    file.applied = true;
    let text = file.to_json();
    let path = tree.root.join("restore.json");
    std::fs::write(&path, &text).unwrap();

    let read = RestoreFile::read(&path).unwrap();
    assert_eq!(read, file);
    read.check(&path, &tree.root).unwrap();
    let restored = read.restore();
    assert_eq!(restored.len(), 9);
    assert!(restored.iter().all(|r| r.result.is_ok()));
    assert_eq!(
        restored[0].change.to_string(),
        "/proc/irq/27/smp_affinity_list: 0-2 → 0-3"
    );
    std::fs::remove_file(&path).unwrap();
    assert!(tree.same_as("hp-t630"));

    // An IRQ gone since: refused, naming it, before anything is written.
    std::fs::remove_dir_all(tree.root.join("proc/irq/26")).unwrap();
    let err = read.check(&path, &tree.root).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("change 8: IRQ 26 no longer exists"),
        "{err}"
    );

    // Not a restore file.
    std::fs::write(&path, "{\"format\": \"something else\"}").unwrap();
    let err = RestoreFile::read(&path).unwrap_err();
    assert!(
        err.to_string().contains("not an rtlat restore file"),
        "{err}"
    );
}

/// A restore file of the IRQ moves away from CPU 3 on a copy of the hp-t630, made and saved.
fn moved_and_saved(tree: &Copy) -> RestoreFile {
    let plan = irq::away_from(&tree.facts(), &cpus("3")).unwrap();
    let mut changes: Vec<Change> = plan.moves.iter().map(|m| m.change.clone()).collect();
    changes.extend(plan.default_change);
    transaction::apply(&tree.root, &changes, |_, _| false).unwrap();
    let mut file = RestoreFile::new("irq", &["rtlat".into(), "irq".into()], &tree.root, changes);
    file.applied = true;
    RestoreFile::parse(&file.to_json()).unwrap()
}

#[test]
fn a_restore_file_checks_every_value_against_the_machine() {
    let tree = Copy::of("hp-t630", "values");
    let path = Path::new("r.json");
    let file = moved_and_saved(&tree);
    file.check(path, &tree.root).unwrap();
    for (change, old, fragment) in [
        (
            7,
            "0-9",
            "0-9 names CPUs this machine does not have (4-9; its CPUs are 0-3)",
        ),
        (
            9,
            "ff",
            "0-7 names CPUs this machine does not have (4-7; its CPUs are 0-3)",
        ),
        (7, "", "not a valid IRQ affinity"),
    ] {
        let mut bad = file.clone();
        bad.changes[change].old = old.into();
        let err = RestoreFile::parse(&bad.to_json())
            .map_err(|e| e.to_string())
            .and_then(|bad| bad.check(path, &tree.root).map_err(|e| e.to_string()))
            .unwrap_err();
        assert!(err.contains(fragment), "{old}: {err}");
    }
}

#[test]
fn a_restore_file_refuses_an_irq_that_is_another_devices_now() {
    let tree = Copy::of("hp-t630", "actions");
    let path = Path::new("r.json");
    let file = moved_and_saved(&tree);
    let interrupts = tree.root.join("proc/interrupts");
    let text = std::fs::read_to_string(&interrupts).unwrap();
    std::fs::write(&interrupts, text.replace("enp1s0", "nvme0q1")).unwrap();
    let err = file.check(path, &tree.root).unwrap_err().to_string();
    assert!(
        err.ends_with(
            "change 8: IRQ 26 was `enp1s0` and is now `nvme0q1`: it is another device's now"
        ),
        "{err}"
    );
    // The IRQ without a handler any more: the same.
    std::fs::write(&interrupts, text.replace("enp1s0", "")).unwrap();
    let err = file.check(path, &tree.root).unwrap_err().to_string();
    assert!(err.contains("is now without a handler"), "{err}");
}

#[test]
fn a_restore_file_never_writes_through_a_link() {
    let tree = Copy::of("hp-t630", "link");
    let path = Path::new("r.json");
    let file = moved_and_saved(&tree);
    let victim = tree.root.join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    let affinity = tree.root.join("proc/irq/26/smp_affinity_list");
    std::fs::remove_file(&affinity).unwrap();
    std::os::unix::fs::symlink(&victim, &affinity).unwrap();
    let err = file.check(path, &tree.root).unwrap_err().to_string();
    assert!(
        err.contains("change 8: refusing ") && err.contains("it is a symbolic link"),
        "{err}"
    );
    // Even unchecked, the write is refused.
    let restored = file.restore();
    let irq26 = restored
        .iter()
        .find(|r| r.change.to_string().starts_with("/proc/irq/26/"))
        .unwrap();
    assert!(irq26.result.is_err(), "{:?}", irq26.result);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
}
