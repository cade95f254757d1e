//! The kernel parameters the audit knows, and the closest known one to a name it does not
//! (`rcunocbs` → `rcu_nocbs`).
//!
//! The list is not the kernel's full list (that has over a thousand entries, most for drivers):
//! it holds every parameter real-time tuning uses, the ones distributions and boot loaders put
//! on a line, and common ones around them. A name not in it is reported as unknown only when
//! it is close to one in it (a likely misspelling: the kernel ignores it silently, or passes it
//! to init); other unknown names are only listed. `module.param` names belong to modules and
//! are left alone unless they are close to a known one (`intel_idle.max_cstat`).

use std::borrow::Cow;

/// Known parameter names, in the kernel's spelling (names compare with `-` as `_`).
pub const KNOWN: &[&str] = &[
    // Real-time tuning: isolation, tick, RCU, interrupts.
    "isolcpus",
    "nohz",
    "nohz_full",
    "rcu_nocbs",
    "rcu_nocb_poll",
    "irqaffinity",
    "kthread_cpus",
    "housekeeping",
    "skew_tick",
    "threadirqs",
    "preempt",
    "rcutree.kthread_prio",
    "rcutree.use_softirq",
    "rcupdate.rcu_expedited",
    "rcupdate.rcu_normal",
    "rcupdate.rcu_normal_after_boot",
    "rcupdate.rcu_cpu_stall_suppress",
    "rcupdate.rcu_cpu_stall_timeout",
    "rcu_nocb_gp_stride",
    "relax_domain_level",
    "workqueue.power_efficient",
    "acpi_irq_nobalance",
    "acpi_irq_balance",
    "noirqdebug",
    "irqpoll",
    "irqfixup",
    // Idle states and frequency.
    "idle",
    "processor.max_cstate",
    "processor.nocst",
    "intel_idle.max_cstate",
    "intel_idle.states_off",
    "cpuidle.off",
    "cpuidle.governor",
    "cpuidle_haltpoll.force",
    "intel_pstate",
    "amd_pstate",
    "cpufreq.default_governor",
    "cpufreq.off",
    "pcie_aspm",
    // Watchdogs and clocks.
    "nmi_watchdog",
    "nowatchdog",
    "nosoftlockup",
    "softlockup_panic",
    "softlockup_all_cpu_backtrace",
    "hardlockup_all_cpu_backtrace",
    "watchdog_thresh",
    "hung_task_panic",
    "tsc",
    "notsc",
    "clocksource",
    "hpet",
    "nohpet",
    "highres",
    "lapic",
    "nolapic",
    "nolapic_timer",
    "noapic",
    "apic",
    "x2apic_phys",
    "nox2apic",
    // Memory.
    "transparent_hugepage",
    "hugepages",
    "hugepagesz",
    "default_hugepagesz",
    "hugetlb_free_vmemmap",
    "numa_balancing",
    "numa",
    "mem",
    "memmap",
    "init_on_alloc",
    "init_on_free",
    "page_alloc.shuffle",
    "zswap.enabled",
    "swiotlb",
    "vsyscall",
    "slub_debug",
    "memhp_default_state",
    // CPUs, SMT, mitigations.
    "maxcpus",
    "nr_cpus",
    "possible_cpus",
    "nosmp",
    "nosmt",
    "mitigations",
    "nospectre_v1",
    "nospectre_v2",
    "spectre_v2",
    "spectre_v2_user",
    "spec_store_bypass_disable",
    "pti",
    "nopti",
    "l1tf",
    "mds",
    "tsx",
    "tsx_async_abort",
    "retbleed",
    "srbds",
    "mmio_stale_data",
    "gather_data_sampling",
    "spectre_bhi",
    "reg_file_data_sampling",
    "split_lock_detect",
    "nokaslr",
    "norandmaps",
    "random.trust_cpu",
    "random.trust_bootloader",
    // Security and auditing.
    "audit",
    "audit_backlog_limit",
    "selinux",
    "enforcing",
    "apparmor",
    "security",
    "lsm",
    "module.sig_enforce",
    "lockdown",
    "ima_policy",
    // Boot, root file system, init, console.
    "BOOT_IMAGE",
    "root",
    "rootfstype",
    "rootflags",
    "rootwait",
    "rootdelay",
    "ro",
    "rw",
    "init",
    "rdinit",
    "initrd",
    "noinitrd",
    "resume",
    "resume_offset",
    "noresume",
    "hibernate",
    "single",
    "emergency",
    "rescue",
    "quiet",
    "splash",
    "nosplash",
    "debug",
    "loglevel",
    "ignore_loglevel",
    "log_buf_len",
    "printk.time",
    "earlyprintk",
    "earlycon",
    "console",
    "consoleblank",
    "fbcon",
    "video",
    "vga",
    "nomodeset",
    "vt.handoff",
    "vt.global_cursor_default",
    "plymouth.enable",
    "panic",
    "panic_on_warn",
    "oops",
    "reboot",
    "crashkernel",
    "elfcorehdr",
    "nomodule",
    "module_blacklist",
    "modprobe.blacklist",
    "initcall_debug",
    "initcall_blacklist",
    "boot_delay",
    "psi",
    "cgroup_disable",
    "cgroup_enable",
    "cgroup_no_v1",
    "systemd.unified_cgroup_hierarchy",
    "systemd.unit",
    "net.ifnames",
    "biosdevname",
    "ipv6.disable",
    "ip",
    "nfsroot",
    // Firmware and buses.
    "acpi",
    "noacpi",
    "acpi_osi",
    "acpi_backlight",
    "acpi_enforce_resources",
    "efi",
    "noefi",
    "pci",
    "pcie_ports",
    "iommu",
    "intel_iommu",
    "amd_iommu",
    "iommu.passthrough",
    "iommu.strict",
    "mce",
    "nomce",
    "usbcore.autosuspend",
    "nvme_core.default_ps_max_latency_us",
    // Tracing and debugging.
    "dyndbg",
    "ftrace",
    "ftrace_dump_on_oops",
    "trace_event",
    "trace_buf_size",
    "trace_options",
    "tp_printk",
];

