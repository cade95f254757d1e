//! Captures the files `rtlat_system::facts` reads from this machine into a tree that
//! `Facts::at(tree)` reads back: how `tests/data/vm-2cpu/` and `tests/data/vm-kvm-2cpu/` were
//! made.
//!
//! ```sh
//! RTLAT_CAPTURE_DIR=rtlat-system/tests/data/NAME \
//!     cargo test -p rtlat-system --test capture -- --ignored --exact capture_this_machine
//! ```
//!
//! Only regular files are written (no empty directories), and one kind of symbolic link: a
//! captured process's `fd/N` that links to `/dev/cpu_dma_latency`, kept as the same link
//! (facts only `readlink` it, never follow it). A file this machine does not have is simply
//! not in the tree, which is how "absent" is captured. Of the processes, only a handful are
//! taken: PID 1, `kthreadd` (PID 2), a few per-CPU kernel threads (`ksoftirqd/0`,
//! `rcu_preempt` or `rcu_sched`, `migration/0`, the first `irq/…` thread), every process
//! holding `/dev/cpu_dma_latency` open, and this test process, with a thread named
//! `my (weird) comm` (`capture_this_machine` also holds `/dev/cpu_dma_latency` at 0 while it
//! captures, as `rtlat run` does, so that the tree shows a holder).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rtlat_system::facts::Facts;

/// Files read as they are, relative to the root.
const FIXED: &[&str] = &[
    "proc/cmdline",
    "proc/version",
    "proc/interrupts",
    "proc/swaps",
    "proc/irq/default_smp_affinity",
    "proc/sys/kernel/osrelease",
    "proc/sys/kernel/version",
    "proc/sys/kernel/sched_rt_runtime_us",
    "proc/sys/kernel/sched_rt_period_us",
    "proc/sys/kernel/timer_migration",
    "proc/sys/kernel/nmi_watchdog",
    "proc/sys/kernel/watchdog",
    "proc/sys/kernel/soft_watchdog",
    "proc/sys/kernel/watchdog_cpumask",
    "sys/kernel/realtime",
    "sys/kernel/mm/transparent_hugepage/enabled",
    "sys/kernel/mm/transparent_hugepage/defrag",
    "sys/kernel/mm/ksm/run",
    "sys/devices/virtual/workqueue/cpumask",
    "sys/devices/system/cpu/online",
    "sys/devices/system/cpu/possible",
    "sys/devices/system/cpu/isolated",
    "sys/devices/system/cpu/nohz_full",
    "sys/devices/system/cpu/cpuidle/current_driver",
    "sys/devices/system/cpu/cpuidle/current_governor_ro",
    "sys/devices/system/cpu/cpuidle/current_governor",
    "sys/devices/system/clocksource/clocksource0/current_clocksource",
    "sys/devices/system/clocksource/clocksource0/available_clocksource",
    "proc/cpuinfo",
    "proc/stat",
    "sys/class/dmi/id/sys_vendor",
    "sys/class/dmi/id/product_name",
    "sys/hypervisor/type",
    "sys/module/haltpoll/parameters/guest_halt_poll_ns",
    "sys/module/cpuidle_haltpoll/parameters/force",
    "dev/cpu_dma_latency",
];

/// The one file whose holders are captured with their `fd/N` links.
const HELD: &str = "/dev/cpu_dma_latency";

/// The files of `cpuN/cpufreq/`.
const CPUFREQ: &[&str] = &[
    "scaling_governor",
    "scaling_available_governors",
    "scaling_driver",
    "scaling_min_freq",
    "scaling_max_freq",
    "scaling_cur_freq",
    "cpuinfo_min_freq",
    "cpuinfo_max_freq",
    "scaling_available_frequencies",
    "related_cpus",
];

/// The files of `cpuN/cpuidle/stateK/`.
const CPUIDLE_STATE: &[&str] = &["name", "desc", "latency", "residency", "disable"];

