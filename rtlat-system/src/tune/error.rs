//! [`TuneError`], the error of every change the tuning commands make or plan.
//!
//! It imports only the leaf errors below it (rtlat-linux's [`Errno`] and [`OsError`], this
//! crate's [`FactError`]), never the modules of [`crate::tune`] that return it.

use std::path::PathBuf;

use rtlat_linux::{Errno, OsError};

use crate::facts::FactError;

/// Everything that can go wrong while planning, making, holding or undoing a tuning change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TuneError {
    /// A system fact (see [`crate::facts`]) could not be read.
    #[error(transparent)]
    Fact(#[from] FactError),
    /// Reading this process's credentials failed (`capget`, `getrlimit`).
    #[error(transparent)]
    Os(#[from] OsError),
    /// Reading a thread's scheduling failed for a reason other than its absence.
    #[error("{call} failed: {errno}")]
    Sched {
        /// The failing call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// The kernel reported a policy rtlat does not model (e.g. `SCHED_DEADLINE`).
    #[error(
        "thread runs under scheduling policy {0}, which rtlat does not handle; reset it with `chrt -o -p 0 PID`"
    )]
    UnsupportedPolicy(i32),
    /// A CPU index beyond what a CPU set can hold.
    #[error("CPU {cpu} is beyond the highest supported CPU index {max}")]
    CpuOutOfRange {
        /// The CPU asked for.
        cpu: usize,
        /// The highest accepted index.
        max: usize,
    },
    /// Writing a kernel file (see [`crate::tune`]) was refused for lack of privilege.
    #[error("writing {} needs {privilege}: {errno}", path.display())]
    WriteDenied {
        /// The file.
        path: PathBuf,
        /// Who may write it, e.g. `root (or CAP_DAC_OVERRIDE: the file is root's, mode 644)`.
        privilege: String,
        /// The OS error (`EACCES` or `EPERM`).
        errno: Errno,
    },
    /// The kernel refused the value written to one of its files (`EINVAL`, `EIO`): e.g. an
    /// IRQ that cannot be moved, or a governor the driver does not have.
    #[error("the kernel refused `{value}` for {}: {errno}", path.display())]
    WriteRefused {
        /// The file.
        path: PathBuf,
        /// What was written.
        value: String,
        /// The OS error.
        errno: Errno,
    },
    /// Writing a kernel file failed for another reason (it vanished, a short write, …).
    #[error("cannot write {}: {errno}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        errno: Errno,
    },
    /// A file rtlat was to read or write as a kernel file is not one as the kernel makes it:
    /// a symbolic link where the kernel has none, not a regular file, or a path outside the
    /// folders rtlat tunes.
    #[error(
        "refusing {}: {reason}; rtlat writes only the kernel's own files under /proc/irq and /sys/devices/system/cpu, never through a link",
        path.display()
    )]
    NotKernelFile {
        /// The path, under the root.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The machine has no CPU frequency scaling (most VMs): there is nothing to set.
    #[error("no cpufreq on this machine ({} missing): nothing to set", path.display())]
    NoCpufreq {
        /// The cpufreq directory that does not exist.
        path: PathBuf,
    },
    /// A governor the CPU's cpufreq driver does not offer.
    #[error("CPU {cpu} has no cpufreq governor `{governor}`: its governors are {available}")]
    UnknownGovernor {
        /// The CPU.
        cpu: usize,
        /// The governor asked for.
        governor: String,
        /// `scaling_available_governors`, space-separated.
        available: String,
    },
    /// A frequency the CPU does not offer.
    #[error("CPU {cpu} does not offer {asked}: {offered}")]
    FrequencyNotOffered {
        /// The CPU.
        cpu: usize,
        /// The frequency asked for, formatted (e.g. `1.7GHz (1700000 kHz)`).
        asked: String,
        /// What it offers, in words (its frequency table, or its range).
        offered: String,
    },
    /// Changing another thread's scheduling, nice value or affinity was refused.
    #[error(
        "changing the {setting} of thread {tid} needs CAP_SYS_NICE: run as root (without it a user may change only their own threads, with real-time priorities up to `ulimit -r`)"
    )]
    ThreadPermission {
        /// The thread.
        tid: u32,
        /// `scheduling`, `nice value` or `CPU affinity`.
        setting: &'static str,
    },
    /// A thread change this process could make but not undo: refused before it is made.
    #[error(
        "thread {tid} \"{name}\": its {setting} could be changed from {from} to {to} but this user could not change it back ({needs}), so the change is refused: run as root (CAP_SYS_NICE)"
    )]
    UndoNotPermitted {
        /// The thread.
        tid: u32,
        /// Its name.
        name: String,
        /// `scheduling`, `nice value` or `CPU affinity`.
        setting: &'static str,
        /// The value now.
        from: String,
        /// The value asked for.
        to: String,
        /// What undoing it would need, in words.
        needs: String,
    },
    /// A thread that does not exist (or exited).
    #[error("thread {tid} does not exist (any more): `rtlat threads` lists the threads")]
    NoSuchThread {
        /// The thread id.
        tid: u32,
    },
    /// The thread a change was planned for ended, and its id now names another thread (its
    /// start time differs): the change is not made, so the other thread is left alone.
    #[error(
        "thread {tid} \"{name}\" (pid {pid}) has ended and its id now names another thread: it was left alone"
    )]
    ThreadReplaced {
        /// The process the thread was in.
        pid: u32,
        /// The thread id.
        tid: u32,
        /// The name of the thread that ended.
        name: String,
    },
    /// The kernel refused a thread setting for a reason other than privilege.
    #[error("cannot set the {setting} of thread {tid} to {value}: {errno}{hint}")]
    ThreadSetting {
        /// The thread.
        tid: u32,
        /// `scheduling`, `nice value` or `CPU affinity`.
        setting: &'static str,
        /// The value asked for.
        value: String,
        /// The OS error.
        errno: Errno,
        /// What may be the cause (starts with `; ` when not empty).
        hint: &'static str,
    },
    /// Moving IRQs away from these CPUs would leave none for them.
    #[error(
        "moving IRQs away from CPUs {away_from} leaves no online CPU for them (online CPUs: {online}): keep at least one housekeeping CPU"
    )]
    NoHousekeepingCpu {
        /// The CPUs to keep IRQs away from.
        away_from: String,
        /// The online CPUs.
        online: String,
    },
    /// A restore file that cannot be used.
    #[error("{}: {reason}", path.display())]
    RestoreFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

