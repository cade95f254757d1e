//! System facts read from the trees under `tests/data/` (one captured from a real VM, two
//! constructed from it and real command lines, see `tests/data/README.md`), from trees with
//! missing and malformed files, and from this machine's `/`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rtlat_linux::cpuset::{CpuListError, CpuSet};
use rtlat_linux::thread::Policy;
use rtlat_system::cmdline::{Isolcpus, IsolcpusFlags, KernelCmdline};
use rtlat_system::facts::{
    Choice, FactError, FactResultExt, Facts, IdleState, KsmRun, PF_KTHREAD, PreemptModel, Swap,
    ThreadInfo,
};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn tree(name: &str) -> Facts {
    Facts::at(data(name))
}

fn set(list: &str) -> CpuSet {
    CpuSet::parse_allowing_empty(list).unwrap()
}

fn fixture(name: &str) -> KernelCmdline {
    let text = std::fs::read_to_string(data("cmdline").join(name)).unwrap();
    KernelCmdline::parse(&text)
}

/// A scratch root directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("rtlat-facts-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, relative: &str, text: &str) -> &Scratch {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    fn facts(&self) -> Facts {
        Facts::at(&self.0)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn thread(threads: &[ThreadInfo], tid: u32) -> &ThreadInfo {
    threads.iter().find(|t| t.tid == tid).unwrap()
}

// ---------------------------------------------------------------------------------------------
// vm-2cpu: captured from the 2-CPU Firecracker VM the project is built on.

#[test]
fn vm_2cpu_kernel() {
    let facts = tree("vm-2cpu");
    let cmdline = facts.cmdline().unwrap();
    assert_eq!(cmdline.value("console"), Some("ttyS0"));
    assert_eq!(
        cmdline.value("mitigations"),
        Some("auto,no_guest_host,no_guest_guest")
    );
    assert!(cmdline.contains("quiet") && cmdline.contains("nomodule"));
    assert!(cmdline.has_init_separator());
    assert_eq!(cmdline.init_args()[0].name(), "--firecracker-init");
    assert!(!cmdline.contains("isolcpus"));
    assert!(cmdline.warnings().is_empty());
    assert_eq!(facts.os_release().unwrap(), "6.18.44-fc-v857");
    assert_eq!(facts.kernel_version().unwrap(), "#1 SMP PREEMPT_DYNAMIC @0");
    assert!(
        facts
            .proc_version()
            .unwrap()
            .starts_with("Linux version 6.18.44-fc-v857 ")
    );
    assert!(facts.realtime().unwrap_err().is_absent());
    let rt = facts.preempt_rt().unwrap();
    assert_eq!(rt.realtime_file, None);
    assert_eq!(rt.model, PreemptModel::Dynamic);
    assert!(!rt.is_rt());
}

#[test]
fn vm_2cpu_cpus_frequency_and_idle() {
    let facts = tree("vm-2cpu");
    assert_eq!(facts.online_cpus().unwrap(), set("0-1"));
    assert_eq!(facts.possible_cpus().unwrap(), set("0-1"));
    assert!(facts.isolated_cpus().unwrap().is_empty());
    assert!(facts.nohz_full_cpus().unwrap_err().is_absent());
    // No cpufreq on this VM.
    let freq = facts.cpufreq(0);
    assert!(!freq.exists());
    assert!(freq.governor().unwrap_err().is_absent());
    assert_eq!(freq.read().optional(), Ok(None));
    // cpuidle: the haltpoll driver with POLL and "haltpoll idle".
    assert_eq!(facts.cpuidle_driver().unwrap(), "haltpoll");
    assert_eq!(facts.cpuidle_governor().unwrap(), "haltpoll");
    for cpu in 0..2 {
        let states = facts.cpuidle_states(cpu).unwrap();
        assert_eq!(
            states,
            [
                IdleState {
                    index: 0,
                    name: "POLL".into(),
                    desc: Some("CPUIDLE CORE POLL IDLE".into()),
                    latency_us: 0,
                    residency_us: Some(0),
                    disabled: false,
                },
                IdleState {
                    index: 1,
                    name: "haltpoll idle".into(),
                    desc: Some("default architecture idle".into()),
                    latency_us: 1,
                    residency_us: Some(1),
                    disabled: false,
                },
            ]
        );
    }
    assert!(facts.cpuidle_states(2).unwrap_err().is_absent());
}

