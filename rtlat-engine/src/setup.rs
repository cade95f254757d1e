//! The one set-up of a measuring thread, before its first cycle: run signals blocked (the
//! main thread answers them), policy and priority, CPU affinity, stack prefault, then the
//! clock and the timer made on the thread itself and rtlat-core's cycle engine over them.
//! Memory locking (`mlockall`) is the process's, done by the front before the threads start.

use rtlat_core::{Clock, CycleConfig, CycleEngine, Missed, Timer};
use rtlat_linux::{Policy, ThreadSetup};

use crate::error::MeasureError;

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
/// Errors do not name the thread (the front does, [`crate::error::OnThread`]).
pub fn prepare<C: Clock, T: Timer, M: Missed>(
    setup: &Setup,
    tid: impl FnOnce(i32),
    make: impl FnOnce() -> Result<(C, T), MeasureError>,
    config: CycleConfig,
) -> Result<(i32, CycleEngine<C, T, M>), MeasureError> {
    rtlat_linux::signals::block_run_signals().map_err(MeasureError::Signals)?;
    let mut thread = ThreadSetup::new(setup.policy, setup.priority);
    thread.cpus = setup.cpu.into_iter().collect();
    thread.prefault_stack = setup.prefault_stack;
    let id = thread.apply().map_err(MeasureError::Setup)?;
    tid(id);
    let (clock, timer) = make()?;
    let engine = CycleEngine::with_policy(clock, timer, config).map_err(MeasureError::Config)?;
    Ok((id, engine))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{OnThread, ThreadName};
    use rtlat_linux::{AbsoluteSleep, ClockId, PosixClock};

    fn on_cpu(cpu: usize) -> Setup {
        Setup {
            cpu: Some(cpu),
            policy: Policy::Other,
            priority: 0,
            prefault_stack: 0,
        }
    }

    fn monotonic() -> Result<(PosixClock, AbsoluteSleep), MeasureError> {
        let id = ClockId::Monotonic;
        Ok((PosixClock::new(id), AbsoluteSleep::new(id)))
    }

    #[test]
    fn each_step_fails_with_its_own_error_and_the_front_names_the_thread() {
        // On its own thread: the set-up blocks signals and moves the thread.
        std::thread::spawn(|| {
            // A CPU no machine has: the thread's set-up is refused, nothing else is tried.
            let mut told = None;
            let failed = prepare::<_, _, rtlat_core::Skip>(
                &on_cpu(100_000),
                |tid| told = Some(tid),
                monotonic,
                CycleConfig::new(1_000_000),
            )
            .expect_err("no CPU 100000");
            assert!(matches!(failed, MeasureError::Setup(_)), "{failed:?}");
            assert_eq!(told, None, "no thread id before the set-up succeeded");
            let named = OnThread {
                thread: ThreadName::Index(3),
                error: failed,
            };
            assert!(named.to_string().starts_with("thread 3: "), "{named}");
            assert!(std::error::Error::source(&named).is_some());

            // A zero interval: the engine refuses it, after the set-up.
            let failed = prepare::<_, _, rtlat_core::Skip>(
                &on_cpu(0),
                |tid| told = Some(tid),
                monotonic,
                CycleConfig::new(0),
            )
            .expect_err("a zero interval");
            assert!(matches!(failed, MeasureError::Config(_)), "{failed:?}");
            assert!(told.is_some_and(|tid| tid > 0));
            let named = OnThread {
                thread: ThreadName::Named("servo".into()),
                error: failed,
            };
            assert_eq!(
                named.to_string(),
                "servo thread: interval must be greater than zero"
            );
            let only = OnThread {
                thread: ThreadName::Only,
                error: MeasureError::EmptyHistogram,
            };
            assert_eq!(
                only.to_string(),
                "the histogram needs at least one cell of at least 1 ns"
            );
        })
        .join()
        .unwrap();
    }
}
