//! Processes and threads: the PIDs in `/proc`, the TIDs in `/proc/PID/task`, and for each
//! thread its stat line and status (what `rtlat threads` lists and the audit checks against
//! the isolated CPUs).
//!
//! Processes come and go while `/proc` is read: a process or thread that exits between being
//! listed and being read is left out of [`Facts::threads_of`] and [`Facts::all_threads`].

use std::path::PathBuf;

use super::error::{FactError, FactResultExt};
use super::read;
use super::root::Facts;
use super::stat::TaskStat;
use super::status::TaskStatus;
use rtlat_linux::cpuset::CpuSet;

/// The longest name the kernel keeps for a task (`TASK_COMM_LEN` − 1 bytes).
pub const COMM_MAX: usize = 15;

/// One thread: its ids, its stat fields and its affinity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInfo {
    /// The process id.
    pub pid: u32,
    /// The thread id (equal to `pid` for the main thread).
    pub tid: u32,
    /// The thread's stat line (name, state, last CPU, policy, priorities, flags).
    pub stat: TaskStat,
    /// `Cpus_allowed_list` of its status: the CPUs it may run on.
    pub cpus_allowed: CpuSet,
}

impl ThreadInfo {
    /// The thread's name (`comm`).
    pub fn name(&self) -> &str {
        &self.stat.comm
    }

    /// Whether it is a kernel thread (see [`TaskStat::is_kernel_thread`]).
    pub fn is_kernel_thread(&self) -> bool {
        self.stat.is_kernel_thread()
    }
}

impl Facts {
    fn task_dir(&self, pid: u32, tid: u32) -> PathBuf {
        self.path(&format!("proc/{pid}/task/{tid}"))
    }

    /// The process ids in `/proc`, ascending.
    pub fn pids(&self) -> Result<Vec<u32>, FactError> {
        read::numbered_entries(&self.path("proc"))
    }

    /// The thread ids of process `pid` (`/proc/PID/task`), ascending.
    pub fn tids(&self, pid: u32) -> Result<Vec<u32>, FactError> {
        read::numbered_entries(&self.path(&format!("proc/{pid}/task")))
    }

    /// `/proc/PID/stat`: the process as a whole (its main thread's name).
    pub fn process_stat(&self, pid: u32) -> Result<TaskStat, FactError> {
        let path = self.path(&format!("proc/{pid}/stat"));
        TaskStat::parse(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }

    /// `/proc/PID/task/TID/stat`.
    pub fn task_stat(&self, pid: u32, tid: u32) -> Result<TaskStat, FactError> {
        let path = self.task_dir(pid, tid).join("stat");
        TaskStat::parse(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }

    /// `/proc/PID/task/TID/status`.
    pub fn task_status(&self, pid: u32, tid: u32) -> Result<TaskStatus, FactError> {
        let path = self.task_dir(pid, tid).join("status");
        TaskStatus::parse(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }

    /// One thread of one process.
    pub fn thread(&self, pid: u32, tid: u32) -> Result<ThreadInfo, FactError> {
        Ok(ThreadInfo {
            pid,
            tid,
            stat: self.task_stat(pid, tid)?,
            cpus_allowed: self.task_status(pid, tid)?.cpus_allowed,
        })
    }

    /// The threads of process `pid`, by TID ([`FactError::Absent`] if there is no such
    /// process).
    pub fn threads_of(&self, pid: u32) -> Result<Vec<ThreadInfo>, FactError> {
        let mut threads = Vec::new();
        for tid in self.tids(pid)? {
            threads.extend(self.thread(pid, tid).optional()?);
        }
        Ok(threads)
    }

    /// Every thread of every process (kernel threads included), by PID then TID.
    pub fn all_threads(&self) -> Result<Vec<ThreadInfo>, FactError> {
        let mut threads = Vec::new();
        for pid in self.pids()? {
            threads.extend(self.threads_of(pid).optional()?.unwrap_or_default());
        }
        Ok(threads)
    }

    /// Whether a process named `name` runs (its `/proc/PID/stat` name; the kernel keeps the
    /// first [`COMM_MAX`] bytes of a name, and so does the comparison).
    pub fn process_running(&self, name: &str) -> Result<bool, FactError> {
        let bytes = name.as_bytes();
        let wanted = bytes.get(..COMM_MAX).unwrap_or(bytes);
        for pid in self.pids()? {
            let stat = self.process_stat(pid).optional()?;
            if stat.is_some_and(|stat| stat.comm.as_bytes() == wanted) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether `irqbalance` runs (it moves IRQs onto isolated CPUs unless told not to).
    pub fn irqbalance_running(&self) -> Result<bool, FactError> {
        self.process_running("irqbalance")
    }
}
