//! Setting CPU frequency scaling, what `cpufreq-set -g GOVERNOR` and `cpufreq-set -f FREQ`
//! do, as [`Change`]s of the files in `/sys/devices/system/cpu/cpuN/cpufreq/`.
//!
//! A fixed frequency is set by pinning the policy's limits, `scaling_min_freq` =
//! `scaling_max_freq` = the frequency, under whatever governor runs. That works with every
//! driver and governor (`acpi-cpufreq`, `intel_pstate` active or passive, `cppc_cpufreq`, …),
//! where `cpufreq-set -f`'s way, the `userspace` governor and `scaling_setspeed`, needs a
//! governor that is often not built in and that `intel_pstate` (active) does not have. The
//! two limits are written in the order that keeps min ≤ max at every step.
//!
//! CPUs that share a policy (`related_cpus`; on real machines `cpuN/cpufreq` is a link to
//! `cpufreq/policyK`) share the files: each policy's files are changed once, through its
//! lowest CPU of the set.

use std::path::PathBuf;

use super::change::{Change, CpufreqSetting, Target};
use super::error::TuneError;
use super::frequency::format_khz;
use crate::facts::{CpuFreq, FactError, FactResultExt as _, Facts};
use rtlat_linux::cpuset::CpuSet;

/// The cpufreq directory of each policy among `cpus`, with the CPUs of `cpus` it serves.
///
/// [`TuneError::NoCpufreq`] when the first CPU has no cpufreq directory and no online CPU has one
/// (the machine has no frequency scaling: most VMs); [`FactError::Absent`] when only some
/// CPUs lack it.
pub fn policies(facts: &Facts, cpus: &CpuSet) -> Result<Vec<(CpuFreq, CpuSet)>, TuneError> {
    let mut policies: Vec<(PathBuf, CpuFreq, CpuSet)> = Vec::new();
    for cpu in cpus {
        let cpufreq = facts.cpufreq(cpu);
        if !cpufreq.exists() {
            let any = facts
                .online_cpus()
                .map(|online| online.iter().any(|c| facts.cpufreq(c).exists()))
                .unwrap_or(false);
            let path = cpufreq.dir().to_path_buf();
            return Err(if any {
                TuneError::Fact(FactError::Absent { path })
            } else {
                TuneError::NoCpufreq { path }
            });
        }
        let key = std::fs::canonicalize(cpufreq.dir()).unwrap_or_else(|_| cpufreq.dir().into());
        match policies.iter_mut().find(|(k, _, _)| *k == key) {
            // `cpu` comes from a CpuSet: in range.
            Some((_, _, served)) => drop(served.insert(cpu)),
            None => {
                let served = CpuSet::from_cpus([cpu]).unwrap_or_default();
                policies.push((key, cpufreq, served));
            }
        }
    }
    Ok(policies
        .into_iter()
        .map(|(_, cpufreq, served)| (cpufreq, served))
        .collect())
}

/// The changes that give `cpus` the governor `governor` ([`TuneError::UnknownGovernor`] if a
/// CPU's driver does not list it). CPUs already running it give no change.
pub fn governor_changes(
    facts: &Facts,
    cpus: &CpuSet,
    governor: &str,
) -> Result<Vec<Change>, TuneError> {
    let mut changes = Vec::new();
    for (cpufreq, _) in policies(facts, cpus)? {
        let available = cpufreq
            .available_governors()
            .optional()?
            .unwrap_or_default();
        if !available.is_empty() && !available.iter().any(|g| g == governor) {
            return Err(TuneError::UnknownGovernor {
                cpu: cpufreq.cpu(),
                governor: governor.to_owned(),
                available: available.join(" "),
            });
        }
        let current = cpufreq.governor()?;
        if current != governor {
            changes.push(Change::new(
                Target::Cpufreq {
                    cpu: cpufreq.cpu(),
                    setting: CpufreqSetting::Governor,
                },
                current,
                governor,
            ));
        }
    }
    Ok(changes)
}

/// The changes that fix `cpus` at `khz`: `scaling_min_freq` = `scaling_max_freq` = `khz`.
/// The frequency must be one of `scaling_available_frequencies` where the driver lists
/// them, else within `cpuinfo_min_freq..=cpuinfo_max_freq` ([`TuneError::FrequencyNotOffered`]).
pub fn frequency_changes(facts: &Facts, cpus: &CpuSet, khz: u64) -> Result<Vec<Change>, TuneError> {
    let mut changes = Vec::new();
    for (cpufreq, _) in policies(facts, cpus)? {
        check_offered(&cpufreq, khz)?;
        let min = cpufreq.scaling_min_khz()?;
        let max = cpufreq.scaling_max_khz()?;
        let cpu = cpufreq.cpu();
        let min_change = (min != khz).then(|| {
            Change::new(
                Target::Cpufreq {
                    cpu,
                    setting: CpufreqSetting::MinFreq,
                },
                min.to_string(),
                khz.to_string(),
            )
        });
        let max_change = (max != khz).then(|| {
            Change::new(
                Target::Cpufreq {
                    cpu,
                    setting: CpufreqSetting::MaxFreq,
                },
                max.to_string(),
                khz.to_string(),
            )
        });
        // Raising the floor: lower the ceiling first, and the other way round, so min ≤ max
        // holds after each write (and after each write of the undo, in reverse).
        if khz >= min {
            changes.extend(max_change);
            changes.extend(min_change);
        } else {
            changes.extend(min_change);
            changes.extend(max_change);
        }
    }
    Ok(changes)
}

fn check_offered(cpufreq: &CpuFreq, khz: u64) -> Result<(), TuneError> {
    let not_offered = |offered: String| TuneError::FrequencyNotOffered {
        cpu: cpufreq.cpu(),
        asked: format!("{} ({khz} kHz)", format_khz(khz)),
        offered,
    };
    match cpufreq.available_frequencies_khz().optional()? {
        Some(table) if !table.is_empty() => {
            if table.contains(&khz) {
                Ok(())
            } else {
                let list: Vec<String> = table.iter().map(|&f| format_khz(f)).collect();
                Err(not_offered(format!("it offers {}", list.join(", "))))
            }
        }
        _ => {
            let low = cpufreq.cpuinfo_min_khz()?;
            let high = cpufreq.cpuinfo_max_khz()?;
            if (low..=high).contains(&khz) {
                Ok(())
            } else {
                Err(not_offered(format!(
                    "it runs from {} to {}",
                    format_khz(low),
                    format_khz(high)
                )))
            }
        }
    }
}
