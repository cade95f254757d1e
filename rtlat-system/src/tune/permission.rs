//! May this process change a thread's setting, and change it back? Answered before anything
//! is changed, with the kernel's own rules, so that a tuning command never makes a change its
//! user could not undo (`--set other:5` on one's own thread, then no way back to nice 0).
//!
//! With `CAP_SYS_NICE` everything is allowed. Without it (`sched_setscheduler(2)`,
//! `setpriority(2)`), the caller may change only threads of its own user, and the limits
//! that count are the *thread's* process's `RLIMIT_RTPRIO` (`ulimit -r`) and `RLIMIT_NICE`
//! (`ulimit -e`, as `20 - nice`):
//!
//! - a real-time policy other than the thread's needs an rtprio limit above 0, and a
//!   real-time priority above the thread's needs a limit at least that high;
//! - a lower nice value, or leaving `SCHED_IDLE`, needs a nice limit of `20 - nice`;
//! - clearing `SCHED_RESET_ON_FORK` is not allowed at all.

use super::change::{Change, Target, ThreadSetting};
use super::error::TuneError;
use super::thread_setting::{self, SchedValue};
use crate::facts::Facts;
use rtlat_linux::privileges::RtCredentials;
use rtlat_linux::thread::Policy;

/// What the kernel looks at in a thread when a caller without `CAP_SYS_NICE` changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadLimits {
    /// The thread's real and effective user ids.
    pub uids: (u32, u32),
    /// Its process's `RLIMIT_RTPRIO` soft limit (`u64::MAX`: unlimited).
    pub rtprio: u64,
    /// Its process's `RLIMIT_NICE` soft limit (`u64::MAX`: unlimited).
    pub nice_limit: u64,
    /// Its nice value at the time of the change.
    pub nice: i32,
}

impl ThreadLimits {
    /// Those of thread `tid` of process `pid` under `facts` (`/proc/PID/task/TID/status`
    /// and `/proc/PID/limits`); limits that cannot be read count as 0, which allows least.
    pub fn read(facts: &Facts, pid: u32, tid: u32) -> Result<ThreadLimits, TuneError> {
        let status = std::fs::read_to_string(facts.path(&format!("proc/{pid}/task/{tid}/status")))
            .map_err(|_| TuneError::NoSuchThread { tid })?;
        let uids = status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| {
                let mut ids = ids.split_whitespace().map(str::parse::<u32>);
                Some((ids.next()?.ok()?, ids.next()?.ok()?))
            })
            .ok_or(TuneError::NoSuchThread { tid })?;
        let limits =
            std::fs::read_to_string(facts.path(&format!("proc/{pid}/limits"))).unwrap_or_default();
        let soft = |name: &str| {
            limits
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|soft| match soft {
                    "unlimited" => Some(u64::MAX),
                    n => n.parse().ok(),
                })
                .unwrap_or(0)
        };
        let nice = thread_setting::current(tid, ThreadSetting::Nice)?
            .parse()
            .unwrap_or(0);
        Ok(ThreadLimits {
            uids,
            rtprio: soft("Max realtime priority"),
            nice_limit: soft("Max nice priority"),
            nice,
        })
    }
}

/// Whether a caller of effective user id `euid` without `CAP_SYS_NICE` may change `setting`
/// of a thread with `limits` from `from` to `to`; if not, what it would need, in words.
pub fn unprivileged_may(
    euid: u32,
    limits: &ThreadLimits,
    setting: ThreadSetting,
    from: &str,
    to: &str,
) -> Result<(), String> {
    if euid != limits.uids.0 && euid != limits.uids.1 {
        return Err(format!(
            "the thread is user {}'s, not this user's ({euid})",
            limits.uids.1
        ));
    }
    // 20 - nice, as `ulimit -e` counts.
    let nice_room = |nice: i32| u64::try_from(20 - nice).unwrap_or(0);
    match setting {
        ThreadSetting::Affinity => Ok(()),
        ThreadSetting::Nice => {
            let (from, to): (i32, i32) = (parse(from)?, parse(to)?);
            if to < from && nice_room(to) > limits.nice_limit {
                return Err(format!(
                    "a nice value below {from} needs a nice limit (`ulimit -e`) of at least {}",
                    nice_room(to)
                ));
            }
            Ok(())
        }
        ThreadSetting::Scheduling => {
            let (from, to): (SchedValue, SchedValue) = (parse(from)?, parse(to)?);
            let (a, b) = (from.scheduling, to.scheduling);
            if b.policy.is_realtime() {
                if b.policy != a.policy && limits.rtprio == 0 {
                    return Err(format!(
                        "{} needs an rtprio limit (`ulimit -r`) above 0",
                        b.policy.sched_name()
                    ));
                }
                let was = if a.policy.is_realtime() {
                    a.priority
                } else {
                    0
                };
                let wanted = u64::try_from(b.priority).unwrap_or(0);
                if b.priority > was && wanted > limits.rtprio {
                    return Err(format!(
                        "priority {} needs an rtprio limit (`ulimit -r`) of at least {}",
                        b.priority, b.priority
                    ));
                }
            }
            if a.policy == Policy::Idle
                && b.policy != Policy::Idle
                && nice_room(limits.nice) > limits.nice_limit
            {
                return Err(format!(
                    "leaving SCHED_IDLE at nice {} needs a nice limit (`ulimit -e`) of at least {}",
                    limits.nice,
                    nice_room(limits.nice)
                ));
            }
            if from.reset_on_fork && !to.reset_on_fork {
                return Err("clearing SCHED_RESET_ON_FORK needs CAP_SYS_NICE".into());
            }
            Ok(())
        }
    }
}

