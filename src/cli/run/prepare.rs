//! A run from its command line to its plan, before anything on the machine changes: the
//! options read, the threads planned on the CPUs at hand, every output path, `--governor`,
//! `--profile`, the idle states and the real-time permission checked, and the session's
//! plan made; the notices about the plan printed.

use std::path::PathBuf;

use rtlat_engine::session::SessionPlan;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{Policy, ProcessCpus};

use super::usage::usage;
use crate::cli::cpufreq::RunGovernor;
use crate::cli::cyclic::governor::run_governor;
use crate::cli::cyclic::idle_states::RunIdleStates;
#[cfg(target_arch = "aarch64")]
use crate::cli::cyclic::options::Clock;
use crate::cli::cyclic::options::{self, Parsed, Plan, RunConfig};

/// A run checked and planned; nothing changed yet.
pub struct Prepared {
    /// The options.
    pub config: RunConfig,
    /// The online and default CPUs, read once before the main thread moves.
    pub cpus: ProcessCpus,
    /// The threads' placement and settings.
    pub plan: Plan,
    /// The measuring threads' policy.
    pub policy: Policy,
    /// `--profile`: the `rtlat-tools` binary its audit runs.
    pub audit_tools: Option<PathBuf>,
    /// `--governor` (or a profile's): what to set, held for the run.
    pub governor: Option<RunGovernor>,
    /// `--deepest-idle-state`: what to set, held for the run.
    pub idle_states: Option<RunIdleStates>,
    /// The process set-up: the threads' real-time permission (already checked), the main
    /// thread on `--mainaffinity`'s CPUs, `--backend xenomai`'s initialisation, `-m`,
    /// `/dev/cpu_dma_latency`.
    pub session_plan: SessionPlan,
}

/// Reads and checks the command line and plans the run; `None` when it asked for the help
/// (printed).
pub fn prepare(args: &[String], as_cyclictest: bool) -> Result<Option<Prepared>, String> {
    let config = match options::parse(args, as_cyclictest).map_err(|e| e.to_string())? {
        Parsed::Help => {
            out!("{}", usage(as_cyclictest));
            return Ok(None);
        }
        Parsed::Run(config) => config,
    };
    // The online CPUs (any may be named) and the default ones (the affinity mask, which
    // isolcpus= narrows): read once, before the main thread is moved.
    let cpus = ProcessCpus::read().map_err(|e| e.to_string())?;
    let plan = config.plan(&cpus).map_err(|e| e.to_string())?;
    config.check_cpuset(&plan, &cpus)?;
    config.check_output_paths().map_err(|e| e.to_string())?;
    // --governor, --profile: checked now, before anything changes; set once signals end the
    // run cleanly.
    let audit_tools = config
        .profile
        .as_ref()
        .map(|profile| profile.audit_tools())
        .transpose()?;
    let governor = run_governor(&config, &plan)?;
    let idle_states = crate::cli::cyclic::idle_states::check(&config, &cpus)?;
    // -c cntvct: CNTFRQ_EL0 set, and the counter running at that rate against CLOCK_MONOTONIC
    // (100 ms), before anything changes.
    #[cfg(target_arch = "aarch64")]
    if config.clock == Clock::Cntvct {
        rtlat_engine::timers::counter_clock().map_err(|e| e.to_string())?;
    }
    let policy = config.policy();
    // The process set-up: the threads' real-time permission checked now, before anything
    // changes; then the main thread on --mainaffinity's CPUs, --backend xenomai's
    // initialisation (a binary without Xenomai is refused there, before anything changes),
    // memory locked (-m), /dev/cpu_dma_latency held (each undone when the session drops).
    let session_plan = SessionPlan {
        realtime: plan
            .threads
            .iter()
            .map(|t| t.priority)
            .max()
            .map(|top| (policy, i32::from(top))),
        housekeeping: plan
            .main_affinity
            .as_ref()
            .map(|cpus| cpus.iter().collect()),
        lock_memory: config.mlockall,
        dma_latency_us: config.dma_latency_us(),
        init: config.backend.init(),
    };
    session_plan.check().map_err(|e| e.to_string())?;
    for notice in &plan.notices {
        errln!("{notice}");
    }
    if let Some(profile) = &config.profile {
        errln!("{}", profile.settings_line(&config, &plan));
    }
    if config.verbose {
        let online = cpus.online().len();
        let possible = CpuSet::possible(std::path::Path::new("/")).map_or(online, |s| s.len());
        outln!("Max CPUs = {possible}\nOnline CPUs = {online}");
    }
    Ok(Some(Prepared {
        config,
        cpus,
        plan,
        policy,
        audit_tools,
        governor,
        idle_states,
        session_plan,
    }))
}