#[test]
fn vm_2cpu_interrupts() {
    let facts = tree("vm-2cpu");
    let numbers = facts.irq_numbers().unwrap();
    assert_eq!(numbers.first(), Some(&24));
    assert_eq!(numbers.len(), 19);
    assert!(!numbers.contains(&27));
    assert_eq!(facts.irq_affinity(24).unwrap(), set("0-1"));
    assert_eq!(facts.irq_effective_affinity(24).unwrap(), set("0"));
    assert_eq!(facts.irq_effective_affinity(36).unwrap(), set("1"));
    assert_eq!(facts.default_smp_affinity().unwrap(), set("0-1"));
    let ints = facts.interrupts().unwrap();
    assert_eq!(ints.cpus, [0, 1]);
    let serial = ints.irq(26).unwrap();
    assert_eq!(serial.chip.as_deref(), Some("IO-APIC"));
    assert_eq!(serial.hwirq.as_deref(), Some("4-edge"));
    assert_eq!(serial.actions, ["ttyS0"]);
    let config = ints.irq(28).unwrap();
    assert_eq!(config.chip.as_deref(), Some("PCI-MSIX-0000:00:01.0"));
    assert_eq!(config.actions, ["virtio0-config"]);
    assert!(ints.label("LOC").unwrap().total() > 0);
    assert_eq!(ints.label("ERR").unwrap().counts.len(), 1);
    let irqs = facts.irqs().unwrap();
    assert_eq!(irqs.len(), 19);
    assert!(
        irqs.iter()
            .all(|i| i.affinity == set("0-1") && i.line.is_some())
    );
    assert!(
        irqs.iter()
            .all(|i| i.effective_affinity.as_ref().unwrap().len() == 1)
    );
    assert_eq!(irqs[0].name(), "ACPI:Ged");
}

#[test]
fn vm_2cpu_threads() {
    let facts = tree("vm-2cpu");
    let pids = facts.pids().unwrap();
    assert!(pids.starts_with(&[1, 2, 14, 15, 18, 50]), "{pids:?}");
    assert_eq!(pids.len(), 7);
    let init = facts.process_stat(1).unwrap();
    assert_eq!(init.comm, "process_api");
    assert_eq!((init.nice, init.num_threads), (-10, 13));
    assert!(!init.is_kernel_thread());
    assert_eq!(facts.threads_of(1).unwrap().len(), 13);

    let kthreadd = facts.process_stat(2).unwrap();
    assert_eq!((kthreadd.comm.as_str(), kthreadd.ppid), ("kthreadd", 0));
    assert!(kthreadd.is_kernel_thread());
    let status = facts.task_status(2, 2).unwrap();
    assert_eq!(status.kthread, Some(true));
    assert_eq!(status.cpus_allowed, set("0-1"));

    let migration = facts.task_stat(18, 18).unwrap();
    assert_eq!(migration.comm, "migration/0");
    assert_eq!(migration.sched_policy(), Some(Policy::Fifo));
    assert_eq!((migration.rt_priority, migration.processor), (99, 0));
    let irq_thread = facts.task_stat(50, 50).unwrap();
    assert_eq!(irq_thread.comm, "irq/24-ACPI:Ged");
    assert_eq!(irq_thread.rt_priority, 50);
    assert!(irq_thread.is_real_time() && irq_thread.is_kernel_thread());
    assert_eq!(facts.task_stat(15, 15).unwrap().state, 'I');

    let all = facts.all_threads().unwrap();
    assert_eq!(all.len(), 13 + 5 + 3);
    // The capture's own test process, with its thread named `my (weird) comm`.
    let weird = all.iter().find(|t| t.name() == "my (weird) comm").unwrap();
    assert!(!weird.is_kernel_thread());
    assert_ne!(weird.pid, weird.tid);
    assert_eq!(weird.cpus_allowed, set("0-1"));
    let status = facts.task_status(weird.pid, weird.tid).unwrap();
    assert_eq!(status.name, "my (weird) comm");
    assert_eq!(status.tgid, Some(weird.pid));
    assert_eq!(status.kthread, Some(false));
    assert_eq!(all.iter().filter(|t| t.is_kernel_thread()).count(), 5);
    assert!(!facts.irqbalance_running().unwrap());
    assert!(facts.process_running("process_api").unwrap());
    assert!(facts.process_running("ksoftirqd/0").unwrap());
    assert!(facts.threads_of(3).unwrap_err().is_absent());
}

