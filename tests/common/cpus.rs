//! This machine's CPUs, and runs that see a fake CPU tree.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Running, TempDir, copy_dir, hp_t630_tree, is_root, rtlat, spawn};

/// The CPUs listed in /sys/devices/system/cpu/online.
pub fn online_cpus() -> Vec<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .expect("read /sys/devices/system/cpu/online");
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// The lowest CPU number that is not online.
pub fn offline_cpu() -> usize {
    let online = online_cpus();
    (0..)
        .find(|c| !online.contains(c))
        .expect("some CPU is offline")
}

/// A stand-in for `/sys/devices/system/cpu` in `dir/cpu`: this machine's online and possible
/// CPU lists, and for each online CPU the cpufreq files of the hp-t630's CPU 0 (`ondemand`,
/// 1.2 to 2 GHz, 1.6 GHz among its frequencies).
pub fn fake_cpu_dir(dir: &TempDir) -> PathBuf {
    let fake = dir.join("cpu");
    std::fs::create_dir_all(&fake).unwrap();
    for list in ["online", "possible"] {
        let text = std::fs::read_to_string(format!("/sys/devices/system/cpu/{list}")).unwrap();
        std::fs::write(fake.join(list), text).unwrap();
    }
    for cpu in online_cpus() {
        copy_dir(
            &hp_t630_tree().join("sys/devices/system/cpu/cpu0/cpufreq"),
            &fake.join(format!("cpu{cpu}/cpufreq")),
        );
    }
    fake
}

/// `rtlat run ARGS` in a private mount namespace where `fake` is `/sys/devices/system/cpu`.
pub fn spawn_with_fake_cpus(fake: &Path, args: &[&str]) -> Running {
    assert!(is_root(), "the namespace tests need root (unshare --mount)");
    let script = format!(
        "mount --bind '{}' /sys/devices/system/cpu && exec '{}' run \"$@\"",
        fake.display(),
        rtlat().display()
    );
    let mut all = vec![
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        &script,
        "sh",
    ];
    all.extend_from_slice(args);
    spawn(Path::new("unshare"), &all, None)
}

/// The pid of the one child of `pid` (unshare forks the namespaced shell, which execs rtlat),
/// or `pid` itself if it has none (after 20 s).
pub fn child_of(pid: i32) -> i32 {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let children =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        if let Some(child) = children.split_whitespace().next() {
            return child.parse().unwrap();
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
        if exe.file_name().is_some_and(|n| n == "rtlat") || Instant::now() > until {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
