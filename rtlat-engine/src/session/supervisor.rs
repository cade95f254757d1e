//! The main thread's part of a session: the front's periodic work (redraws, drains,
//! status requests, windows) as a [`Supervisor`], and the loop every front shares
//! ([`supervise`]): passes at the front's cadence until every measuring thread is done, the
//! end of the session decided once (a stop signal, or the front's own reason), the threads
//! still asleep then woken rather than left to their next deadline.

use std::time::Duration;

use rtlat_linux::signals;

/// How often the main thread looks again once the session is ending, until every thread is
/// done (waking a sleeping thread takes microseconds).
pub const ENDING: Duration = Duration::from_millis(1);

/// Whether a pass comes while the session runs or while it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// The threads measure.
    Running,
    /// The session is ending: the threads are being woken and leave their loops.
    Ending,
}

/// A front's periodic work on the main thread while its threads measure.
pub trait Supervisor {
    /// The pause between two passes while the threads measure.
    fn cadence(&self) -> Duration;

    /// Whether every measuring thread has left its loop.
    fn all_done(&self) -> bool;

    /// One pass of the front's work.
    fn pass(&mut self, pass: Pass);

    /// Whether the front ends the session now, beyond a stop signal (which always does): a
    /// duration reached, a reader gone, a thread's own end (default: never).
    fn should_end(&mut self) -> bool {
        false
    }

    /// Tells the measuring threads to stop (they leave their loops at their next look).
    fn end(&self);

    /// Whether the threads have been told to stop (by [`Supervisor::end`], or by one of
    /// them: a break threshold crossed).
    fn ending(&self) -> bool;

    /// The kernel thread ids of the measuring threads still in their loops.
    fn running(&self) -> Vec<i32>;

    /// Once every thread is done, after the last pass (default: nothing).
    fn ended(&mut self) {}
}

/// Runs `supervisor` until every measuring thread is done: a pass, then the end decided
/// (a stop signal or [`Supervisor::should_end`]), then a pause: the front's cadence while the
/// threads measure (a signal ends it at once), [`ENDING`] once they are told to stop, with
/// the threads still asleep woken on each such pass (a wake-up sent just before a thread
/// starts a sleep is not seen by that sleep).
pub fn supervise<S: Supervisor + ?Sized>(supervisor: &mut S) {
    let mut pass = Pass::Running;
    loop {
        let done = supervisor.all_done();
        supervisor.pass(pass);
        if done {
            break;
        }
        if signals::stop_requested() || supervisor.should_end() {
            supervisor.end();
        }
        if supervisor.ending() {
            pass = Pass::Ending;
            signals::cancel_measurement(supervisor.running());
            signals::sleep_or_signal(ENDING);
        } else {
            signals::sleep_or_signal(supervisor.cadence());
        }
    }
    supervisor.ended();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    /// A front whose "threads" finish a few passes after being told to stop.
    struct Counting {
        passes: Vec<Pass>,
        end_after: u32,
        stop: AtomicBool,
        left: AtomicU32,
        ended: bool,
    }

    impl Supervisor for Counting {
        fn cadence(&self) -> Duration {
            Duration::from_micros(10)
        }
        fn all_done(&self) -> bool {
            self.left.load(Ordering::Relaxed) == 0
        }
        fn pass(&mut self, pass: Pass) {
            self.passes.push(pass);
            if self.stop.load(Ordering::Relaxed) {
                self.left.fetch_sub(1, Ordering::Relaxed);
            }
        }
        fn should_end(&mut self) -> bool {
            self.passes.len() as u32 >= self.end_after
        }
        fn end(&self) {
            self.stop.store(true, Ordering::Relaxed);
        }
        fn ending(&self) -> bool {
            self.stop.load(Ordering::Relaxed)
        }
        fn running(&self) -> Vec<i32> {
            Vec::new()
        }
        fn ended(&mut self) {
            self.ended = true;
        }
    }

    #[test]
    fn passes_run_until_the_front_ends_then_end_until_every_thread_is_done() {
        let mut front = Counting {
            passes: Vec::new(),
            end_after: 3,
            stop: AtomicBool::new(false),
            left: AtomicU32::new(2),
            ended: false,
        };
        supervise(&mut front);
        // Three passes while running; the end decided after the third; two passes to
        // finish the two threads, and one more that sees them done.
        assert_eq!(
            front.passes,
            [
                Pass::Running,
                Pass::Running,
                Pass::Running,
                Pass::Ending,
                Pass::Ending,
                Pass::Ending
            ]
        );
        assert!(front.ended);
    }

    #[test]
    fn threads_already_done_get_one_pass() {
        let mut front = Counting {
            passes: Vec::new(),
            end_after: u32::MAX,
            stop: AtomicBool::new(false),
            left: AtomicU32::new(0),
            ended: false,
        };
        supervise(&mut front);
        assert_eq!(front.passes, [Pass::Running]);
        assert!(front.ended);
    }
}
