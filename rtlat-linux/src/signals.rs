//! The signals a measurement run answers: SIGINT, SIGTERM and SIGHUP end it cleanly (so that
//! what the run changed is restored when its terminal goes away), SIGUSR1 asks for
//! the current status. Handlers only set flags (async-signal-safe); the main thread acts on
//! them. Measurement threads block these signals so that they are always delivered to the
//! main thread and never interrupt a sleep.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Error;
use crate::sys;

static STOP: AtomicBool = AtomicBool::new(false);
static STATUS: AtomicBool = AtomicBool::new(false);
static SNAPSHOT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_signo: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_status(_signo: libc::c_int) {
    STATUS.store(true, Ordering::SeqCst);
}

extern "C" fn on_snapshot(_signo: libc::c_int) {
    SNAPSHOT.store(true, Ordering::SeqCst);
}

/// Installs the run's handlers: SIGINT, SIGTERM and SIGHUP set [`stop_requested`], SIGUSR1 sets
/// [`take_status_request`], SIGUSR2 sets [`take_snapshot_request`] (cyclictest's snapshot to
/// shared memory). Call once in the main thread, before starting measurement threads.
pub fn install_run_handlers() -> Result<(), Error> {
    for (signo, handler) in [
        (libc::SIGINT, on_stop as extern "C" fn(libc::c_int)),
        (libc::SIGTERM, on_stop),
        (libc::SIGHUP, on_stop),
        (libc::SIGUSR1, on_status),
        (libc::SIGUSR2, on_snapshot),
    ] {
        sys::set_signal_handler(signo, handler).map_err(|errno| Error::Signals {
            call: "sigaction",
            errno,
        })?;
    }
    Ok(())
}

/// Blocks SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 on the calling thread (a measurement
/// thread), so they
/// go to the main thread and never cut a sleep short.
pub fn block_run_signals() -> Result<(), Error> {
    let setup = |errno| Error::Signals {
        call: "pthread_sigmask",
        errno,
    };
    let mut set = sys::sigset_of(libc::SIGINT).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGTERM).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGHUP).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGUSR1).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGUSR2).map_err(setup)?;
    sys::block_signals(&set).map_err(setup)
}

/// True once SIGINT, SIGTERM or SIGHUP arrived (or [`request_stop`] was called).
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Asks the run to stop, as SIGINT would.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// True once per SIGUSR1: reading clears it.
pub fn take_status_request() -> bool {
    STATUS.swap(false, Ordering::SeqCst)
}

/// True once per SIGUSR2: reading clears it.
pub fn take_snapshot_request() -> bool {
    SNAPSHOT.swap(false, Ordering::SeqCst)
}
