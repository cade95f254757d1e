//! Whether a thread id still names the thread a change was planned for: the kernel's calls
//! take a bare thread id, and an id is handed out again once its thread ends, so every change
//! to a thread ([`super::change`], [`super::thread`]) checks this first.

use super::error::TuneError;
use crate::facts::{FactResultExt as _, Facts};

/// Checks that thread `tid` of process `pid` is still the thread that started at
/// `start_time`: [`TuneError::NoSuchThread`] if process `pid` has no thread `tid` any more,
/// [`TuneError::ThreadReplaced`] if it has one that started at another time (the thread
/// ended and both ids were handed out again). The kernel's calls take a bare thread id;
/// this is checked before each one (and after a thread's settings are read), so that a
/// change planned for one thread is never made to another that was given its id.
pub fn check_same_thread(pid: u32, tid: u32, name: &str, start_time: u64) -> Result<(), TuneError> {
    // `/proc/PID/task/TID` exists only for a thread TID of process PID.
    let stat = Facts::live()
        .task_stat(pid, tid)
        .optional()?
        .ok_or(TuneError::NoSuchThread { tid })?;
    if stat.start_time != start_time {
        return Err(TuneError::ThreadReplaced {
            pid,
            tid,
            name: name.to_owned(),
        });
    }
    Ok(())
}
