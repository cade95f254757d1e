//! `rtlat run --governor NAME` (and `--profile NAME`): the governor, and optionally a fixed
//! frequency, held for one run on the CPUs its threads use — checked before anything changes,
//! set once the run answers SIGINT/SIGTERM by ending cleanly, restored when the run ends
//! however it ends (the guard's drop), each step told on stderr.
//!
//! A fixed frequency is set as `rtlat cpufreq --freq` sets it
//! ([`frequency_changes`]: `scaling_min_freq` = `scaling_max_freq`), after the governor, and
//! restored before it.

use std::path::Path;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;
use rtlat_system::tune::cpufreq::{frequency_changes, governor_changes, policies};
use rtlat_system::tune::{Change, CpufreqSetting, Hold, Target, format_khz};

use crate::cli::tuning::apply::cpus_text;

/// A governor (and maybe a frequency) checked for a run and not set yet.
pub struct RunGovernor {
    governor: String,
    /// What asked for the governor, as errors name it: `--governor performance`.
    asked_by: String,
    cpus: CpuSet,
    changes: Vec<Change>,
    frequency: Option<RunFrequency>,
}

/// The frequency a run pins, checked.
struct RunFrequency {
    khz: u64,
    /// What asked for it, as errors name it: `--profile bubblegum96`.
    asked_by: String,
    changes: Vec<Change>,
    /// The limits before (see [`ranges`]).
    was: String,
}

/// The governor (and frequency) in effect for a run; dropping it restores what was before.
pub struct HeldGovernor {
    hold: Option<Hold>,
    /// `CPUs 0-3`.
    cpus: String,
    /// The governors before (see [`previous`]), if the run changed them.
    governor_was: Option<String>,
    /// The frequency limits before (see [`ranges`]), if the run changed them.
    frequency_was: Option<String>,
}

impl RunGovernor {
    /// Checks the governor `governor` for the CPUs `cpus` (the run's threads'): cpufreq
    /// exists and offers that governor. Nothing is changed. The error is the line to print,
    /// starting with `asked_by` (the option that asked: `--governor performance`).
    pub fn check(
        governor: &str,
        asked_by: &str,
        cpus: impl IntoIterator<Item = usize>,
    ) -> Result<Self, String> {
        let cpus = CpuSet::from_cpus(cpus).map_err(|e| format!("{asked_by}: {e}"))?;
        let changes = governor_changes(&Facts::live(), &cpus, governor)
            .map_err(|e| format!("{asked_by}: {e}"))?;
        Ok(RunGovernor {
            governor: governor.to_owned(),
            asked_by: asked_by.to_owned(),
            cpus,
            changes,
            frequency: None,
        })
    }

    /// Also pins the frequency of the same CPUs at `khz` for the run: checks that each CPU
    /// offers it (else the error, starting with `asked_by`, names what they offer). Nothing
    /// is changed.
    pub fn with_frequency(mut self, khz: u64, asked_by: &str) -> Result<Self, String> {
        let facts = Facts::live();
        let changes =
            frequency_changes(&facts, &self.cpus, khz).map_err(|e| format!("{asked_by}: {e}"))?;
        self.frequency = Some(RunFrequency {
            khz,
            asked_by: asked_by.to_owned(),
            changes,
            was: ranges(&facts, &self.cpus),
        });
        Ok(self)
    }

    /// Sets the governor (then the frequency) and holds them; prints what it set (and what
    /// it was) to stderr.
    pub fn hold(self) -> Result<HeldGovernor, String> {
        let cpus = cpus_text(&self.cpus);
        let governor_was = (!self.changes.is_empty()).then(|| previous(&self.changes));
        let mut changes = self.changes;
        let mut frequency_was = None;
        if let Some(frequency) = &self.frequency
            && !frequency.changes.is_empty()
        {
            changes.extend(frequency.changes.iter().cloned());
            frequency_was = Some(frequency.was.clone());
        }
        let hold = if changes.is_empty() {
            None
        } else {
            let hold = Hold::apply(Path::new("/"), changes).map_err(|failed| {
                let asked_by = match &self.frequency {
                    Some(f) if !is_governor(&failed.change) => &f.asked_by,
                    _ => &self.asked_by,
                };
                format!("{asked_by}: {}: {}", failed.change, failed.error)
            })?;
            Some(hold)
        };
        match &governor_was {
            Some(was) => errln!(
                "# cpufreq governor set to {} on {cpus} (was {was})",
                self.governor
            ),
            None => errln!("# cpufreq governor already {} on {cpus}", self.governor),
        }
        if let Some(frequency) = &self.frequency {
            let khz = format_khz(frequency.khz);
            match &frequency_was {
                Some(was) => {
                    errln!("# cpufreq frequency held at {khz} on {cpus} (was {was})");
                }
                None => errln!("# cpufreq frequency already held at {khz} on {cpus}"),
            }
            // The kernel may clamp a written limit without an error (a thermal or PM QoS
            // limit): read back what holds now.
            if let Some(now) = not_held_at(&Facts::live(), &self.cpus, frequency.khz) {
                errln!(
                    "warning: cpufreq limits on {cpus} read {now} after holding {khz}: \
                     a thermal or QoS limit overrides them; the run goes on"
                );
            }
        }
        Ok(HeldGovernor {
            hold,
            cpus,
            governor_was,
            frequency_was,
        })
    }
}

