//! Starting and joining a session's measuring threads, the same way for every mode.
//!
//! [`measurement_threads`] spawns the named threads with [`THREAD_STACK`] in one
//! [`std::thread::scope`], runs the front's supervisor on the calling thread, then joins them.
//! A thread runs its body only once every thread has started: when a spawn fails part-way,
//! the threads already started end without running it, so none is left waiting at a
//! barrier the missing thread would have filled.

use core::fmt;
use std::io;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::{Builder, Scope, ScopedJoinHandle};

/// Each measuring thread's stack: the loop needs a few KiB (8 KiB measured, optimised);
/// `rtlat run`'s 32 KiB prefault ([`crate::setup::Setup::prefault_stack`]) plus its safety
/// margin fit with room to spare, also in a debug build, whose unoptimised frames had used
/// 87 KiB before the prefault (`-x`, `--json`, `--smi`'s code beside: 17 bytes short of
/// 128 KiB). Rust's default (2 MiB) would be made resident by `mlockall` in full.
pub const THREAD_STACK: usize = 192 * 1024;

/// A measuring thread that did not bring back its report: `E` is its body's own error.
#[derive(Debug)]
pub enum ThreadFailed<E> {
    /// The thread could not be spawned (the threads already started ended unmeasured).
    CannotStart {
        /// The thread's name.
        name: String,
        /// The system's reason.
        error: io::Error,
    },
    /// The thread panicked.
    Panicked {
        /// The thread's name.
        name: String,
    },
    /// The thread's body failed.
    Failed(E),
}

impl<E: fmt::Display> fmt::Display for ThreadFailed<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThreadFailed::CannotStart { name, error } => {
                write!(f, "cannot start the measuring thread {name}: {error}")
            }
            ThreadFailed::Panicked { name } => write!(f, "the measuring thread {name} panicked"),
            ThreadFailed::Failed(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for ThreadFailed<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ThreadFailed::CannotStart { error, .. } => Some(error),
            ThreadFailed::Panicked { .. } => None,
            ThreadFailed::Failed(e) => Some(e),
        }
    }
}

/// Spawns one thread per `(name, body)` with [`THREAD_STACK`], runs `supervise` on the
/// calling thread once all have started, then joins them in order.
///
/// Returns the bodies' reports and the supervisor's result, or the first failure in thread
/// order: a body's own error, a panic, or (when a spawn fails, before `supervise` runs) the
/// spawn's error, after the threads already started ended without running their bodies.
pub fn measurement_threads<'env, T, E, F, S>(
    threads: impl IntoIterator<Item = (String, F)>,
    supervise: impl for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> S,
) -> Result<(Vec<T>, S), ThreadFailed<E>>
where
    F: FnOnce() -> Result<T, E> + Send + 'env,
    T: Send + 'env,
    E: Send + 'env,
{
    spawn_and_join(threads, |_| THREAD_STACK, supervise)
}