#[test]
fn vm_2cpu_sysctls_and_memory() {
    let facts = tree("vm-2cpu");
    assert_eq!(facts.sched_rt_runtime_us().unwrap(), 950_000);
    assert_eq!(facts.sched_rt_period_us().unwrap(), 1_000_000);
    assert!(facts.timer_migration().unwrap());
    assert!(!facts.nmi_watchdog().unwrap());
    assert!(facts.watchdog().unwrap() && facts.soft_watchdog().unwrap());
    assert_eq!(facts.watchdog_cpumask().unwrap(), set("0-1"));
    assert_eq!(facts.sysctl("kernel.osrelease").unwrap(), "6.18.44-fc-v857");
    assert!(facts.sysctl("kernel.no_such_knob").unwrap_err().is_absent());
    assert_eq!(
        facts.transparent_hugepage().unwrap(),
        Choice {
            selected: "madvise".into(),
            available: vec!["always".into(), "madvise".into(), "never".into()],
        }
    );
    assert_eq!(
        facts.transparent_hugepage_defrag().unwrap().selected,
        "madvise"
    );
    assert_eq!(facts.swaps().unwrap(), Vec::<Swap>::new());
    assert_eq!(facts.ksm_run().unwrap(), KsmRun::Stopped);
    assert_eq!(facts.workqueue_cpumask().unwrap(), set("0-1"));
    assert_eq!(facts.current_clocksource().unwrap(), "tsc");
    assert_eq!(
        facts.available_clocksources().unwrap(),
        ["tsc", "kvm-clock"]
    );
}

// ---------------------------------------------------------------------------------------------
// hp-t630: constructed (4 CPUs, CPU 3 isolated, non-RT kernel, cpufreq ondemand).

#[test]
fn hp_t630_kernel_and_cpus() {
    let facts = tree("hp-t630");
    let cmdline = facts.cmdline().unwrap();
    assert_eq!(cmdline, fixture("hp-t630.txt"));
    let iso = Isolcpus::parse(cmdline.value("isolcpus").unwrap(), None).unwrap();
    assert_eq!(iso.cpus, set("3"));
    assert!(iso.flags.managed_irq && iso.flags.domain && !iso.flags.nohz);
    assert_eq!(facts.os_release().unwrap(), "6.1.0-18-amd64");
    let rt = facts.preempt_rt().unwrap();
    assert_eq!((rt.realtime_file, rt.model), (None, PreemptModel::Dynamic));
    assert!(!rt.is_rt());
    assert_eq!(facts.online_cpus().unwrap(), set("0-3"));
    assert_eq!(facts.possible_cpus().unwrap(), set("0-3"));
    assert_eq!(facts.isolated_cpus().unwrap(), set("3"));
    assert_eq!(facts.nohz_full_cpus().unwrap(), set("3"));
    // cpuidle.off=1: no cpuidle at all.
    assert!(facts.cpuidle_driver().unwrap_err().is_absent());
    assert!(facts.cpuidle_states(3).unwrap_err().is_absent());
}

#[test]
fn hp_t630_cpufreq() {
    let facts = tree("hp-t630");
    for cpu in 0..4 {
        let freq = facts.cpufreq(cpu);
        assert!(freq.exists());
        let policy = freq.read().unwrap();
        assert_eq!(policy.cpu, cpu);
        assert_eq!(policy.driver, "acpi-cpufreq");
        assert_eq!(policy.governor, "ondemand");
        assert!(
            policy
                .available_governors
                .contains(&"performance".to_owned())
        );
        assert_eq!(
            policy.available_frequencies_khz.as_deref(),
            Some(&[2_000_000, 1_800_000, 1_600_000, 1_200_000][..])
        );
        assert_eq!(
            (policy.cpuinfo_min_khz, policy.cpuinfo_max_khz),
            (1_200_000, 2_000_000)
        );
        assert_eq!(
            (policy.scaling_min_khz, policy.scaling_max_khz),
            (1_200_000, 2_000_000)
        );
        assert!(!policy.is_pinned_at_max());
        assert_eq!(
            freq.related_cpus().unwrap(),
            CpuSet::from_cpus([cpu]).unwrap()
        );
    }
    assert_eq!(facts.cpufreq(3).scaling_cur_khz().unwrap(), 2_000_000);
    assert!(!facts.cpufreq(4).exists());
}

#[test]
fn hp_t630_interrupts() {
    let facts = tree("hp-t630");
    assert_eq!(facts.default_smp_affinity().unwrap(), set("0-3"));
    let irqs = facts.irqs().unwrap();
    assert_eq!(irqs.len(), 10);
    let isolated = facts.isolated_cpus().unwrap();
    let may: Vec<u32> = irqs
        .iter()
        .filter(|i| !i.affinity.intersection(&isolated).is_empty())
        .map(|i| i.irq)
        .collect();
    assert_eq!(may, [0, 1, 8, 9, 16, 18, 25, 26, 27]);
    let does: Vec<(u32, String)> = irqs
        .iter()
        .filter(|i| i.effective_affinity.as_ref().is_some_and(|e| e.contains(3)))
        .map(|i| (i.irq, i.name()))
        .collect();
    assert_eq!(does, [(26, "enp1s0".to_owned())]);
    let ints = facts.interrupts().unwrap();
    assert_eq!(ints.cpus, [0, 1, 2, 3]);
    assert_eq!(ints.count_on(ints.irq(26).unwrap(), 3), Some(98231));
    assert_eq!(
        ints.irq(18).unwrap().actions,
        ["ohci_hcd:usb2", "ohci_hcd:usb3"]
    );
    assert_eq!(ints.irq(25).unwrap().hwirq.as_deref(), Some("512000-edge"));
    assert_eq!(facts.irq_affinity(28).unwrap(), set("0-2"));
}

