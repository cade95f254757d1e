//! The one set-up of a measuring thread, before its first cycle: run signals blocked (the
//! main thread answers them), policy and priority, CPU affinity, stack prefault, then the
//! clock and the timer made on the thread itself and rtlat-core's cycle engine over them.
//! Memory locking (`mlockall`) is the process's, done by the front before the threads start.

use rtlat_core::{Clock, CycleConfig, CycleEngine, Missed, Timer};
use rtlat_linux::{Policy, ThreadSetup};

/// How a measuring thread is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// CPU to pin to (`None`: wherever the process may run).
    pub cpu: Option<usize>,
    /// Scheduling policy.
    pub policy: Policy,
    /// RT priority (0 for non-RT policies).
    pub priority: i32,
    /// Stack bytes to write before the run, so the loop's stack is mapped.
    pub prefault_stack: usize,
}

/// Sets up the calling thread as `setup` says, tells its kernel id to `tid` as soon as it is
/// known, makes its clock and timer with `make` and the engine for `config` over them.
/// Errors are one line without the thread's name (the front adds it).
pub fn prepare<C: Clock, T: Timer, M: Missed>(
    setup: &Setup,
    tid: impl FnOnce(i32),
    make: impl FnOnce() -> Result<(C, T), String>,
    config: CycleConfig,
) -> Result<(i32, CycleEngine<C, T, M>), String> {
    rtlat_linux::signals::block_run_signals().map_err(|e| e.to_string())?;
    let mut thread = ThreadSetup::new(setup.policy, setup.priority);
    thread.cpus = setup.cpu.into_iter().collect();
    thread.prefault_stack = setup.prefault_stack;
    let id = thread.apply().map_err(|e| e.to_string())?;
    tid(id);
    let (clock, timer) = make()?;
    let engine = CycleEngine::with_policy(clock, timer, config).map_err(|e| e.to_string())?;
    Ok((id, engine))
}