fn parse<T: core::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a value of this setting"))
}

/// Checks, before anything is changed, that this process may make the thread changes among
/// `changes` and, with `undo`, make their inverses afterwards (so that a restore file can undo
/// them). [`TuneError::ThreadPermission`] for a change it may not make, [`TuneError::UndoNotPermitted`]
/// for one it could make but not undo. The kernel's answer stays final.
pub fn check_threads(facts: &Facts, changes: &[Change], undo: bool) -> Result<(), TuneError> {
    let credentials = RtCredentials::current()?;
    if credentials.cap_sys_nice {
        return Ok(());
    }
    for change in changes {
        let Target::Thread {
            pid,
            tid,
            name,
            setting,
            ..
        } = &change.target
        else {
            continue;
        };
        let mut limits = ThreadLimits::read(facts, *pid, *tid)?;
        if unprivileged_may(
            credentials.euid,
            &limits,
            *setting,
            &change.old,
            &change.new,
        )
        .is_err()
        {
            return Err(TuneError::ThreadPermission {
                tid: *tid,
                setting: setting.words(),
            });
        }
        if !undo {
            continue;
        }
        // Undone last first: the thread's nice value then is the one the changes leave.
        if let Some(nice) = changes
            .iter()
            .filter(|c| {
                matches!(&c.target, Target::Thread { tid: t, setting: ThreadSetting::Nice, .. } if t == tid)
            })
            .find_map(|c| c.new.parse().ok())
        {
            limits.nice = nice;
        }
        if let Err(needs) = unprivileged_may(
            credentials.euid,
            &limits,
            *setting,
            &change.new,
            &change.old,
        ) {
            return Err(TuneError::UndoNotPermitted {
                tid: *tid,
                name: name.clone(),
                setting: setting.words(),
                from: change.old.clone(),
                to: change.new.clone(),
                needs,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: u32 = 1000;

    fn limits(rtprio: u64, nice_limit: u64, nice: i32) -> ThreadLimits {
        ThreadLimits {
            uids: (ME, ME),
            rtprio,
            nice_limit,
            nice,
        }
    }

    #[test]
    fn the_kernels_rules_without_cap_sys_nice() {
        use ThreadSetting::{Affinity, Nice, Scheduling};
        let none = limits(0, 0, 0);
        let may = |l: &ThreadLimits, s, from, to| unprivileged_may(ME, l, s, from, to);
        // Raising nice is free, lowering it needs `ulimit -e`.
        assert_eq!(may(&none, Nice, "0", "5"), Ok(()));
        let err = may(&none, Nice, "5", "0").unwrap_err();
        assert!(err.contains("`ulimit -e`) of at least 20"), "{err}");
        assert_eq!(may(&limits(0, 20, 0), Nice, "5", "0"), Ok(()));
        assert!(may(&limits(0, 20, 0), Nice, "5", "-1").is_err());
        // Real-time: a limit above 0 to enter, at least the priority to raise it.
        assert!(may(&none, Scheduling, "other", "fifo:1").is_err());
        assert_eq!(
            may(&limits(10, 0, 0), Scheduling, "other", "fifo:10"),
            Ok(())
        );
        let err = may(&limits(10, 0, 0), Scheduling, "other", "fifo:11").unwrap_err();
        assert!(err.contains("at least 11"), "{err}");
        // Lowering a priority, or leaving real time, needs nothing.
        assert_eq!(may(&none, Scheduling, "fifo:50", "fifo:20"), Ok(()));
        assert_eq!(may(&none, Scheduling, "fifo:50", "other"), Ok(()));
        // Another real-time policy at the same priority: a limit above 0.
        assert!(may(&none, Scheduling, "fifo:50", "rr:50").is_err());
        assert_eq!(
            may(&limits(1, 0, 0), Scheduling, "fifo:50", "rr:50"),
            Ok(())
        );
        // SCHED_IDLE counts as nice 20.
        assert_eq!(may(&none, Scheduling, "other", "idle"), Ok(()));
        assert!(may(&none, Scheduling, "idle", "other").is_err());
        assert_eq!(may(&limits(0, 20, 0), Scheduling, "idle", "batch"), Ok(()));
        // The reset-on-fork flag can be set, not cleared.
        assert_eq!(
            may(&none, Scheduling, "other", "other+reset-on-fork"),
            Ok(())
        );
        let err = may(&none, Scheduling, "fifo:5+reset-on-fork", "fifo:5").unwrap_err();
        assert!(err.contains("SCHED_RESET_ON_FORK"), "{err}");
        // Someone else's thread: nothing.
        let theirs = ThreadLimits {
            uids: (0, 0),
            ..limits(99, 40, 0)
        };
        assert!(may(&theirs, Affinity, "0-1", "1").is_err());
        assert_eq!(may(&none, Affinity, "0-1", "1"), Ok(()));
    }
}