#[test]
fn hp_t630_threads() {
    let facts = tree("hp-t630");
    assert!(facts.irqbalance_running().unwrap());
    let all = facts.all_threads().unwrap();
    assert_eq!(all.len(), 9);
    let on_3: Vec<(&str, bool)> = all
        .iter()
        .filter(|t| t.stat.processor == 3 || t.cpus_allowed.contains(3))
        .map(|t| (t.name(), t.is_kernel_thread()))
        .collect();
    assert_eq!(
        on_3,
        [
            ("kthreadd", true),
            ("migration/3", true),
            ("ksoftirqd/3", true),
            ("kworker/3:1", true),
            ("servo-rt", false),
        ]
    );
    let servo = facts.threads_of(1200).unwrap();
    assert_eq!(servo.len(), 2);
    let rt = thread(&servo, 1201);
    assert_eq!(rt.stat.sched_policy(), Some(Policy::Fifo));
    assert_eq!(
        (rt.stat.rt_priority, rt.stat.processor, rt.stat.state),
        (80, 3, 'R')
    );
    assert_eq!(rt.stat.priority, -81);
    assert_eq!(rt.cpus_allowed, set("3"));
    assert_eq!(thread(&servo, 1200).cpus_allowed, set("0-2"));
    assert_eq!(facts.task_status(1200, 1201).unwrap().tgid, Some(1200));
    assert_eq!(facts.process_stat(1).unwrap().comm, "systemd");
}

#[test]
fn hp_t630_sysctls_and_memory() {
    let facts = tree("hp-t630");
    assert_eq!(facts.sched_rt_runtime_us().unwrap(), 950_000);
    assert!(facts.timer_migration().unwrap());
    assert!(!facts.nmi_watchdog().unwrap());
    assert!(!facts.soft_watchdog().unwrap());
    assert_eq!(facts.watchdog_cpumask().unwrap(), set("0-2"));
    assert_eq!(facts.transparent_hugepage().unwrap().selected, "never");
    let swaps = facts.swaps().unwrap();
    assert_eq!(swaps.len(), 1);
    assert_eq!(
        (
            swaps[0].filename.as_str(),
            swaps[0].kind.as_str(),
            swaps[0].size_kib
        ),
        ("/dev/sda3", "partition", 2_097_148)
    );
    assert_eq!(facts.workqueue_cpumask().unwrap(), set("0-3"));
    assert_eq!(facts.ksm_run().unwrap(), KsmRun::Stopped);
}

// ---------------------------------------------------------------------------------------------
// dell-optiplex-755: constructed (2 CPUs, CPU 1 isolated, PREEMPT_RT).

#[test]
fn dell_optiplex_755_kernel_and_cpus() {
    let facts = tree("dell-optiplex-755");
    assert_eq!(facts.cmdline().unwrap(), fixture("dell-optiplex-755.txt"));
    assert!(facts.realtime().unwrap());
    let rt = facts.preempt_rt().unwrap();
    assert_eq!((rt.realtime_file, rt.model), (Some(true), PreemptModel::Rt));
    assert!(rt.is_rt());
    assert!(rt.version.contains("PREEMPT_RT"));
    assert_eq!(facts.os_release().unwrap(), "6.1.0-18-rt-amd64");
    assert_eq!(facts.online_cpus().unwrap(), set("0-1"));
    assert_eq!(facts.isolated_cpus().unwrap(), set("1"));
    assert_eq!(facts.nohz_full_cpus().unwrap(), set("1"));
    let policy = facts.cpufreq(1).read().unwrap();
    assert_eq!(policy.governor, "performance");
    assert!(policy.is_pinned_at_max());
    assert!(facts.cpuidle_driver().unwrap_err().is_absent());
}