impl TuneError {
    /// Whether this says that the thread a change was for is gone: it does not exist any more
    /// ([`TuneError::NoSuchThread`]) or its id names another thread now
    /// ([`TuneError::ThreadReplaced`]). Either way it was left alone, and nothing of the
    /// thread changed is left: its settings ended with it.
    pub fn is_thread_gone(&self) -> bool {
        matches!(
            self,
            TuneError::NoSuchThread { .. } | TuneError::ThreadReplaced { .. }
        )
    }

    /// The OS error number behind this error, if there is one.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            TuneError::Sched { errno, .. }
            | TuneError::Os(OsError { errno, .. })
            | TuneError::WriteDenied { errno, .. }
            | TuneError::WriteRefused { errno, .. }
            | TuneError::Write { errno, .. }
            | TuneError::ThreadSetting { errno, .. } => Some(*errno),
            TuneError::ThreadPermission { .. } | TuneError::UndoNotPermitted { .. } => {
                Some(Errno::EPERM)
            }
            TuneError::NoSuchThread { .. } | TuneError::ThreadReplaced { .. } => {
                Some(Errno::from_raw(libc::ESRCH))
            }
            TuneError::NoCpufreq { .. } => Some(Errno::ENOENT),
            TuneError::Fact(fact) => fact.errno(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_error_keeps_its_words_and_errno() {
        let denied = FactError::Unreadable {
            path: "/x".into(),
            errno: Errno::EACCES,
        };
        let tune = TuneError::from(denied.clone());
        assert_eq!(tune.to_string(), denied.to_string());
        assert_eq!(tune.errno(), Some(Errno::EACCES));
        assert_eq!(
            TuneError::NoSuchThread { tid: 7 }.errno(),
            Some(Errno::from_raw(libc::ESRCH))
        );
    }
}