/// [`measurement_threads`] with the stack size per thread (position) given: the tests make
/// a spawn fail with an impossible one.
fn spawn_and_join<'env, T, E, F, S>(
    threads: impl IntoIterator<Item = (String, F)>,
    stack_size: impl Fn(usize) -> usize,
    supervise: impl for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> S,
) -> Result<(Vec<T>, S), ThreadFailed<E>>
where
    F: FnOnce() -> Result<T, E> + Send + 'env,
    T: Send + 'env,
    E: Send + 'env,
{
    let gate = Arc::new(Gate::default());
    std::thread::scope(|scope| {
        // Each started thread's name and handle (`None`: it ended without running its body).
        let mut handles: Vec<(String, Started<'_, T, E>)> = Vec::new();
        for (index, (name, body)) in threads.into_iter().enumerate() {
            let held = Arc::clone(&gate);
            let spawned = Builder::new()
                .name(name.clone())
                .stack_size(stack_size(index))
                .spawn_scoped(scope, move || held.wait().then(body));
            match spawned {
                Ok(handle) => handles.push((name, handle)),
                Err(error) => {
                    // The threads already started return without running their bodies;
                    // the scope joins them.
                    gate.open(false);
                    return Err(ThreadFailed::CannotStart { name, error });
                }
            }
        }
        gate.open(true);
        let supervised = supervise(scope);
        // Every thread is joined (a panic left unjoined would panic the scope); the first
        // failure in thread order is the one returned.
        let mut reports = Vec::with_capacity(handles.len());
        let mut first_failure = None;
        for (name, handle) in handles {
            let report = match handle.join() {
                Ok(Some(report)) => report.map_err(ThreadFailed::Failed),
                Ok(None) | Err(_) => Err(ThreadFailed::Panicked { name }),
            };
            match report {
                Ok(report) => reports.push(report),
                Err(failure) => {
                    first_failure.get_or_insert(failure);
                }
            }
        }
        match first_failure {
            Some(failure) => Err(failure),
            None => Ok((reports, supervised)),
        }
    })
}

/// A started thread's handle: its body's result, `None` when it did not run it.
type Started<'scope, T, E> = ScopedJoinHandle<'scope, Option<Result<T, E>>>;

/// Holds the started threads until every thread has started (`true`) or one could not
/// (`false`).
#[derive(Default)]
struct Gate {
    open: Mutex<Option<bool>>,
    opened: Condvar,
}

impl Gate {
    fn open(&self, run: bool) {
        *self.open.lock().unwrap_or_else(PoisonError::into_inner) = Some(run);
        self.opened.notify_all();
    }

    /// Whether to run the body, once the gate is open.
    fn wait(&self) -> bool {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match *open {
                Some(run) => return run,
                None => {
                    open = self
                        .opened
                        .wait(open)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    /// Runs `f` on its own thread; `None` if it has not returned within a minute (a hang).
    fn without_hang<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(60)).ok()
    }

    #[test]
    fn every_thread_runs_named_and_reports_in_order() {
        let ready = Barrier::new(4);
        let supervised = AtomicUsize::new(0);
        let threads = (0..3).map(|i| {
            let ready = &ready;
            (format!("rtlat-t{i}"), move || {
                ready.wait();
                Ok::<_, String>((i, std::thread::current().name().map(str::to_owned)))
            })
        });
        let (reports, s) = measurement_threads(threads, |_| {
            ready.wait();
            supervised.fetch_add(1, Ordering::Relaxed)
        })
        .expect("all threads run");
        assert_eq!(s, 0);
        assert_eq!(supervised.load(Ordering::Relaxed), 1);
        let expected: Vec<_> = (0..3).map(|i| (i, Some(format!("rtlat-t{i}")))).collect();
        assert_eq!(reports, expected);
    }

    #[test]
    fn a_spawn_failing_part_way_ends_the_started_threads() {
        // Threads 0 and 1 start, thread 2 cannot (its stack cannot be mapped); the started
        // ones would wait at the barrier for thread 2 and the supervisor forever.
        let result = without_hang(|| {
            let ready = Barrier::new(4);
            let bodies = AtomicUsize::new(0);
            let threads = (0..3).map(|i| {
                let (ready, bodies) = (&ready, &bodies);
                (format!("rtlat-t{i}"), move || {
                    bodies.fetch_add(1, Ordering::Relaxed);
                    ready.wait();
                    Ok::<_, String>(i)
                })
            });
            let mut supervised = false;
            let result = spawn_and_join(
                threads,
                |i| if i == 2 { 1 << 60 } else { THREAD_STACK },
                |_| {
                    supervised = true;
                    ready.wait();
                },
            );
            (result, supervised, bodies.load(Ordering::Relaxed))
        });
        let (result, supervised, bodies) = result.expect("the session ended (no hang)");
        let failure = result.expect_err("the spawn failed");
        assert!(
            matches!(&failure, ThreadFailed::CannotStart { name, .. } if name == "rtlat-t2"),
            "unexpected failure: {failure:?}"
        );
        assert!(
            failure
                .to_string()
                .starts_with("cannot start the measuring thread rtlat-t2: "),
            "{failure}"
        );
        assert!(!supervised, "the supervisor does not run");
        assert_eq!(bodies, 0, "no started thread runs its body");
    }

    #[test]
    fn the_first_error_in_thread_order_is_returned() {
        let threads = (0..3).map(|i| {
            (format!("rtlat-t{i}"), move || match i {
                1 => Err(format!("thread {i}: cannot set the policy")),
                2 => panic!("thread {i}"),
                _ => Ok(i),
            })
        });
        let failure = measurement_threads(threads, |_| ()).expect_err("thread 1");
        assert!(matches!(&failure, ThreadFailed::Failed(_)), "{failure:?}");
        assert_eq!(failure.to_string(), "thread 1: cannot set the policy");
    }

    #[test]
    fn a_panic_is_one_line() {
        let threads = std::iter::once(("rtlat-t0".to_string(), || -> Result<(), String> {
            panic!("boom")
        }));
        let failure = measurement_threads(threads, |_| ()).expect_err("panicked");
        assert_eq!(
            failure.to_string(),
            "the measuring thread rtlat-t0 panicked"
        );
    }
}
