//! Changing another thread, by its TID: the [`Change`]s that give it a scheduling policy and
//! priority (`chrt -p`), a nice value (`renice`), CPUs (`taskset -p`), planned against its
//! settings now ([`super::thread_setting`] reads and writes one of them).
//!
//! [`rtlat_linux::thread`] changes the calling thread; these act on any thread the caller may
//! change: its own (within its `ulimit -r` and `ulimit -e` limits) or, with `CAP_SYS_NICE`,
//! any ([`super::permission`] tells which up front).

use super::change::Change;
use super::error::TuneError;
pub use super::same_thread::check_same_thread;
use super::target::{Target, ThreadSetting};
use super::thread_setting::current;
pub use super::thread_setting::{
    RESET_ON_FORK, SCHED_REQUEST_SYNTAX, SchedRequest, SchedValue, scheduling_text,
};
use crate::facts::{FactResultExt as _, Facts};
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::thread::Scheduling;

/// A thread found by its TID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRef {
    /// Its process.
    pub pid: u32,
    /// Its id.
    pub tid: u32,
    /// Its name (`comm`).
    pub name: String,
    /// When it started, in clock ticks after boot (`stat` field 22).
    pub start_time: u64,
}

/// The thread `tid` of any process ([`TuneError::NoSuchThread`] if there is none).
pub fn find_thread(facts: &Facts, tid: u32) -> Result<ThreadRef, TuneError> {
    // `/proc/TID` exists for every thread, listed or not; its status names the process. A
    // captured tree may hold only `/proc/PID/task/TID`: then the processes are searched.
    let pid = match facts.task_status(tid, tid).optional()? {
        Some(status) => status.tgid.unwrap_or(tid),
        None => facts
            .pids()?
            .into_iter()
            .find(|&pid| facts.tids(pid).is_ok_and(|tids| tids.contains(&tid)))
            .ok_or(TuneError::NoSuchThread { tid })?,
    };
    let stat = facts
        .task_stat(pid, tid)
        .optional()?
        .ok_or(TuneError::NoSuchThread { tid })?;
    Ok(ThreadRef {
        pid,
        tid,
        name: stat.comm,
        start_time: stat.start_time,
    })
}