impl Drop for HeldGovernor {
    fn drop(&mut self) {
        let Some(hold) = self.hold.take() else {
            return;
        };
        let (mut governor_restored, mut frequency_restored) = (true, true);
        // In reverse: the frequency limits first, then the governor.
        for (change, result) in hold.release() {
            if let Err(e) = result {
                let what = if is_governor(&change) {
                    governor_restored = false;
                    "governor"
                } else {
                    frequency_restored = false;
                    "frequency"
                };
                errln!("warning: could not restore the cpufreq {what}: {change}: {e}");
            }
        }
        if let Some(was) = self.frequency_was.as_ref().filter(|_| frequency_restored) {
            errln!("# cpufreq frequency restored to {was} on {}", self.cpus);
        }
        if let Some(was) = self.governor_was.as_ref().filter(|_| governor_restored) {
            errln!("# cpufreq governor restored to {was} on {}", self.cpus);
        }
    }
}

/// Whether `change` sets a governor (else it sets a frequency limit).
fn is_governor(change: &Change) -> bool {
    matches!(
        change.target,
        Target::Cpufreq {
            setting: CpufreqSetting::Governor,
            ..
        }
    )
}

/// The limits of `cpus` (as [`ranges`] gives them) when they do not all hold `khz` as both
/// `scaling_min_freq` and `scaling_max_freq`; `None` when they do.
fn not_held_at(facts: &Facts, cpus: &CpuSet, khz: u64) -> Option<String> {
    let held = policies(facts, cpus).is_ok_and(|policies| {
        policies.iter().all(|(cpufreq, _)| {
            cpufreq.scaling_min_khz().ok() == Some(khz)
                && cpufreq.scaling_max_khz().ok() == Some(khz)
        })
    });
    (!held).then(|| ranges(facts, cpus))
}

/// The frequency limits of `cpus` as `1.2GHz-2GHz` (`scaling_min_freq`-`scaling_max_freq`),
/// or `1.2GHz-2GHz on CPU 0, 1.6GHz-2GHz on CPU 2` when their policies differ.
fn ranges(facts: &Facts, cpus: &CpuSet) -> String {
    let limits: Vec<(usize, String)> = policies(facts, cpus)
        .unwrap_or_default()
        .iter()
        .map(|(cpufreq, _)| {
            let khz = |limit: Result<u64, _>| limit.map_or_else(|_| "?".to_owned(), format_khz);
            let (min, max) = (
                khz(cpufreq.scaling_min_khz()),
                khz(cpufreq.scaling_max_khz()),
            );
            (cpufreq.cpu(), format!("{min}-{max}"))
        })
        .collect();
    let mut texts: Vec<&str> = limits.iter().map(|(_, text)| text.as_str()).collect();
    texts.dedup();
    if texts.len() == 1 {
        return texts[0].to_owned();
    }
    limits
        .iter()
        .map(|(cpu, text)| format!("{text} on CPU {cpu}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The governors before, as `ondemand`, or `ondemand on CPU 0, powersave on CPU 2` when
/// they differ (each change is one cpufreq policy, named by its CPU).
fn previous(changes: &[Change]) -> String {
    let mut olds: Vec<&str> = changes.iter().map(|c| c.old.as_str()).collect();
    olds.dedup();
    if olds.len() == 1 {
        return olds[0].to_owned();
    }
    changes
        .iter()
        .map(|c| {
            let cpu = match &c.target {
                Target::Cpufreq { cpu, .. } => cpu.to_string(),
                _ => "?".to_owned(),
            };
            format!("{} on CPU {cpu}", c.old)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hp-t630 tree: every CPU at 1.2-2 GHz (rtlat-system/tests/data).
    fn hp_t630() -> Facts {
        Facts::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/rtlat-system/tests/data/hp-t630"
        ))
    }

    #[test]
    fn a_frequency_not_held_is_told_with_the_limits_in_force() {
        let cpus = CpuSet::parse("0-1").unwrap();
        assert_eq!(
            not_held_at(&hp_t630(), &cpus, 1_600_000).as_deref(),
            Some("1.2GHz-2GHz")
        );
        // Limits that really are the frequency (min = max) hold; a missing tree does not.
        let dir = std::env::temp_dir().join(format!("rtlat-held-{}", std::process::id()));
        for cpu in 0..2 {
            let cpufreq = dir.join(format!("sys/devices/system/cpu/cpu{cpu}/cpufreq"));
            std::fs::create_dir_all(&cpufreq).unwrap();
            for (file, value) in [
                ("scaling_min_freq", "1600000"),
                ("scaling_max_freq", "1600000"),
                ("scaling_governor", "performance"),
                ("related_cpus", &cpu.to_string()),
            ] {
                std::fs::write(cpufreq.join(file), format!("{value}\n")).unwrap();
            }
        }
        std::fs::create_dir_all(dir.join("sys/devices/system/cpu")).unwrap();
        std::fs::write(dir.join("sys/devices/system/cpu/online"), "0-1\n").unwrap();
        let held = not_held_at(&Facts::at(&dir), &cpus, 1_600_000);
        let missing = not_held_at(&Facts::at(dir.join("nothing")), &cpus, 1_600_000);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(held, None);
        assert!(missing.is_some());
    }
}