/// A name with `-` read as `_`, as the kernel compares them.
pub fn normalize(name: &str) -> Cow<'_, str> {
    rtlat_system::cmdline::normalize_name(name)
}

/// Whether `name` is in [`KNOWN`] (dashes as underscores).
pub fn is_known(name: &str) -> bool {
    let name = normalize(name);
    KNOWN.iter().any(|known| *known == name)
}

/// Whether the kernel leaves `name` to init without a second look: runlevels (`1`, `3`, `S`)
/// are init's.
fn is_init_word(name: &str) -> bool {
    name == "S" || (!name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()))
}

/// What the audit makes of a parameter name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameCheck {
    /// In the list, a runlevel, or a module parameter not close to a known one.
    Known,
    /// Not in the list and close to the one given: probably a misspelling.
    Misspelled(&'static str),
    /// Not in the list and not close to anything in it (a parameter the audit does not cover,
    /// or a word the kernel passes to init).
    Unknown,
}

/// Checks `name` against [`KNOWN`].
pub fn check(name: &str) -> NameCheck {
    if is_known(name) || is_init_word(name) {
        return NameCheck::Known;
    }
    match closest(name) {
        Some(known) => NameCheck::Misspelled(known),
        None if name.contains('.') => NameCheck::Known,
        None => NameCheck::Unknown,
    }
}

/// The known name `name` is most likely a misspelling of: the same letters once dashes,
/// underscores and dots are ignored (`rcunocbs`, `nohz.full`), or within a small edit distance
/// (one edit for names of 4 to 7 characters, two from 8 on; adjacent swaps count as one).
/// Names of 3 characters or fewer are never matched by distance: too many are one edit apart.
pub fn closest(name: &str) -> Option<&'static str> {
    let name = normalize(name);
    let squeezed = squeeze(&name);
    if let Some(known) = KNOWN.iter().find(|k| squeeze(k) == squeezed) {
        return Some(known);
    }
    let length = name.chars().count();
    let limit = match length {
        0..=3 => return None,
        4..=7 => 1,
        _ => 2,
    };
    KNOWN
        .iter()
        .filter(|known| known.chars().count() > 3)
        .map(|known| (distance(&name, known), *known))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, known)| known)
}

/// The name without `_`, `-` and `.`, lowercase.
fn squeeze(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
/// two adjacent characters each cost one.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // rows[i][j]: distance between a[..i] and b[..j]; three rows suffice.
    let width = b.len() + 1;
    let mut before: Vec<usize> = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current: Vec<usize> = vec![0; width];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..width {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_holds_what_the_issue_names() {
        for name in [
            "isolcpus",
            "nohz_full",
            "rcu_nocbs",
            "rcu_nocb_poll",
            "irqaffinity",
            "idle",
            "processor.max_cstate",
            "intel_idle.max_cstate",
            "cpuidle.off",
            "nmi_watchdog",
            "nosoftlockup",
            "tsc",
            "clocksource",
            "skew_tick",
            "transparent_hugepage",
            "audit",
            "selinux",
            "intel_pstate",
            "acpi_irq_nobalance",
            "BOOT_IMAGE",
            "vt.handoff",
            "rcutree.kthread_prio",
            "nohz-full",
        ] {
            assert!(is_known(name), "{name}");
        }
        let mut sorted: Vec<&str> = KNOWN.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), KNOWN.len(), "no duplicates");
        assert!(KNOWN.iter().all(|k| !k.contains('-')));
    }

    #[test]
    fn distances() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("abc", ""), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("rcunocbs", "rcu_nocbs"), 1);
        assert_eq!(distance("isolpcus", "isolcpus"), 1);
        assert_eq!(distance("é", "e"), 1);
    }

    #[test]
    fn misspellings_find_their_parameter() {
        let cases = [
            ("rcunocbs", "rcu_nocbs"),
            ("rcu-nocb", "rcu_nocbs"),
            ("isolcpu", "isolcpus"),
            ("isolpcus", "isolcpus"),
            ("nohzfull", "nohz_full"),
            ("nohz_ful", "nohz_full"),
            ("skewtick", "skew_tick"),
            ("irq_affinity", "irqaffinity"),
            ("intel_idle.max_cstat", "intel_idle.max_cstate"),
            ("intel_idle_max_cstate", "intel_idle.max_cstate"),
            ("processor_max_cstate", "processor.max_cstate"),
            ("transparent_hugepages", "transparent_hugepage"),
            ("nmi_watchdg", "nmi_watchdog"),
            ("quite", "quiet"),
        ];
        for (name, expected) in cases {
            assert_eq!(check(name), NameCheck::Misspelled(expected), "{name}");
        }
    }

    #[test]
    fn legitimate_names_are_left_alone() {
        for name in [
            "ro",
            "rw",
            "nohz-full",
            "3",
            "S",
            "nvproxy.enable",
            "page_reporting.page_reporting_order",
            "haltpoll.guest_halt_poll_ns",
            "rcupdate.rcu_cpu_stall_cputime",
            "i915.enable_psr",
            "systemd.log_level",
        ] {
            assert_eq!(check(name), NameCheck::Known, "{name}");
        }
        for name in ["nested_pvm", "sched_vcpu_pack", "deferred_init", "xyz"] {
            assert_eq!(check(name), NameCheck::Unknown, "{name}");
        }
    }
}