/// The files of `/proc/irq/N/`.
const IRQ: &[&str] = &["smp_affinity_list", "effective_affinity_list"];

/// Kernel threads taken besides `kthreadd`: the first whose name matches each of these.
const KERNEL_THREADS: &[&[&str]] = &[
    &["ksoftirqd/0"],
    &["rcu_preempt", "rcu_sched"],
    &["migration/0"],
];

/// The numbered entries `prefix<N>` of a directory.
fn numbered(dir: &Path, prefix: &str) -> Vec<u32> {
    let mut numbers: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix(prefix)?.parse().ok()
        })
        .collect();
    numbers.sort_unstable();
    numbers
}

/// The relative paths to capture from `root`, keeping the processes `pids`.
fn paths_to_capture(root: &Path, pids: &BTreeSet<u32>) -> Vec<String> {
    let mut paths: Vec<String> = FIXED.iter().map(|p| (*p).to_owned()).collect();
    let cpu_dir = root.join("sys/devices/system/cpu");
    for cpu in numbered(&cpu_dir, "cpu") {
        for file in CPUFREQ {
            paths.push(format!("sys/devices/system/cpu/cpu{cpu}/cpufreq/{file}"));
        }
        let idle = format!("sys/devices/system/cpu/cpu{cpu}/cpuidle");
        for state in numbered(&root.join(&idle), "state") {
            for file in CPUIDLE_STATE {
                paths.push(format!("{idle}/state{state}/{file}"));
            }
        }
    }
    for irq in numbered(&root.join("proc/irq"), "") {
        for file in IRQ {
            paths.push(format!("proc/irq/{irq}/{file}"));
        }
    }
    for pid in pids {
        paths.push(format!("proc/{pid}/stat"));
        paths.push(format!("proc/{pid}/status"));
        for tid in numbered(&root.join(format!("proc/{pid}/task")), "") {
            paths.push(format!("proc/{pid}/task/{tid}/stat"));
            paths.push(format!("proc/{pid}/task/{tid}/status"));
        }
    }
    paths
}

/// PID 1, kthreadd, the chosen kernel threads, the first `irq/` thread, and this process.
fn pids_to_capture(facts: &Facts) -> BTreeSet<u32> {
    let mut pids: BTreeSet<u32> = [1, 2, std::process::id()].into();
    let stats: Vec<_> = facts
        .pids()
        .unwrap()
        .into_iter()
        .filter_map(|pid| facts.process_stat(pid).ok())
        .collect();
    for names in KERNEL_THREADS {
        if let Some(stat) = stats.iter().find(|s| names.contains(&s.comm.as_str())) {
            pids.insert(stat.pid);
        }
    }
    if let Some(stat) = stats.iter().find(|s| s.comm.starts_with("irq/")) {
        pids.insert(stat.pid);
    }
    pids.extend(facts.holders_of(HELD).unwrap().pids);
    pids
}

/// Recreates under `dest` the `fd/N` links of `pids` that point to [`HELD`]; returns their
/// relative paths.
fn copy_held_links(root: &Path, dest: &Path, pids: &BTreeSet<u32>) -> Vec<String> {
    let mut copied = Vec::new();
    for pid in pids {
        let fd_dir = format!("proc/{pid}/fd");
        for fd in numbered(&root.join(&fd_dir), "") {
            let relative = format!("{fd_dir}/{fd}");
            let Ok(target) = std::fs::read_link(root.join(&relative)) else {
                continue;
            };
            if target != Path::new(HELD) {
                continue;
            }
            let link = dest.join(&relative);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(&target, &link).unwrap();
            copied.push(relative);
        }
    }
    copied
}

/// Copies every readable file of `paths` from `root` to `dest`; returns the paths copied.
fn copy_files(root: &Path, dest: &Path, paths: &[String]) -> Vec<String> {
    let mut copied = Vec::new();
    for relative in paths {
        let Ok(bytes) = std::fs::read(root.join(relative)) else {
            continue; // absent here (or unreadable): absent in the tree
        };
        let target = dest.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, bytes).unwrap();
        copied.push(relative.clone());
    }
    copied
}

