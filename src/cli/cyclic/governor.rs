//! What `--governor` and `--profile` hold on the measured CPUs for a run or a monitor:
//! checked before anything changes ([`run_governor`]), held by the caller.

use super::options::{Plan, RunConfig};
use crate::cli::cpufreq::RunGovernor;

/// What `--governor` and `--profile` hold for the run on its threads' CPUs, checked (nothing
/// changed yet): `--governor` or the profile's governor, and the profile's frequency.
pub fn run_governor(config: &RunConfig, plan: &Plan) -> Result<Option<RunGovernor>, String> {
    let cpus = plan.threads.iter().map(|t| t.cpu);
    let Some(profile) = &config.profile else {
        return match &config.governor {
            Some(name) => RunGovernor::check(name, &format!("--governor {name}"), cpus).map(Some),
            None => Ok(None),
        };
    };
    let asked_by = match &config.governor {
        Some(name) => format!("--governor {name}"),
        None => profile.option(),
    };
    let governor = RunGovernor::check(profile.governor(config), &asked_by, cpus)?;
    match profile.board.frequency.fixed_khz {
        Some(khz) => governor
            .with_frequency(u64::from(khz), &profile.option())
            .map(Some),
        None => Ok(Some(governor)),
    }
}
