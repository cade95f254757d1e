//! The measurement session as every front runs it: options → [`SessionPlan`] →
//! [`Session::start`] (the process set-up, done once) → [`Session::measure`] (the measuring
//! threads, with the front's [`Supervisor`] on the main thread) → the front's output.
//!
//! The set-up, in order: the real-time permission checked ([`SessionPlan::check`], before
//! anything changes), the main thread moved to the housekeeping CPUs, memory locked,
//! `/dev/cpu_dma_latency` held. A step that cannot be taken but need not stop the run (memory
//! locking, the DMA latency) is a [`Notice`] the front words its own way; everything the
//! session changed is undone when the [`Session`] drops.
//!
//! ```no_run
//! use rtlat_engine::session::{Notice, Session, SessionPlan};
//!
//! let plan = SessionPlan {
//!     lock_memory: true,
//!     dma_latency_us: Some(0),
//!     ..SessionPlan::default()
//! };
//! plan.check()?;
//! let session = Session::start(&plan, |notice: Notice| eprintln!("{notice}"))?;
//! // ... session.measure(threads, supervisor) ...
//! drop(session); // /dev/cpu_dma_latency released
//! # Ok::<(), rtlat_engine::session::SessionError>(())
//! ```

mod error;
mod supervisor;

pub use error::{InitError, SessionError};
pub use supervisor::{ENDING, Pass, Supervisor, supervise};

use core::fmt;
use std::thread::Scope;

use rtlat_linux::{DmaLatencyError, DmaLatencyGuard, MemoryError, Policy, signals};

use crate::error::OnThread;
use crate::threads::measurement_threads;

/// What a session sets up for the process, before its measuring threads start.
#[derive(Debug, Clone, Default)]
pub struct SessionPlan {
    /// The measuring threads' policy and highest priority, whose permission is checked
    /// before anything changes (`None`: no real-time thread).
    pub realtime: Option<(Policy, i32)>,
    /// The CPUs the main thread (and the helper threads it starts) moves to: the
    /// housekeeping CPUs (`None`: it stays where it is).
    pub housekeeping: Option<Vec<usize>>,
    /// Lock the process's memory (`mlockall`) for the session.
    pub lock_memory: bool,
    /// Hold `/dev/cpu_dma_latency` at this many µs for the session.
    pub dma_latency_us: Option<u32>,
    /// The front's own initialisation on the main thread, once it is on the housekeeping
    /// CPUs (threads it starts inherit them) and before anything else changes (Xenomai's,
    /// for `--backend xenomai`); its failure ends the session.
    pub init: Option<fn() -> Result<(), InitError>>,
}

/// A step of the set-up that could not be taken, or that was, told to the front to word.
#[derive(Debug)]
pub enum Notice {
    /// Memory could not be locked: the session goes on, page faults may add latency.
    MemoryNotLocked(MemoryError),
    /// `/dev/cpu_dma_latency` is held at this many µs until the session ends.
    DmaLatencyHeld(u32),
    /// `/dev/cpu_dma_latency` could not be held: C-states are not limited.
    DmaLatencyNotHeld(DmaLatencyError),
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::MemoryNotLocked(e) => write!(f, "warning: {e}"),
            Notice::DmaLatencyHeld(us) => write!(f, "# /dev/cpu_dma_latency set to {us}us"),
            Notice::DmaLatencyNotHeld(e) => write!(f, "warning: {e}"),
        }
    }
}

impl SessionPlan {
    /// What can be checked before anything changes: that the threads may take their
    /// real-time policy and priority.
    pub fn check(&self) -> Result<(), SessionError> {
        if let Some((policy, priority)) = self.realtime {
            rtlat_linux::check_rt_permission(policy, priority).map_err(SessionError::Permission)?;
        }
        Ok(())
    }
}

/// A started session: what it changed, undone when it drops.
#[derive(Debug)]
pub struct Session {
    /// Held for the session; released on drop.
    _dma_latency: Option<DmaLatencyGuard>,
}

impl Session {
    /// Installs the stop handlers (SIGINT, SIGTERM, SIGHUP end the session cleanly, SIGUSR1
    /// and SIGUSR2 are answered) and makes each of `also_stop` a stop signal too. Call it
    /// first thing, before the options are read: a signal that comes at any moment after
    /// ends the session cleanly.
    pub fn handle_signals(also_stop: &[libc::c_int]) -> Result<(), SessionError> {
        signals::install_run_handlers().map_err(SessionError::Signals)?;
        for &signo in also_stop {
            signals::install_stop_handler(signo).map_err(SessionError::Signals)?;
        }
        Ok(())
    }

    /// Sets the process up as `plan` says: the main thread on the housekeeping CPUs, the
    /// front's initialisation, memory locked, the DMA latency held. Steps that need not stop
    /// the session come to `notice`. Call [`SessionPlan::check`] first.
    pub fn start(
        plan: &SessionPlan,
        mut notice: impl FnMut(Notice),
    ) -> Result<Session, SessionError> {
        if let Some(cpus) = &plan.housekeeping {
            rtlat_linux::set_affinity(cpus).map_err(SessionError::Housekeeping)?;
        }
        if let Some(init) = plan.init {
            init().map_err(SessionError::Init)?;
        }
        if plan.lock_memory
            && let Err(e) = rtlat_linux::lock_memory()
        {
            notice(Notice::MemoryNotLocked(e));
        }
        let dma_latency = plan.dma_latency_us.and_then(|us| {
            match DmaLatencyGuard::set(i32::try_from(us).unwrap_or(i32::MAX)) {
                Ok(guard) => {
                    notice(Notice::DmaLatencyHeld(us));
                    Some(guard)
                }
                Err(e) => {
                    notice(Notice::DmaLatencyNotHeld(e));
                    None
                }
            }
        });
        Ok(Session {
            _dma_latency: dma_latency,
        })
    }

    /// Runs the measuring threads (`(name, body)` each, see [`measurement_threads`]) with the
    /// front's supervisor on the calling thread: `ready` runs once every thread has started
    /// (it waits for them to be set up, starts what runs beside them, and returns the
    /// supervisor; a front that refuses to go on tells its threads to stop there), then
    /// [`supervise`] drives it until every thread is done. Returns the bodies' reports and
    /// the supervisor, or the first failure.
    pub fn measure<'env, T, F, S>(
        &self,
        threads: impl IntoIterator<Item = (String, F)>,
        ready: impl for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> S,
    ) -> Result<(Vec<T>, S), SessionError>
    where
        F: FnOnce() -> Result<T, OnThread> + Send + 'env,
        T: Send + 'env,
        S: Supervisor,
    {
        measurement_threads(threads, |scope| {
            let mut supervisor = ready(scope);
            supervise(&mut supervisor);
            supervisor
        })
        .map_err(SessionError::Thread)
    }
}
