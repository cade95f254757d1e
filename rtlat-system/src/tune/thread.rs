//! Changing another thread, by its TID: scheduling policy and priority (`chrt -p`), nice
//! value (`renice`), CPU affinity (`taskset -p`), read back as text for [`Change`]s.
//!
//! [`rtlat_linux::thread`] changes the calling thread; these act on any thread the caller may
//! change: its own (within its `ulimit -r` and `ulimit -e` limits) or, with `CAP_SYS_NICE`,
//! any ([`super::permission`] tells which up front).

use core::fmt;
use core::str::FromStr;

use super::change::{Change, Target, ThreadSetting};
use crate::facts::{FactResultExt as _, Facts};
use crate::tune::TuneError;
use rtlat_linux::Errno;
use rtlat_linux::any_thread;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::privileges::RtCredentials;
use rtlat_linux::thread::{Policy, Scheduling};

/// A scheduling request as `rtlat threads --set` takes it: `fifo:N` or `rr:N` (N 1..=99),
/// `other`, `batch` (each optionally `:NICE`, -20..=19) or `idle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SchedRequest {
    /// The policy.
    pub policy: Policy,
    /// The real-time priority (0 for the other policies).
    pub priority: i32,
    /// The nice value to set, if asked (`other:-5`); `None` leaves it.
    pub nice: Option<i32>,
}

/// What `--set` accepts, for error messages.
pub const SCHED_REQUEST_SYNTAX: &str =
    "fifo:N or rr:N (N 1..99), other[:NICE] or batch[:NICE] (NICE -20..19), or idle";

impl FromStr for SchedRequest {
    type Err = String;

    /// Parses `fifo:98`, `rr:5`, `other`, `other:-5`, `batch:10`, `idle`; the error is the
    /// reason, in words.
    fn from_str(text: &str) -> Result<Self, String> {
        let (name, number) = match text.split_once(':') {
            Some((name, number)) => (name, Some(number)),
            None => (text, None),
        };
        let policy: Policy = name
            .parse()
            .map_err(|_| format!("unknown policy `{name}`: use {SCHED_REQUEST_SYNTAX}"))?;
        let number = match number {
            Some(n) => Some(
                n.parse::<i32>()
                    .map_err(|_| format!("`{n}` is not a number: use {SCHED_REQUEST_SYNTAX}"))?,
            ),
            None => None,
        };
        match (policy, number) {
            (Policy::Fifo | Policy::RoundRobin, Some(priority)) if (1..=99).contains(&priority) => {
                Ok(SchedRequest {
                    policy,
                    priority,
                    nice: None,
                })
            }
            (Policy::Fifo | Policy::RoundRobin, Some(priority)) => Err(format!(
                "priority {priority} is out of range: {} takes 1..99",
                policy.name()
            )),
            (Policy::Fifo | Policy::RoundRobin, None) => Err(format!(
                "{} needs a priority: write {}:N with N 1..99",
                policy.name(),
                policy.name()
            )),
            (Policy::Other | Policy::Batch, Some(nice)) if !(-20..=19).contains(&nice) => {
                Err(format!("nice value {nice} is out of range: use -20..19"))
            }
            (Policy::Idle, Some(_)) => {
                Err("idle takes no number: SCHED_IDLE has no priority or nice value".into())
            }
            (_, nice) => Ok(SchedRequest {
                policy,
                priority: 0,
                nice,
            }),
        }
    }
}

impl fmt::Display for SchedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&scheduling_text(Scheduling {
            policy: self.policy,
            priority: self.priority,
        }))?;
        if let Some(nice) = self.nice {
            write!(f, ":{nice}")?;
        }
        Ok(())
    }
}

/// A scheduling as a [`Change`] value: `fifo:80`, `rr:5`, `other`, `batch`, `idle`.
pub fn scheduling_text(scheduling: Scheduling) -> String {
    if scheduling.policy.is_realtime() {
        format!("{}:{}", scheduling.policy.name(), scheduling.priority)
    } else {
        scheduling.policy.name().to_owned()
    }
}

/// The suffix of a scheduling value whose thread has `SCHED_RESET_ON_FORK`.
pub const RESET_ON_FORK: &str = "+reset-on-fork";

/// A thread's whole scheduling, as [`ThreadSetting::Scheduling`] values hold it: policy,
/// real-time priority and the `SCHED_RESET_ON_FORK` flag (children start as `other`), as
/// `fifo:20`, `other`, `fifo:20+reset-on-fork`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SchedValue {
    /// Policy and priority.
    pub scheduling: Scheduling,
    /// `SCHED_RESET_ON_FORK`.
    pub reset_on_fork: bool,
}

impl FromStr for SchedValue {
    type Err = String;

    /// Parses `fifo:20`, `other`, `fifo:20+reset-on-fork` (no nice value); the error is the
    /// reason, in words.
    fn from_str(text: &str) -> Result<Self, String> {
        let (base, reset_on_fork) = match text.strip_suffix(RESET_ON_FORK) {
            Some(base) => (base, true),
            None => (text, false),
        };
        let request: SchedRequest = base.parse()?;
        if request.nice.is_some() {
            return Err(format!(
                "`{text}` holds a nice value: a scheduling value is a policy and its priority"
            ));
        }
        Ok(SchedValue {
            scheduling: Scheduling {
                policy: request.policy,
                priority: request.priority,
            },
            reset_on_fork,
        })
    }
}

