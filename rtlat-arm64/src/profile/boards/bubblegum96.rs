//! Bubblegum-96 (96Boards CE): Actions Semi S900, 4× Cortex-A53, often on a vendor kernel
//! patched to PREEMPT_RT by hand. DVFS ruins its measurements unless the frequency is held,
//! so the profile holds 1.6 GHz under the `performance` governor.

use super::{BoardProfile, CpuFrequency, ReferenceRun, RtPolicy, ThreadLayout};

/// The Bubblegum-96 profile (`--profile bubblegum96`).
pub const BUBBLEGUM96: BoardProfile = BoardProfile {
    name: "bubblegum96",
    description: "Bubblegum-96 (Actions S900, 4x Cortex-A53)",
    cpus: &[0, 1, 2, 3],
    threads: ThreadLayout::OnePerCpu,
    policy: RtPolicy::Fifo,
    priority: 99,
    frequency: CpuFrequency {
        governor: "performance",
        fixed_khz: Some(1_600_000),
    },
    audit_checks: &[
        // Hand-patched vendor kernels: is it really PREEMPT_RT?
        "kernel.preempt_rt",
        // DVFS: the run holds the governor (and 1.6 GHz, which `cpufreq.range` would report
        // as a cap below the maximum): checked while held, it confirms the hold took.
        "cpufreq.governor",
        // Deep idle states' exit latency on the A53 cluster.
        "cpuidle.states",
        // Device interrupts on the measured CPUs.
        "irq.on_isolated",
        // RT throttling would cut a FIFO-99 thread off for 50 ms a second.
        "sysctl.sched_rt_runtime_us",
        "kernel.clocksource",
    ],
    reference_runs: &[
        ReferenceRun {
            name: "idle",
            cyclictest: &["-a", "-t", "-n", "-p99"],
            load: None,
        },
        ReferenceRun {
            name: "stress",
            cyclictest: &["-a", "-t", "-n", "-p99"],
            load: Some(&[
                "stress",
                "-c",
                "4",
                "-i",
                "1",
                "-m",
                "1",
                "--vm-bytes",
                "128M",
            ]),
        },
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents() {
        let p = &BUBBLEGUM96;
        assert_eq!(p.name, "bubblegum96");
        assert!(p.description.contains("S900"));
        assert_eq!(p.cpus, &[0, 1, 2, 3]);
        assert_eq!(p.thread_count(), 4);
        assert_eq!(p.threads, ThreadLayout::OnePerCpu);
        assert_eq!(p.policy, RtPolicy::Fifo);
        assert_eq!(p.priority, 99);
        assert_eq!(p.frequency.governor, "performance");
        assert_eq!(p.frequency.fixed_khz, Some(1_600_000));
        for id in [
            "kernel.preempt_rt",
            "cpufreq.governor",
            "cpuidle.states",
            "irq.on_isolated",
        ] {
            assert!(p.audit_checks.contains(&id), "{id}");
        }
        let [idle, stress] = p.reference_runs else {
            panic!("two reference runs")
        };
        assert_eq!(idle.cyclictest, &["-a", "-t", "-n", "-p99"]);
        assert_eq!(idle.load, None);
        assert_eq!(stress.cyclictest, idle.cyclictest);
        assert_eq!(
            stress.load.unwrap().join(" "),
            "stress -c 4 -i 1 -m 1 --vm-bytes 128M"
        );
    }
}
