//! A SCHED_FIFO hog: a thread of the test process pinned to a measured CPU that spins for a
//! while once released, the cause `--explain` must name.

use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rtlat_linux::thread::{Policy, gettid, set_affinity, set_scheduler};

/// The hog's name, as the verdicts show it.
pub const HOG_NAME: &str = "rtlat-hog";

/// The CPU the `--explain` tests measure: the last, so that the sampler and the test have
/// another (on a one-CPU machine, CPU 0 for all).
pub fn explained_cpu() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()) - 1
}

/// A hog waiting for its release; released (if not yet) when dropped, then joined.
pub struct Hog {
    /// Its thread id.
    pub tid: u32,
    release: Option<Arc<Barrier>>,
    exit: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Hog {
    /// A SCHED_FIFO `priority` thread of this process named [`HOG_NAME`], pinned to `cpu`:
    /// made now (so a sampler started later follows it), it spins `spin` once
    /// [released](Hog::release) and lives until dropped (a task gone is not read). Panics
    /// when SCHED_FIFO is refused (these tests run as root).
    pub fn new(cpu: usize, priority: i32, spin: Duration) -> Hog {
        let (tx, rx) = channel();
        let (exit, exit_rx): (_, Receiver<()>) = channel();
        let release = Arc::new(Barrier::new(2));
        let waits = Arc::clone(&release);
        let thread = std::thread::Builder::new()
            .name(HOG_NAME.into())
            .spawn(move || {
                let ready =
                    set_affinity(&[cpu]).and_then(|()| set_scheduler(Policy::Fifo, priority));
                let _ = tx.send(ready.as_ref().ok().map(|()| gettid() as u32));
                if ready.is_err() {
                    return;
                }
                waits.wait();
                let until = Instant::now() + spin;
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                let _ = exit_rx.recv();
            })
            .expect("start the hog");
        let tid = rx.recv().expect("the hog's tid");
        let Some(tid) = tid else {
            let _ = thread.join();
            panic!("SCHED_FIFO {priority} refused: these tests run as root");
        };
        Hog {
            tid,
            release: Some(release),
            exit: Some(exit),
            thread: Some(thread),
        }
    }

    /// Lets it spin.
    pub fn release(&mut self) {
        if let Some(release) = self.release.take() {
            release.wait();
        }
    }

    /// The start of the verdict's line that names it: `SCHED_FIFO 95 task rtlat-hog (pid
    /// P, tid T) ran on CPU C for `.
    pub fn named(&self, priority: i32, cpu: usize) -> String {
        format!(
            "SCHED_FIFO {priority} task {HOG_NAME} (pid {}, tid {}) ran on CPU {cpu} for ",
            std::process::id(),
            self.tid
        )
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        self.release();
        drop(self.exit.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