impl fmt::Display for SchedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&scheduling_text(self.scheduling))?;
        if self.reset_on_fork {
            f.write_str(RESET_ON_FORK)?;
        }
        Ok(())
    }
}

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
/// Settings already as asked give no change.
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
    Ok(changes)
}

/// The value of `setting` of thread `tid` now, as text.
pub(crate) fn current(tid: u32, setting: ThreadSetting) -> Result<String, TuneError> {
    let raw = raw_tid(tid)?;
    let failed = |call| {
        move |errno: Errno| {
            if errno.raw() == libc::ESRCH {
                TuneError::NoSuchThread { tid }
            } else {
                TuneError::Sched { call, errno }
            }
        }
    };
    match setting {
        ThreadSetting::Scheduling => {
            let policy_raw = any_thread::policy_raw(raw).map_err(failed("sched_getscheduler"))?;
            let policy =
                Policy::from_raw(policy_raw).ok_or(TuneError::UnsupportedPolicy(policy_raw))?;
            let priority = any_thread::priority(raw).map_err(failed("sched_getparam"))?;
            Ok(SchedValue {
                scheduling: Scheduling { policy, priority },
                reset_on_fork: policy_raw & libc::SCHED_RESET_ON_FORK != 0,
            }
            .to_string())
        }
        ThreadSetting::Nice => Ok(any_thread::nice(raw)
            .map_err(failed("getpriority"))?
            .to_string()),
        ThreadSetting::Affinity => {
            let cpus = any_thread::cpus(raw).map_err(failed("sched_getaffinity"))?;
            let set = CpuSet::from_cpus(cpus).map_err(|_| TuneError::CpuOutOfRange {
                cpu: rtlat_linux::cpuset::MAX_CPUS,
                max: rtlat_linux::cpuset::MAX_CPUS - 1,
            })?;
            Ok(set.to_string())
        }
    }
}

/// Sets `setting` of thread `tid` to `value` (text as [`current`] gives it; a scheduling
/// value with `+reset-on-fork` sets the flag, one without clears it).
pub(crate) fn set(tid: u32, setting: ThreadSetting, value: &str) -> Result<(), TuneError> {
    let raw = raw_tid(tid)?;
    let invalid = || TuneError::ThreadSetting {
        tid,
        setting: setting.words(),
        value: value.to_owned(),
        errno: Errno::EINVAL,
        hint: "; not a value of this setting",
    };
    let result = match setting {
        ThreadSetting::Scheduling => {
            let value: SchedValue = value.parse().map_err(|_| invalid())?;
            let flag = if value.reset_on_fork {
                libc::SCHED_RESET_ON_FORK
            } else {
                0
            };
            any_thread::set_scheduler_raw(
                raw,
                value.scheduling.policy.raw() | flag,
                value.scheduling.priority,
            )
        }
        ThreadSetting::Nice => {
            let nice: i32 = value.parse().map_err(|_| invalid())?;
            any_thread::set_nice(raw, nice)
        }
        ThreadSetting::Affinity => {
            let cpus = CpuSet::parse(value).map_err(|_| invalid())?;
            any_thread::set_cpus(raw, &cpus.iter().collect::<Vec<_>>())
        }
    };
    result.map_err(|errno| refusal(tid, setting, value, errno))
}

fn raw_tid(tid: u32) -> Result<i32, TuneError> {
    // 0 would name the calling thread.
    i32::try_from(tid)
        .ok()
        .filter(|&t| t > 0)
        .ok_or(TuneError::NoSuchThread { tid })
}

/// The error of a refused thread change.
fn refusal(tid: u32, setting: ThreadSetting, value: &str, errno: Errno) -> TuneError {
    let has_cap = RtCredentials::current().is_ok_and(|c| c.cap_sys_nice);
    let hint = match (setting, errno.raw()) {
        (_, libc::ESRCH) => return TuneError::NoSuchThread { tid },
        (ThreadSetting::Scheduling, libc::EPERM) if has_cap => {
            "; the thread's cgroup may have no real-time runtime (cpu.rt_runtime_us)"
        }
        (_, libc::EPERM | libc::EACCES) => {
            return TuneError::ThreadPermission {
                tid,
                setting: setting.words(),
            };
        }
        (ThreadSetting::Affinity, libc::EINVAL) => {
            "; the CPUs must be online and allowed by the thread's cpuset, and per-CPU kernel threads cannot be moved"
        }
        _ => "",
    };
    TuneError::ThreadSetting {
        tid,
        setting: setting.words(),
        value: value.to_owned(),
        errno,
        hint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn scheduling_values_carry_reset_on_fork() {
        for (text, policy, priority, reset_on_fork) in [
            ("fifo:20", Policy::Fifo, 20, false),
            ("fifo:20+reset-on-fork", Policy::Fifo, 20, true),
            ("other+reset-on-fork", Policy::Other, 0, true),
            ("idle", Policy::Idle, 0, false),
        ] {
            let value: SchedValue = text.parse().unwrap();
            assert_eq!(
                value,
                SchedValue {
                    scheduling: Scheduling { policy, priority },
                    reset_on_fork
                },
                "{text}"
            );
            assert_eq!(value.to_string(), text);
        }
        for bad in [
            "other:-5",
            "fifo:20+reset-on-fork+reset-on-fork",
            "+reset-on-fork",
            "fifo:20 +reset-on-fork",
        ] {
            assert!(bad.parse::<SchedValue>().is_err(), "{bad}");
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