#[test]
fn dell_optiplex_755_interrupts_threads_and_sysctls() {
    let facts = tree("dell-optiplex-755");
    assert_eq!(facts.default_smp_affinity().unwrap(), set("0"));
    let irqs = facts.irqs().unwrap();
    let on_1: Vec<u32> = irqs
        .iter()
        .filter(|i| i.affinity.contains(1))
        .map(|i| i.irq)
        .collect();
    assert_eq!(on_1, [0]);
    assert_eq!(
        facts.interrupts().unwrap().irq(19).unwrap().actions,
        ["ata_piix", "uhci_hcd:usb6"]
    );

    assert!(!facts.irqbalance_running().unwrap());
    let all = facts.all_threads().unwrap();
    let rt_on_1: Vec<(&str, u32)> = all
        .iter()
        .filter(|t| t.stat.processor == 1 && t.stat.is_real_time())
        .map(|t| (t.name(), t.stat.rt_priority))
        .collect();
    assert_eq!(
        rt_on_1,
        [
            ("migration/1", 99),
            ("rcuc/1", 1),
            ("ktimers/1", 1),
            ("cyclictest", 95)
        ]
    );
    let irq_thread = facts.task_stat(120, 120).unwrap();
    assert_eq!(
        (irq_thread.comm.as_str(), irq_thread.rt_priority),
        ("irq/24-eno1", 50)
    );
    assert!(irq_thread.is_kernel_thread());

    assert_eq!(facts.sched_rt_runtime_us().unwrap(), -1);
    assert!(!facts.timer_migration().unwrap());
    assert!(facts.soft_watchdog().unwrap());
    assert!(facts.swaps().unwrap().is_empty());
    assert_eq!(facts.workqueue_cpumask().unwrap(), set("0"));
    assert_eq!(facts.transparent_hugepage().unwrap().selected, "never");
}

// ---------------------------------------------------------------------------------------------
// The four real command lines.

#[test]
fn fixture_hp_t630_repeats_and_flags() {
    let line = fixture("hp-t630.txt");
    assert!(line.warnings().is_empty());
    assert_eq!(line.params().len(), 26);
    assert_eq!(line.all("intel_pstate").count(), 3);
    assert_eq!(line.all("nosoftlockup").count(), 3);
    assert_eq!(line.all("isolcpus").count(), 2);
    assert_eq!(
        line.repeated_names(),
        [
            "skew_tick",
            "isolcpus",
            "intel_pstate",
            "nosoftlockup",
            "tsc"
        ]
    );
    assert_eq!(line.value("intel_pstate"), Some("disable"));
    assert_eq!(line.value("nohz_full"), Some("3"));
    assert_eq!(line.value("processor.max_cstate"), Some("0"));
    assert_eq!(line.value("intel_idle.max_cstate"), Some("0"));
    assert_eq!(line.value("cpuidle.off"), Some("1"));
    assert_eq!(line.value("tsc"), Some("nowatchdog"));
    assert!(line.contains("rcu_nocb_poll") && line.value("rcu_nocb_poll").is_none());
    // The misspelling is just another name here; the audit flags it.
    assert_eq!(line.value("rcunocbs"), Some("3"));
    assert!(!line.contains("rcu_nocbs"));
    let iso = Isolcpus::parse(line.value("isolcpus").unwrap(), None).unwrap();
    assert_eq!(
        iso.flags,
        IsolcpusFlags {
            nohz: false,
            domain: true,
            managed_irq: true
        }
    );
    assert_eq!(iso.cpus, set("3"));
    assert!(iso.unknown_flags.is_empty());
    // Both occurrences agree.
    let all: Vec<Isolcpus> = line
        .all("isolcpus")
        .map(|p| Isolcpus::parse(p.value().unwrap(), None).unwrap())
        .collect();
    assert_eq!(all[0], all[1]);
    assert_eq!(
        line.to_string(),
        std::fs::read_to_string(data("cmdline/hp-t630.txt"))
            .unwrap()
            .trim()
    );
}

#[test]
fn fixture_dell_optiplex_755() {
    let line = fixture("dell-optiplex-755.txt");
    assert!(line.repeated_names().is_empty());
    assert_eq!(line.params().len(), 15);
    let iso = Isolcpus::parse(line.value("isolcpus").unwrap(), None).unwrap();
    assert!(iso.flags.is_empty() && iso.effective_flags().domain);
    assert_eq!(iso.cpus, set("1"));
    assert_eq!(line.value("nohz"), Some("on"));
    assert_eq!(line.value("idle"), Some("poll"));
    assert_eq!(line.value("transparent_hugepage"), Some("never"));
    assert!(line.contains("acpi_irq_nobalance"));
    assert_eq!(line.value("rcunocbs"), Some("1"));
}

