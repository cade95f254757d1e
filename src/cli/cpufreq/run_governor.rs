//! `rtlat run --governor NAME`: the governor held for one run on the CPUs its threads use,
//! checked before anything changes, set once the run answers SIGINT/SIGTERM by ending
//! cleanly, restored when the run ends however it ends (the guard's drop), each step told on
//! stderr.

use std::path::Path;

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::facts::Facts;
use rtlat_linux::tune::{Change, Hold, Target, cpufreq::governor_changes};

use crate::cli::tuning::apply::cpus_text;

/// A governor checked for a run and not set yet.
pub struct RunGovernor {
    governor: String,
    cpus: CpuSet,
    changes: Vec<Change>,
}

/// The governor in effect for a run; dropping it restores the previous governors.
pub struct HeldGovernor {
    hold: Option<Hold>,
    /// `CPUs 0-3`.
    cpus: String,
    /// The governors before (see [`previous`]).
    was: String,
}

impl RunGovernor {
    /// Checks `--governor NAME` for the CPUs `cpus` (the run's threads'): cpufreq exists and
    /// offers that governor. Nothing is changed. The error is the line to print.
    pub fn check(governor: &str, cpus: impl IntoIterator<Item = usize>) -> Result<Self, String> {
        let cpus = CpuSet::from_cpus(cpus).map_err(|e| format!("--governor {governor}: {e}"))?;
        let changes = governor_changes(&Facts::live(), &cpus, governor)
            .map_err(|e| format!("--governor {governor}: {e}"))?;
        Ok(RunGovernor {
            governor: governor.to_owned(),
            cpus,
            changes,
        })
    }

    /// Sets the governor and holds it; prints what it set (and what it was) to stderr.
    pub fn hold(self) -> Result<HeldGovernor, String> {
        let cpus = cpus_text(&self.cpus);
        if self.changes.is_empty() {
            eprintln!("# cpufreq governor already {} on {cpus}", self.governor);
            return Ok(HeldGovernor {
                hold: None,
                cpus,
                was: String::new(),
            });
        }
        let was = previous(&self.changes);
        let hold = Hold::apply(Path::new("/"), self.changes).map_err(|failed| {
            format!(
                "--governor {}: {}: {}",
                self.governor, failed.change, failed.error
            )
        })?;
        eprintln!(
            "# cpufreq governor set to {} on {cpus} (was {was})",
            self.governor
        );
        Ok(HeldGovernor {
            hold: Some(hold),
            cpus,
            was,
        })
    }
}

impl Drop for HeldGovernor {
    fn drop(&mut self) {
        let Some(hold) = self.hold.take() else {
            return;
        };
        let mut all_restored = true;
        for (change, result) in hold.release() {
            if let Err(e) = result {
                all_restored = false;
                eprintln!("warning: could not restore the cpufreq governor: {change}: {e}");
            }
        }
        if all_restored {
            eprintln!(
                "# cpufreq governor restored to {} on {}",
                self.was, self.cpus
            );
        }
    }
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
                Target::File { path } => path
                    .strip_prefix("/sys/devices/system/cpu/cpu")
                    .and_then(|rest| rest.split('/').next())
                    .unwrap_or("?"),
                Target::Thread { .. } => "?",
            };
            format!("{} on CPU {cpu}", c.old)
        })
        .collect::<Vec<_>>()
        .join(", ")
}