/// The changes that give `thread` the scheduling `sched` and the CPUs `pin` (each `None`
/// leaves that setting), read against its settings now: affinity first (so a real-time
/// thread never runs on a CPU it is about to leave), then scheduling, then the nice value.
/// The thread's `SCHED_RESET_ON_FORK` flag is kept as it is (`--set` does not name it).
/// Settings already as asked give no change. The settings are read by thread id, then the
/// thread is checked to be still `thread` ([`check_same_thread`]): the values read were its.
pub fn thread_changes(
    thread: &ThreadRef,
    sched: Option<&SchedRequest>,
    pin: Option<&CpuSet>,
) -> Result<Vec<Change>, TuneError> {
    let change = |setting, old: String, new: String| {
        Change::new(
            Target::Thread {
                pid: thread.pid,
                tid: thread.tid,
                name: thread.name.clone(),
                start_time: thread.start_time,
                setting,
            },
            old,
            new,
        )
    };
    let mut changes = Vec::new();
    if let Some(pin) = pin {
        let old = current(thread.tid, ThreadSetting::Affinity)?;
        let new = pin.to_string();
        if old != new {
            changes.push(change(ThreadSetting::Affinity, old, new));
        }
    }
    if let Some(sched) = sched {
        let old = current(thread.tid, ThreadSetting::Scheduling)?;
        let reset_on_fork = old
            .parse::<SchedValue>()
            .is_ok_and(|value| value.reset_on_fork);
        let new = SchedValue {
            scheduling: Scheduling {
                policy: sched.policy,
                priority: sched.priority,
            },
            reset_on_fork,
        }
        .to_string();
        if old != new {
            changes.push(change(ThreadSetting::Scheduling, old, new));
        }
        if let Some(nice) = sched.nice {
            let old = current(thread.tid, ThreadSetting::Nice)?;
            if old != nice.to_string() {
                changes.push(change(ThreadSetting::Nice, old, nice.to_string()));
            }
        }
    }
    check_same_thread(thread.pid, thread.tid, &thread.name, thread.start_time)?;
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::thread_setting::set;
    use rtlat_linux::thread::Policy;

    #[test]
    fn requests_parse_and_print() {
        for (text, policy, priority, nice, printed) in [
            ("fifo:98", Policy::Fifo, 98, None, "fifo:98"),
            ("rr:1", Policy::RoundRobin, 1, None, "rr:1"),
            ("other", Policy::Other, 0, None, "other"),
            ("normal:-5", Policy::Other, 0, Some(-5), "other:-5"),
            ("batch:19", Policy::Batch, 0, Some(19), "batch:19"),
            ("idle", Policy::Idle, 0, None, "idle"),
            ("SCHED_FIFO:50", Policy::Fifo, 50, None, "fifo:50"),
        ] {
            let request: SchedRequest = text.parse().unwrap();
            assert_eq!(
                request,
                SchedRequest {
                    policy,
                    priority,
                    nice
                },
                "{text}"
            );
            assert_eq!(request.to_string(), printed);
        }
        for (bad, reason) in [
            ("fifo", "needs a priority"),
            ("fifo:0", "out of range"),
            ("rr:100", "out of range"),
            ("fifo:x", "not a number"),
            ("other:20", "nice value 20"),
            ("idle:1", "idle takes no number"),
            ("deadline:1", "unknown policy"),
            ("", "unknown policy"),
            ("fifo:", "not a number"),
        ] {
            let err = bad.parse::<SchedRequest>().unwrap_err();
            assert!(err.contains(reason), "{bad}: {err}");
        }
    }

    #[test]
    fn reads_this_thread_and_refuses_unknown_tids() {
        let tid = u32::try_from(rtlat_linux::gettid()).unwrap();
        let facts = Facts::live();
        let me = find_thread(&facts, tid).unwrap();
        assert_eq!(me.pid, std::process::id());
        assert_eq!(me.tid, tid);
        let sched = current(tid, ThreadSetting::Scheduling).unwrap();
        assert!(["other", "batch", "idle"].contains(&sched.as_str()) || sched.contains(':'));
        assert!(
            current(tid, ThreadSetting::Nice)
                .unwrap()
                .parse::<i32>()
                .is_ok()
        );
        let cpus = current(tid, ThreadSetting::Affinity).unwrap();
        assert!(CpuSet::parse(&cpus).is_ok(), "{cpus}");

        // The highest pid the kernel hands out is below 2^22.
        let nobody = 0x7fff_fff0;
        assert_eq!(
            find_thread(&facts, nobody),
            Err(TuneError::NoSuchThread { tid: nobody })
        );
        assert_eq!(
            current(nobody, ThreadSetting::Nice),
            Err(TuneError::NoSuchThread { tid: nobody })
        );
        assert_eq!(
            set(nobody, ThreadSetting::Nice, "0"),
            Err(TuneError::NoSuchThread { tid: nobody })
        );
        assert_eq!(
            set(0, ThreadSetting::Nice, "0"),
            Err(TuneError::NoSuchThread { tid: 0 })
        );
    }

    #[test]
    fn a_change_is_made_only_while_the_thread_is_the_one_named() {
        // On a thread of its own, whose nice value may go up and end with it.
        std::thread::spawn(|| {
            let tid = u32::try_from(rtlat_linux::gettid()).unwrap();
            let me = find_thread(&Facts::live(), tid).unwrap();
            let nice = |setting| current(tid, setting).unwrap();
            assert_eq!(nice(ThreadSetting::Nice), "0");
            let change = |start_time| {
                Change::new(
                    Target::Thread {
                        pid: me.pid,
                        tid,
                        name: me.name.clone(),
                        start_time,
                        setting: ThreadSetting::Nice,
                    },
                    "0",
                    "1",
                )
            };
            // Another start time: another thread given this id; left alone.
            let err = change(me.start_time + 1)
                .apply(std::path::Path::new("/"))
                .unwrap_err();
            assert_eq!(
                err,
                TuneError::ThreadReplaced {
                    pid: me.pid,
                    tid,
                    name: me.name.clone()
                }
            );
            assert!(err.is_thread_gone());
            assert_eq!(nice(ThreadSetting::Nice), "0", "not changed");
            assert_eq!(
                check_same_thread(me.pid, tid, &me.name, me.start_time + 1),
                Err(err)
            );
            // Another process: no such thread there.
            let other = if me.pid == 1 { 2 } else { 1 };
            assert_eq!(
                check_same_thread(other, tid, &me.name, me.start_time),
                Err(TuneError::NoSuchThread { tid })
            );
            change(me.start_time)
                .apply(std::path::Path::new("/"))
                .unwrap();
            assert_eq!(nice(ThreadSetting::Nice), "1");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn no_change_when_already_as_asked() {
        let tid = u32::try_from(rtlat_linux::gettid()).unwrap();
        let me = find_thread(&Facts::live(), tid).unwrap();
        let now_cpus = CpuSet::parse(&current(tid, ThreadSetting::Affinity).unwrap()).unwrap();
        let now_sched: SchedRequest = current(tid, ThreadSetting::Scheduling)
            .unwrap()
            .parse()
            .unwrap();
        let changes = thread_changes(&me, Some(&now_sched), Some(&now_cpus)).unwrap();
        assert!(changes.is_empty(), "{changes:?}");
    }
}
