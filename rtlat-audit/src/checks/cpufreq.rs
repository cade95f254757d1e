//! CPU frequency scaling, per online CPU: the governor and the frequency range
//! (`/sys/devices/system/cpu/cpuN/cpufreq/`). CPUs alike are reported together.

use std::collections::BTreeMap;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::CpuFreqPolicy;

use crate::context::{Context, cpus_verb, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// A frequency for people: `2000 MHz`, or `1833333 kHz` when not a whole number of MHz.
fn mhz(khz: u64) -> String {
    if khz.is_multiple_of(1000) {
        format!("{} MHz", khz / 1000)
    } else {
        format!("{khz} kHz")
    }
}

/// A frequency for `cpupower frequency-set` (`2000MHz`, or plain kHz).
fn cpupower_freq(khz: u64) -> String {
    if khz.is_multiple_of(1000) {
        format!("{}MHz", khz / 1000)
    } else {
        khz.to_string()
    }
}

/// Runs the cpufreq checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let Some(online) = &ctx.online else {
        return;
    };
    let mut policies: Vec<CpuFreqPolicy> = Vec::new();
    let mut without = CpuSet::new();
    let mut errors = 0;
    for cpu in online {
        match ctx.facts.cpufreq(cpu).read() {
            Ok(policy) => policies.push(policy),
            Err(e) if e.is_absent() => {
                let _ = without.insert(cpu);
            }
            Err(e) => {
                errors += 1;
                out.push(unreadable(
                    "cpufreq.governor",
                    &format!("the cpufreq files of CPU {cpu}"),
                    &e,
                ));
            }
        }
    }
    if policies.is_empty() {
        if errors == 0 {
            out.push(
                Finding::new(
                    "cpufreq.absent",
                    Severity::Info,
                    "No CPU frequency scaling (no cpufreq directory): a virtual machine, or no cpufreq driver for this CPU; the frequency is up to the firmware or the hypervisor",
                )
                .evidence(system_path(&format!("sys/devices/system/cpu/cpu{}/cpufreq", online.first().unwrap_or(0))), "absent")
                .remedy("nothing to set in Linux; on bare metal, set the firmware's power profile to maximum performance, and check that no cpufreq driver (intel_pstate, amd-pstate, acpi-cpufreq) is merely missing"),
            );
        }
        return;
    }
    if !without.is_empty() {
        out.push(
            Finding::new(
                "cpufreq.absent",
                Severity::Info,
                format!(
                    "{} no cpufreq directory, unlike the others",
                    cpus_verb(&without, "has", "have")
                ),
            )
            .evidence(
                system_path("sys/devices/system/cpu/cpuN/cpufreq"),
                format!("absent for {without}"),
            ),
        );
    }
    governors(&policies, out);
    ranges(&policies, out);
}

fn group<K: Ord>(
    policies: &[CpuFreqPolicy],
    key: impl Fn(&CpuFreqPolicy) -> K,
) -> BTreeMap<K, (CpuSet, &CpuFreqPolicy)> {
    let mut groups: BTreeMap<K, (CpuSet, &CpuFreqPolicy)> = BTreeMap::new();
    for policy in policies {
        let entry = groups
            .entry(key(policy))
            .or_insert_with(|| (CpuSet::new(), policy));
        let _ = entry.0.insert(policy.cpu);
    }
    groups
}

fn governors(policies: &[CpuFreqPolicy], out: &mut Vec<Finding>) {
    for ((governor, driver), (cpus, policy)) in
        group(policies, |p| (p.governor.clone(), p.driver.clone()))
    {
        let source = |file: &str| {
            system_path(&format!(
                "sys/devices/system/cpu/cpu{}/cpufreq/{file}",
                policy.cpu
            ))
        };
        let finding = if governor == "performance" {
            Finding::new(
                "cpufreq.governor",
                Severity::Ok,
                format!(
                    "{} the performance governor",
                    cpus_verb(&cpus, "runs", "run")
                ),
            )
        } else {
            let remedy = if policy.available_governors.is_empty()
                || policy
                    .available_governors
                    .iter()
                    .any(|g| g == "performance")
            {
                "rtlat cpufreq --governor performance --apply (or: cpupower frequency-set -g performance)".to_owned()
            } else {
                let max = cpupower_freq(policy.cpuinfo_max_khz);
                format!(
                    "this driver offers no performance governor ({}): pin the frequency with cpupower frequency-set --min {max} --max {max}",
                    policy.available_governors.join(" ")
                )
            };
            Finding::new(
                "cpufreq.governor",
                Severity::Warn,
                format!(
                    "{} the {governor} governor: the frequency follows the load, so a real-time thread waking on a quiet CPU starts slow, and each frequency change stalls the CPU",
                    cpus_verb(&cpus, "runs", "run")
                ),
            )
            .remedy(remedy)
        };
        out.push(
            finding
                .evidence(
                    source("scaling_governor"),
                    format!("{governor} (CPUs {cpus})"),
                )
                .evidence(source("scaling_driver"), driver),
        );
    }
}

fn ranges(policies: &[CpuFreqPolicy], out: &mut Vec<Finding>) {
    let key = |p: &CpuFreqPolicy| {
        (
            p.governor == "performance",
            p.scaling_min_khz,
            p.scaling_max_khz,
            p.cpuinfo_max_khz,
        )
    };
    for ((performance, min, max, hardware_max), (cpus, policy)) in group(policies, key) {
        let source = |file: &str| {
            system_path(&format!(
                "sys/devices/system/cpu/cpu{}/cpufreq/{file}",
                policy.cpu
            ))
        };
        let pin = cpupower_freq(hardware_max);
        let is = cpus_verb(&cpus, "is", "are");
        let runs = cpus_verb(&cpus, "runs", "run");
        let of = if cpus.len() == 1 {
            format!("CPU {cpus}")
        } else {
            format!("CPUs {cpus}")
        };
        let finding = if min == max && max == hardware_max {
            Finding::new(
                "cpufreq.range",
                Severity::Ok,
                format!("{is} pinned at the maximum, {}", mhz(max)),
            )
        } else if performance && max == hardware_max {
            Finding::new(
                "cpufreq.range",
                Severity::Ok,
                format!("{runs} at the maximum, {} (performance governor)", mhz(max)),
            )
        } else if max < hardware_max {
            Finding::new(
                "cpufreq.range",
                Severity::Warn,
                format!(
                    "{is} capped at {}, below the maximum {}",
                    mhz(max),
                    mhz(hardware_max)
                ),
            )
            .remedy(format!("cpupower frequency-set --min {pin} --max {pin}"))
        } else {
            Finding::new(
                "cpufreq.range",
                Severity::Warn,
                format!("The frequency of {of} varies between {} and {}", mhz(min), mhz(max)),
            )
            .remedy(format!(
                "rtlat cpufreq --governor performance --apply, or pin it: cpupower frequency-set --min {pin} --max {pin}"
            ))
        };
        out.push(
            finding
                .evidence(source("scaling_min_freq"), min.to_string())
                .evidence(source("scaling_max_freq"), max.to_string())
                .evidence(source("cpuinfo_max_freq"), hardware_max.to_string()),
        );
    }
}
