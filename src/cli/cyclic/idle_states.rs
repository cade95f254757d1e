//! `--deepest-idle-state N` (current cyclictest's option): the CPUs of the run (those of `-a`,
//! else every CPU of the process's default set, as cyclictest picks them) kept out of every idle state deeper
//! than `N` (out of all of them for `-1`) for the run only — checked before anything
//! changes, set with the other run settings, restored when the run ends however it ends
//! (the [`Hold`]'s drop: the end, an error, SIGINT/SIGTERM/SIGHUP), as `--governor` is.

use std::path::Path;

use rtlat_linux::ProcessCpus;
use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;
use rtlat_system::tune::cpuidle::deepest_state_changes;
use rtlat_system::tune::file::check_writable;
use rtlat_system::tune::{Change, Hold};

use super::options::RunConfig;
use crate::cli::tuning::apply::cpus_text;

/// The idle states a run disables, checked and not changed yet.
pub struct RunIdleStates {
    deepest: i32,
    cpus: CpuSet,
    changes: Vec<Change>,
}

/// The idle states disabled for a run; dropping it enables them again.
pub struct HeldIdleStates {
    _hold: Option<Hold>,
}

/// The `--deepest-idle-state` of `config` checked on the CPUs it concerns (those of `-a` on
/// `cpus`, else the default ones): the states read, and each file it writes writable.
/// Nothing is changed. `None` without the option.
pub fn check(config: &RunConfig, cpus: &ProcessCpus) -> Result<Option<RunIdleStates>, String> {
    let Some(deepest) = config.deepest_idle_state else {
        return Ok(None);
    };
    let asked_by = format!("--deepest-idle-state {deepest}");
    let cpus = match &config.affinity {
        Some(spec) => spec
            .resolve(cpus, "-a/--affinity")
            .map_err(|e| e.to_string())?,
        None => cpus.default_cpus().clone(),
    };
    let changes = deepest_state_changes(&Facts::live(), &cpus, deepest)
        .map_err(|e| format!("{asked_by}: {e}"))?;
    for change in &changes {
        if let Some(path) = change.target.system_path() {
            check_writable(Path::new("/"), &path).map_err(|e| format!("{asked_by}: {e}"))?;
        }
    }
    Ok(Some(RunIdleStates {
        deepest,
        cpus,
        changes,
    }))
}

impl RunIdleStates {
    /// Disables the states and holds them disabled; under `rtlat run` says so on stderr
    /// (cyclictest says nothing).
    pub fn hold(self, quietly: bool) -> Result<HeldIdleStates, String> {
        let count = self.changes.len();
        let hold = if self.changes.is_empty() {
            None
        } else {
            Some(Hold::apply(Path::new("/"), self.changes).map_err(|failed| {
                format!(
                    "--deepest-idle-state {}: {}: {}",
                    self.deepest, failed.change, failed.error
                )
            })?)
        };
        if !quietly {
            let which = match self.deepest {
                -1 => "every idle state".to_string(),
                n => format!("idle states deeper than state {n}"),
            };
            let cpus = cpus_text(&self.cpus);
            errln!(
                "# {which} disabled on {cpus} for the run ({count} switched off, restored at exit)"
            );
        }
        Ok(HeldIdleStates { _hold: hold })
    }
}
