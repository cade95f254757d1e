//! `rtlat threads --json`: an array of [`Thread`].

use serde::Serialize;

/// One thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thread {
    /// Its process.
    pub pid: u32,
    /// Its TID.
    pub tid: u32,
    /// Its process's name.
    pub process: String,
    /// Its name.
    pub name: String,
    /// The CPU it last ran on.
    pub cpu: usize,
    /// Its scheduling policy (`fifo`, `rr`, `other` …).
    pub policy: String,
    /// Its real-time priority.
    pub rt_priority: u32,
    /// Its nice value.
    pub nice: i32,
    /// The CPUs it may run on, as a list (`0-3`).
    pub affinity: String,
    /// Its state letter (`R`, `S` …).
    pub state: String,
    /// Whether it is a kernel thread.
    pub kernel_thread: bool,
}
