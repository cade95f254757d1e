//! The signals a measurement run answers: SIGINT, SIGTERM and SIGHUP end it cleanly (so that
//! what the run changed is restored when its terminal goes away), SIGUSR1 asks for
//! the current status. Handlers only set flags (async-signal-safe); the main thread acts on
//! them. Measurement threads block these signals so that they are always delivered to the
//! main thread and never interrupt a sleep.
//!
//! Ending a run does not wait for the measurement threads to wake up (an interval or a
//! `--secaligned` start may be an hour away): the main thread calls [`cancel_measurement`],
//! which sets a process-wide flag and sends each measurement thread [`wake_signal`], a
//! real-time signal whose handler does nothing. The signal cuts the thread's sleep short
//! (`EINTR`: no handler here asks for `SA_RESTART`); the timers of [`crate::timer`] look at
//! the flag only then, and return [`SleepError::Cancelled`](crate::timer::SleepError::Cancelled) instead
//! of sleeping again. The measurement's hot path pays nothing for it: no extra system call,
//! load or branch per cycle.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::errno::Errno;
use crate::sys;

/// Installing a signal handler or changing a signal mask failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed: {errno}; the run cannot stop cleanly on SIGINT/SIGTERM without it")]
pub struct SignalError {
    /// The failing call.
    pub call: &'static str,
    /// The OS error.
    pub errno: Errno,
}

static STOP: AtomicBool = AtomicBool::new(false);
static STATUS: AtomicBool = AtomicBool::new(false);
static SNAPSHOT: AtomicBool = AtomicBool::new(false);
/// Set once by [`cancel_measurement`]; never cleared (a process measures once).
static CANCEL: AtomicBool = AtomicBool::new(false);
/// Whether [`wake_signal`] has its handler: without one, the signal would kill the process.
static WAKE_HANDLED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_signo: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_status(_signo: libc::c_int) {
    STATUS.store(true, Ordering::SeqCst);
}

extern "C" fn on_snapshot(_signo: libc::c_int) {
    SNAPSHOT.store(true, Ordering::SeqCst);
}

/// Does nothing: the wake-up signal's only effect is the `EINTR` of the sleep it interrupts.
extern "C" fn on_wake(_signo: libc::c_int) {}

/// The signal [`cancel_measurement`] wakes measurement threads with: `SIGRTMIN + 1` (a
/// [`PosixTimer`](crate::PosixTimer) uses `SIGRTMIN` by default).
pub fn wake_signal() -> i32 {
    sys::sigrtmin() + 1
}

/// The signals a run answers, in the order [`install_run_handlers`] installs them.
fn run_signals() -> [(libc::c_int, extern "C" fn(libc::c_int)); 6] {
    [
        (libc::SIGINT, on_stop as extern "C" fn(libc::c_int)),
        (libc::SIGTERM, on_stop),
        (libc::SIGHUP, on_stop),
        (libc::SIGUSR1, on_status),
        (libc::SIGUSR2, on_snapshot),
        (wake_signal(), on_wake),
    ]
}

/// Installs the run's handlers: SIGINT, SIGTERM and SIGHUP set [`stop_requested`], SIGUSR1 sets
/// [`take_status_request`], SIGUSR2 sets [`take_snapshot_request`] (cyclictest's snapshot to
/// shared memory), and [`wake_signal`] gets a handler that does nothing. Then unblocks all of
/// them on the calling thread, so that one that arrived before, held pending by a mask
/// inherited from whoever started the process, is taken now.
///
/// A SIGHUP that is ignored when this is called (`nohup rtlat run …`) stays ignored: the
/// run outlives its terminal, as asked.
///
/// Call it first thing in a measuring command, in the main thread, before starting
/// measurement threads: until then these signals have their default action (SIGUSR1 and
/// SIGHUP kill the process).
pub fn install_run_handlers() -> Result<(), SignalError> {
    let failed = |call| move |errno| SignalError { call, errno };
    let mut set = sys::sigset_of(libc::SIGINT).map_err(failed("sigaddset"))?;
    for (signo, handler) in run_signals() {
        if signo == libc::SIGHUP && sys::signal_ignored(signo).map_err(failed("sigaction"))? {
            continue;
        }
        sys::set_signal_handler(signo, handler).map_err(failed("sigaction"))?;
        sys::sigset_add(&mut set, signo).map_err(failed("sigaddset"))?;
    }
    WAKE_HANDLED.store(true, Ordering::SeqCst);
    sys::unblock_signals(&set).map_err(failed("pthread_sigmask"))
}