#[test]
fn fixture_ubuntu_lines() {
    let default = fixture("ubuntu-default.txt");
    assert_eq!(
        default.value("BOOT_IMAGE"),
        Some("/boot/vmlinuz-6.8.0-45-generic")
    );
    assert_eq!(
        default.value("root"),
        Some("UUID=3b1f7c2e-9a0d-4c55-8e61-0f2d7a9c4b11")
    );
    assert_eq!(default.value("vt.handoff"), Some("7"));
    assert!(!default.contains("isolcpus"));
    let isolating = fixture("ubuntu-isolcpus-0-4.txt");
    let iso = Isolcpus::parse(isolating.value("isolcpus").unwrap(), None).unwrap();
    assert_eq!(iso.cpus, set("0-4"));
    assert!(iso.cpus.contains(0), "isolating CPU 0: the audit flags it");
    assert!(iso.flags.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Missing and malformed files.

/// Calls every fact of `facts`, each mapped to `Result<(), FactError>`, with its name.
fn every_fact(facts: &Facts) -> Vec<(&'static str, Result<(), FactError>)> {
    fn unit<T>(r: Result<T, FactError>) -> Result<(), FactError> {
        r.map(|_| ())
    }
    let freq = facts.cpufreq(0);
    vec![
        ("cmdline", unit(facts.cmdline())),
        ("os_release", unit(facts.os_release())),
        ("kernel_version", unit(facts.kernel_version())),
        ("proc_version", unit(facts.proc_version())),
        ("realtime", unit(facts.realtime())),
        ("preempt_rt", unit(facts.preempt_rt())),
        ("online_cpus", unit(facts.online_cpus())),
        ("possible_cpus", unit(facts.possible_cpus())),
        ("isolated_cpus", unit(facts.isolated_cpus())),
        ("nohz_full_cpus", unit(facts.nohz_full_cpus())),
        ("governor", unit(freq.governor())),
        ("available_governors", unit(freq.available_governors())),
        ("driver", unit(freq.driver())),
        ("scaling_min_khz", unit(freq.scaling_min_khz())),
        ("scaling_max_khz", unit(freq.scaling_max_khz())),
        ("scaling_cur_khz", unit(freq.scaling_cur_khz())),
        ("cpuinfo_min_khz", unit(freq.cpuinfo_min_khz())),
        ("cpuinfo_max_khz", unit(freq.cpuinfo_max_khz())),
        (
            "available_frequencies_khz",
            unit(freq.available_frequencies_khz()),
        ),
        ("related_cpus", unit(freq.related_cpus())),
        ("cpufreq read", unit(freq.read())),
        ("cpuidle_states", unit(facts.cpuidle_states(0))),
        ("cpuidle_driver", unit(facts.cpuidle_driver())),
        ("cpuidle_governor", unit(facts.cpuidle_governor())),
        ("irq_numbers", unit(facts.irq_numbers())),
        ("irq_affinity", unit(facts.irq_affinity(24))),
        (
            "irq_effective_affinity",
            unit(facts.irq_effective_affinity(24)),
        ),
        ("default_smp_affinity", unit(facts.default_smp_affinity())),
        ("interrupts", unit(facts.interrupts())),
        ("irqs", unit(facts.irqs())),
        ("pids", unit(facts.pids())),
        ("tids", unit(facts.tids(1))),
        ("process_stat", unit(facts.process_stat(1))),
        ("task_stat", unit(facts.task_stat(1, 1))),
        ("task_status", unit(facts.task_status(1, 1))),
        ("threads_of", unit(facts.threads_of(1))),
        ("all_threads", unit(facts.all_threads())),
        ("irqbalance_running", unit(facts.irqbalance_running())),
        ("sched_rt_runtime_us", unit(facts.sched_rt_runtime_us())),
        ("sched_rt_period_us", unit(facts.sched_rt_period_us())),
        ("timer_migration", unit(facts.timer_migration())),
        ("nmi_watchdog", unit(facts.nmi_watchdog())),
        ("watchdog", unit(facts.watchdog())),
        ("soft_watchdog", unit(facts.soft_watchdog())),
        ("watchdog_cpumask", unit(facts.watchdog_cpumask())),
        ("transparent_hugepage", unit(facts.transparent_hugepage())),
        (
            "transparent_hugepage_defrag",
            unit(facts.transparent_hugepage_defrag()),
        ),
        ("swaps", unit(facts.swaps())),
        ("ksm_run", unit(facts.ksm_run())),
        ("workqueue_cpumask", unit(facts.workqueue_cpumask())),
        ("current_clocksource", unit(facts.current_clocksource())),
        (
            "available_clocksources",
            unit(facts.available_clocksources()),
        ),
    ]
}

#[test]
fn every_fact_of_an_empty_root_is_absent() {
    let empty = Scratch::new();
    for (name, result) in every_fact(&empty.facts()) {
        let err = result.unwrap_err();
        assert!(err.is_absent(), "{name}: {err}");
        assert!(err.path().unwrap().starts_with(&empty.0), "{name}: {err}");
        assert!(err.to_string().contains("does not exist"), "{name}: {err}");
    }
    // Also for a root that does not exist at all.
    for (name, result) in every_fact(&Facts::at("/nonexistent/rtlat/root")) {
        assert!(result.unwrap_err().is_absent(), "{name}");
    }
}

#[test]
fn every_fact_of_the_captured_trees_reads_or_is_absent() {
    for name in ["vm-2cpu", "hp-t630", "dell-optiplex-755"] {
        for (fact, result) in every_fact(&tree(name)) {
            if let Err(err) = result {
                assert!(err.is_absent(), "{name} {fact}: {err}");
            }
        }
    }
}

#[test]
fn malformed_files_give_typed_errors() {
    let bad = Scratch::new();
    let c = "sys/devices/system/cpu/";
    bad.write("proc/cmdline", "a=\"unterminated\n")
        .write("proc/sys/kernel/version", "")
        .write("sys/kernel/realtime", "yes\n")
        .write(&format!("{c}online"), "\n")
        .write(&format!("{c}possible"), "0-\n")
        .write(&format!("{c}isolated"), "three\n")
        .write(&format!("{c}nohz_full"), "(nil)\n")
        .write(&format!("{c}cpu0/cpufreq/scaling_governor"), "on demand\n")
        .write(&format!("{c}cpu0/cpufreq/scaling_driver"), "\n")
        .write(&format!("{c}cpu0/cpufreq/scaling_min_freq"), "1.2 GHz\n")
        .write(
            &format!("{c}cpu0/cpufreq/scaling_available_frequencies"),
            "2000000 fast\n",
        )
        .write(&format!("{c}cpu0/cpufreq/related_cpus"), "0,1\n")
        .write(&format!("{c}cpu0/cpuidle/state0/name"), "POLL\n")
        .write(&format!("{c}cpu0/cpuidle/state0/latency"), "-1\n")
        .write(&format!("{c}cpu0/cpuidle/state0/disable"), "0\n")
        .write(&format!("{c}cpuidle/current_driver"), "\n")
        .write("proc/irq/24/smp_affinity_list", "0-1-2\n")
        .write("proc/irq/24/effective_affinity_list", "x\n")
        .write("proc/irq/default_smp_affinity", "0x3\n")
        .write("proc/interrupts", "garbage\n")
        .write("proc/1/stat", "1 (init S 0\n")
        .write("proc/1/task/1/stat", "1 (init) S 0 1 1\n")
        .write("proc/1/task/1/status", "Name:\tinit\n")
        .write("proc/sys/kernel/sched_rt_runtime_us", "unlimited\n")
        .write("proc/sys/kernel/timer_migration", "2\n")
        .write("proc/sys/kernel/watchdog_cpumask", "all\n")
        .write(
            "sys/kernel/mm/transparent_hugepage/enabled",
            "always madvise never\n",
        )
        .write("proc/swaps", "/dev/sda3 partition 1 0 -2\n")
        .write("sys/kernel/mm/ksm/run", "3\n")
        .write("sys/devices/virtual/workqueue/cpumask", "1,,2\n");
    let facts = bad.facts();

    // Lenient where the kernel is: the unterminated quote is a warning, not an error.
    let cmdline = facts.cmdline().unwrap();
    assert_eq!(cmdline.value("a"), Some("unterminated\n"));
    assert_eq!(cmdline.warnings().len(), 1);
    // An empty version string is still a version string (it names no preemption model).
    assert_eq!(facts.kernel_version().unwrap(), "");

    let malformed = |name: &str, result: Result<(), FactError>| {
        let err = result.unwrap_err();
        assert!(
            matches!(err, FactError::Malformed { .. } | FactError::CpuList { .. }),
            "{name}: {err:?}"
        );
        assert!(!err.is_absent());
        assert!(err.path().unwrap().starts_with(&bad.0), "{name}");
        err
    };
    let results = every_fact(&facts);
    let get = |name: &str| results.iter().find(|(n, _)| *n == name).unwrap().1.clone();
    for name in [
        "realtime",
        "preempt_rt",
        "online_cpus",
        "possible_cpus",
        "isolated_cpus",
        "nohz_full_cpus",
        "governor",
        "driver",
        "scaling_min_khz",
        "available_frequencies_khz",
        "related_cpus",
        "cpufreq read",
        "cpuidle_states",
        "cpuidle_driver",
        "irq_affinity",
        "irq_effective_affinity",
        "default_smp_affinity",
        "interrupts",
        "irqs",
        "process_stat",
        "task_stat",
        "task_status",
        "threads_of",
        "all_threads",
        "irqbalance_running",
        "sched_rt_runtime_us",
        "timer_migration",
        "watchdog_cpumask",
        "transparent_hugepage",
        "swaps",
        "ksm_run",
        "workqueue_cpumask",
    ] {
        malformed(name, get(name));
    }
    let err = malformed("online", get("online_cpus"));
    assert!(
        matches!(
            err,
            FactError::CpuList {
                source: CpuListError::Empty,
                ..
            }
        ),
        "{err:?}"
    );
    let err = malformed("stat", get("process_stat"));
    assert!(
        err.to_string().contains("proc/1/stat is malformed"),
        "{err}"
    );
    assert!(err.to_string().contains("please report"), "{err}");
    // Files not written are still absent next to malformed ones.
    assert!(get("cpuidle_governor").unwrap_err().is_absent());
    assert!(get("kernel_version").is_ok());
}

#[test]
fn threads_that_exit_while_listed_are_left_out() {
    let tree = Scratch::new();
    let stat = std::fs::read_to_string(data("vm-2cpu/proc/14/stat")).unwrap();
    let status = std::fs::read_to_string(data("vm-2cpu/proc/14/status")).unwrap();
    tree.write("proc/14/stat", &stat)
        .write("proc/14/task/14/stat", &stat)
        .write("proc/14/task/14/status", &status)
        // A TID listed with no files left, and a PID with no task directory.
        .write("proc/14/task/99/.gone", "")
        .write("proc/77/.gone", "");
    let facts = tree.facts();
    assert_eq!(facts.pids().unwrap(), [14, 77]);
    assert_eq!(facts.tids(14).unwrap(), [14, 99]);
    let all = facts.all_threads().unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].name(), "ksoftirqd/0");
    assert_eq!(facts.threads_of(14).unwrap().len(), 1);
    assert!(facts.threads_of(77).unwrap_err().is_absent());
}

