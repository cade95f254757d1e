//! One setting of one thread, read and written as the text a [`Change`](super::Change)
//! holds: its scheduling ([`SchedValue`]: `fifo:20`, `other+reset-on-fork`), its nice value
//! (`-5`), its CPUs (`0-3`), by its TID, with errors that say who may change what.

use core::fmt;
use core::str::FromStr;

use rtlat_linux::Errno;
use rtlat_linux::any_thread;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::privileges::RtCredentials;
use rtlat_linux::thread::{Policy, Scheduling};

use super::error::TuneError;
use super::target::ThreadSetting;

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

/// A scheduling as a [`Change`](super::Change) value: `fifo:80`, `rr:5`, `other`, `batch`, `idle`.
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
}