/// Captures this machine into `dest` while a thread named `my (weird) comm` is alive.
fn capture(dest: &Path) -> Vec<String> {
    let (stop, wait) = mpsc::channel::<()>();
    let (ready, started) = mpsc::channel::<()>();
    let weird = std::thread::Builder::new()
        .name("my (weird) comm".into())
        .spawn(move || {
            ready.send(()).unwrap();
            let _ = wait.recv();
        })
        .unwrap();
    started.recv().unwrap();
    let root = Path::new("/");
    let pids = pids_to_capture(&Facts::live());
    let mut copied = copy_files(root, dest, &paths_to_capture(root, &pids));
    copied.extend(copy_held_links(root, dest, &pids));
    stop.send(()).unwrap();
    weird.join().unwrap();
    copied
}

#[test]
#[ignore = "writes a captured tree to $RTLAT_CAPTURE_DIR"]
fn capture_this_machine() {
    let dest = PathBuf::from(
        std::env::var_os("RTLAT_CAPTURE_DIR").expect("set RTLAT_CAPTURE_DIR to the tree to write"),
    );
    // Hold /dev/cpu_dma_latency at 0 while capturing (as rtlat run does), so that the tree
    // shows a holder; released when the capture is written.
    let _held = rtlat_linux::DmaLatencyGuard::set(0).ok();
    let copied = capture(&dest);
    println!("captured {} files into {}", copied.len(), dest.display());
}

/// The helper itself: a fresh capture reads back like the live system.
#[test]
fn a_fresh_capture_reads_back_like_the_live_system() {
    let dest = std::env::temp_dir().join(format!("rtlat-capture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dest);
    let holding = std::fs::File::open(HELD).ok();
    let copied = capture(&dest);
    assert!(copied.contains(&"proc/cmdline".to_owned()));
    let (live, tree) = (Facts::live(), Facts::at(&dest));
    assert_eq!(tree.cmdline().unwrap(), live.cmdline().unwrap());
    assert_eq!(tree.online_cpus().unwrap(), live.online_cpus().unwrap());
    assert_eq!(tree.os_release().unwrap(), live.os_release().unwrap());
    assert_eq!(
        tree.preempt_rt().unwrap().is_rt(),
        live.preempt_rt().unwrap().is_rt()
    );
    assert_eq!(tree.irq_numbers().unwrap(), live.irq_numbers().unwrap());
    let me = std::process::id();
    let threads = tree.threads_of(me).unwrap();
    assert!(
        threads.iter().any(|t| t.name() == "my (weird) comm"),
        "{threads:#?}"
    );
    // kthreadd is visible only outside a PID namespace (not in most containers).
    if live.process_stat(2).is_ok_and(|s| s.comm == "kthreadd") {
        assert!(tree.process_stat(2).unwrap().is_kernel_thread());
    }
    assert_eq!(tree.cpuinfo().unwrap(), live.cpuinfo().unwrap());
    // This process holds /dev/cpu_dma_latency open (read-only: a request at the default, no
    // limit), and the tree shows it with its link.
    if holding.is_some() {
        let held = tree.holders_of(HELD).unwrap().pids;
        assert!(held.contains(&me), "{held:?}");
    }
    // Regular files, small; the only links are fd/N -> /dev/cpu_dma_latency.
    let mut total = 0;
    for relative in &copied {
        let meta = std::fs::symlink_metadata(dest.join(relative)).unwrap();
        if meta.file_type().is_symlink() {
            assert!(relative.contains("/fd/"), "{relative}");
            assert_eq!(
                std::fs::read_link(dest.join(relative)).unwrap(),
                Path::new(HELD)
            );
            continue;
        }
        assert!(meta.is_file(), "{relative}");
        total += meta.len();
    }
    assert!(total < 1 << 20, "{total} bytes");
    std::fs::remove_dir_all(&dest).unwrap();
}