/// Makes `signo` a stop signal too, as SIGINT is: its handler sets [`stop_requested`], and
/// it is unblocked on the calling thread (a signal held pending is taken now). For a
/// command whose model tool stops on one more signal (Xenomai's `latency` on SIGALRM). Call
/// it after [`install_run_handlers`], in the main thread, before starting measurement
/// threads ([`block_run_signals`] blocks SIGALRM in them; any other signal given here
/// should be blocked there too).
pub fn install_stop_handler(signo: libc::c_int) -> Result<(), SignalError> {
    let failed = |call| move |errno| SignalError { call, errno };
    sys::set_signal_handler(signo, on_stop).map_err(failed("sigaction"))?;
    let set = sys::sigset_of(signo).map_err(failed("sigaddset"))?;
    sys::unblock_signals(&set).map_err(failed("pthread_sigmask"))
}

/// Blocks SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 and SIGALRM on the calling thread (a
/// measurement thread), so they go to the main thread and never cut a sleep short; unblocks
/// [`wake_signal`], which is how [`cancel_measurement`] reaches the thread.
pub fn block_run_signals() -> Result<(), SignalError> {
    let setup = |errno| SignalError {
        call: "pthread_sigmask",
        errno,
    };
    let mut set = sys::sigset_of(libc::SIGINT).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGTERM).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGHUP).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGUSR1).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGUSR2).map_err(setup)?;
    sys::sigset_add(&mut set, libc::SIGALRM).map_err(setup)?;
    sys::block_signals(&set).map_err(setup)?;
    sys::unblock_signals(&sys::sigset_of(wake_signal()).map_err(setup)?).map_err(setup)
}

/// Sleeps for `duration`, or less: returns as soon as a signal handler has run on the calling
/// thread. The main thread's pause between two looks at [`stop_requested`]: a stop signal
/// (which measurement threads block, so it comes to the main thread) ends the pause at once
/// instead of when it would have ended (`std::thread::sleep` sleeps again after a signal).
pub fn sleep_or_signal(duration: std::time::Duration) {
    let ns = u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    // EINTR is the point; any other error (none is expected) ends the pause early too.
    let _ = sys::clock_nanosleep_rel(
        nix::time::ClockId::CLOCK_MONOTONIC,
        &crate::clock::timespec_from_ns(ns),
    );
}

/// Ends the process as SIGPIPE's default action does: what a program that writes to a pipe
/// whose reader has gone (`rtlat run -v | head -3`) is expected to do, so that the shell
/// sees status 141 as it does for cyclictest. Call it last, once what the run changed is
/// restored: Rust starts with SIGPIPE ignored, so the write itself only failed with `EPIPE`.
/// Should the signal not end the process (it cannot be unblocked), exits with status 141.
pub fn die_of_sigpipe() -> ! {
    let _ = sys::raise_with_default_action(nix::sys::signal::Signal::SIGPIPE);
    std::process::exit(128 + libc::SIGPIPE)
}

/// True once SIGINT, SIGTERM or SIGHUP arrived (or [`request_stop`] was called).
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// Asks the run to stop, as SIGINT would.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// Ends the measurement now, whatever its threads are sleeping for: from this call on, a
/// sleep of [`crate::timer`] that a signal interrupts returns
/// [`SleepError::Cancelled`](crate::timer::SleepError::Cancelled) instead of sleeping again,
/// and each thread of `tids` (measurement threads' ids from
/// [`gettid`](crate::thread::gettid); 0, a thread not started yet, is skipped) is sent
/// [`wake_signal`], which interrupts its sleep.
///
/// A wake-up that reaches a thread after its last look at the run's stop flag but before its
/// sleep starts is not seen by that sleep: call this again, on every pass of the supervising
/// loop, until the threads have finished (one `tgkill` per thread). Does nothing to the
/// threads before [`install_run_handlers`] (the signal would kill the process).
pub fn cancel_measurement(tids: impl IntoIterator<Item = i32>) {
    CANCEL.store(true, Ordering::SeqCst);
    if !WAKE_HANDLED.load(Ordering::SeqCst) {
        return;
    }
    for tid in tids.into_iter().filter(|&tid| tid > 0) {
        // ESRCH: the thread has just finished; nothing to wake.
        let _ = sys::signal_thread(tid, wake_signal());
    }
}

/// True once [`cancel_measurement`] was called. The timers read it only after a signal
/// interrupted their sleep.
#[inline]
pub fn measurement_cancelled() -> bool {
    CANCEL.load(Ordering::Acquire)
}

/// True once per SIGUSR1: reading clears it.
pub fn take_status_request() -> bool {
    STATUS.swap(false, Ordering::SeqCst)
}

/// True once per SIGUSR2: reading clears it.
pub fn take_snapshot_request() -> bool {
    SNAPSHOT.swap(false, Ordering::SeqCst)
}