// ---------------------------------------------------------------------------------------------
// This machine.

#[test]
fn the_live_system_holds_its_invariants() {
    let facts = Facts::live();
    let online = facts.online_cpus().unwrap();
    let possible = facts.possible_cpus().unwrap();
    assert!(!online.is_empty());
    assert!(online.is_subset(&possible));
    assert!(facts.isolated_cpus().unwrap().is_subset(&possible));
    if let Some(nohz) = facts.nohz_full_cpus().optional().unwrap() {
        assert!(nohz.is_subset(&possible));
    }
    assert!(!facts.os_release().unwrap().is_empty());
    let rt = facts.preempt_rt().unwrap();
    assert_eq!(
        rt.realtime_file == Some(true) || rt.model == PreemptModel::Rt,
        rt.is_rt()
    );
    let _ = facts.cmdline().unwrap();

    // Our own threads, one with a name full of parentheses.
    let (stop, wait) = std::sync::mpsc::channel::<()>();
    let (ready, started) = std::sync::mpsc::channel::<()>();
    let helper = std::thread::Builder::new()
        .name("rt (lat) probe".into())
        .spawn(move || {
            ready.send(()).unwrap();
            let _ = wait.recv();
        })
        .unwrap();
    started.recv().unwrap();
    let me = std::process::id();
    let threads = facts.threads_of(me).unwrap();
    stop.send(()).unwrap();
    helper.join().unwrap();
    assert!(threads.len() >= 2, "{threads:#?}");
    assert!(threads.iter().any(|t| t.tid == me));
    let probe = threads
        .iter()
        .find(|t| t.name() == "rt (lat) probe")
        .unwrap();
    assert_eq!(probe.pid, me);
    assert!(!probe.is_kernel_thread());
    assert!(online.contains(probe.stat.processor));
    assert!(probe.cpus_allowed.is_subset(&possible));
    assert_eq!(facts.process_stat(me).unwrap().pid, me);

    // Kernel threads are found and recognised (they are visible only outside a PID
    // namespace: not in most containers).
    let all = facts.all_threads().unwrap();
    if let Some(kthreadd) = all.iter().find(|t| t.pid == 2 && t.name() == "kthreadd") {
        assert!(kthreadd.is_kernel_thread(), "{kthreadd:?}");
        assert!(
            all.iter()
                .any(|t| t.stat.ppid == 2 && t.stat.flags & PF_KTHREAD != 0)
        );
    }
    assert!(all.iter().all(|t| possible.contains(t.stat.processor)));

    // Every IRQ's affinity names possible CPUs.
    for irq in facts.irqs().unwrap() {
        assert!(irq.affinity.is_subset(&possible), "IRQ {}", irq.irq);
    }
    let ints = facts.interrupts().unwrap();
    assert_eq!(ints.cpus.len(), online.len());
    assert!(facts.default_smp_affinity().unwrap().is_subset(&possible));
    assert!(facts.sched_rt_period_us().unwrap() > 0);
    let _ = facts.swaps().unwrap();
}
