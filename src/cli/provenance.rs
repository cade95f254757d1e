//! How the machine was tuned when a measurement starts: the kernel, its command line and
//! configuration, the isolated and tickless CPUs, the measured CPUs' governors, idle states
//! and IRQs, and what ran beside (`--load`), for the result file's `provenance` (see
//! `rtlat_formats::schema::provenance`). Read once, before the first cycle, through
//! rtlat-system's facts; what cannot be read is left out.

use rtlat_formats::schema::provenance::Provenance;
use rtlat_system::facts::Facts;

/// The configuration options recorded: those that decide real-time behaviour (the audit's
/// `kconfig` checks say why each matters).
const CONFIG_OPTIONS: [&str; 19] = [
    "PREEMPT_RT",
    "PREEMPT_DYNAMIC",
    "HZ",
    "HIGH_RES_TIMERS",
    "NO_HZ_FULL",
    "RCU_NOCB_CPU",
    "CPU_ISOLATION",
    "PROVE_LOCKING",
    "DEBUG_LOCK_ALLOC",
    "DEBUG_PREEMPT",
    "DEBUG_ATOMIC_SLEEP",
    "KASAN",
    "SLUB_DEBUG_ON",
    "DEBUG_OBJECTS",
    "DEBUG_KMEMLEAK",
    "IRQSOFF_TRACER",
    "TIMERLAT_TRACER",
    "OSNOISE_TRACER",
    "HWLAT_TRACER",
];

/// The machine as `facts` show it, for a measurement on `cpus`; `load`: what the user said
/// runs beside it.
pub fn gather(facts: &Facts, cpus: &[usize], load: Option<&str>) -> Provenance {
    let text = |r: Result<String, _>| r.unwrap_or_default();
    let mut p = Provenance {
        hostname: std::fs::read_to_string(facts.path("proc/sys/kernel/hostname"))
            .map(|h| h.trim().to_owned())
            .unwrap_or_default(),
        kernel_release: text(facts.os_release()),
        kernel_version: text(facts.kernel_version()),
        kernel_cmdline: facts.cmdline().map(|c| c.to_string()).unwrap_or_default(),
        isolated_cpus: facts
            .isolated_cpus()
            .map(|c| c.to_string())
            .unwrap_or_default(),
        nohz_full_cpus: facts
            .nohz_full_cpus()
            .map(|c| c.to_string())
            .unwrap_or_default(),
        load: load.unwrap_or_default().to_owned(),
        ..Provenance::default()
    };
    if let Ok(config) = facts.kernel_config() {
        p.kernel_config_source = config
            .source
            .strip_prefix(facts.root())
            .map(|s| format!("/{}", s.display()))
            .unwrap_or_else(|_| config.source.display().to_string());
        for name in CONFIG_OPTIONS {
            if let Some(value) = config.get(name) {
                p.kernel_config.insert(name.to_owned(), value.to_owned());
            }
        }
    }
    let mut measured: Vec<usize> = cpus.to_vec();
    measured.sort_unstable();
    measured.dedup();
    for &cpu in &measured {
        if let Ok(governor) = facts.cpufreq(cpu).governor() {
            p.governors.insert(format!("cpu{cpu}"), governor);
        }
        if let Ok(states) = facts.cpuidle_states(cpu) {
            let off: Vec<&str> = states
                .iter()
                .filter(|s| s.disabled)
                .map(|s| s.name.as_str())
                .collect();
            let off = if off.is_empty() {
                "none".to_owned()
            } else {
                off.join(" ")
            };
            p.idle_states_off.insert(format!("cpu{cpu}"), off);
        }
    }
    for irq in facts.irq_numbers().unwrap_or_default() {
        if let Ok(affinity) = facts.irq_affinity(irq)
            && measured.iter().any(|&cpu| affinity.contains(cpu))
        {
            p.irqs_on_measured_cpus.insert(irq, affinity.to_string());
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real thing: this machine's facts, measured on CPU 0.
    #[test]
    fn the_running_machine_is_described() {
        let p = gather(&Facts::live(), &[0], Some("idle"));
        assert!(
            !p.kernel_release.is_empty() && !p.kernel_cmdline.is_empty(),
            "{p:?}"
        );
        assert_eq!(p.load, "idle");
        // Every IRQ kept may run on CPU 0.
        for affinity in p.irqs_on_measured_cpus.values() {
            let set = rtlat_linux::cpuset::CpuSet::parse(affinity).unwrap();
            assert!(set.contains(0), "{affinity}");
        }
    }

    /// A captured machine (an HP t630, CPU 3 isolated): what its tree holds is recorded,
    /// what it lacks (a kernel configuration) left out.
    #[test]
    fn a_captured_machine_is_described_from_its_tree() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/rtlat-system/tests/data/hp-t630"
        );
        let facts = Facts::at(root);
        let p = gather(&facts, &[3, 3], None);
        assert_eq!(p.isolated_cpus, facts.isolated_cpus().unwrap().to_string());
        assert!(
            p.kernel_cmdline.contains("isolcpus"),
            "{}",
            p.kernel_cmdline
        );
        assert!(p.kernel_config.is_empty() && p.kernel_config_source.is_empty());
        assert!(p.load.is_empty());
        for affinity in p.irqs_on_measured_cpus.values() {
            let set = rtlat_linux::cpuset::CpuSet::parse(affinity).unwrap();
            assert!(set.contains(3), "{affinity}");
        }
    }
}
