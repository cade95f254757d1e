//! Real-time set-up of the calling thread: scheduling policy and priority, CPU affinity, nice
//! value, and [`ThreadSetup`], which applies them (plus a stack prefault) in one call.
//!
//! Every function here acts on the **calling thread** (by its kernel thread id), so the
//! measuring thread calls them itself, before its first cycle.

use core::fmt;
use core::ops::RangeInclusive;
use core::str::FromStr;

use crate::errno::{Errno, OsError};
use crate::memory::{self, MemoryError};
use crate::sys;

/// Setting up a thread's scheduling, nice value or CPUs failed (or would fail: a permission
/// checked ahead, a value out of range).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ThreadError {
    /// The kernel reported a policy this crate does not model (e.g. `SCHED_DEADLINE`).
    #[error(
        "thread runs under scheduling policy {0}, which rtlat does not handle; reset it with `chrt -o -p 0 PID`"
    )]
    UnsupportedPolicy(i32),
    /// A priority outside the policy's range.
    #[error("priority {priority} is out of range for {}: use {min}..={max}", policy.sched_name())]
    InvalidPriority {
        /// The policy.
        policy: Policy,
        /// The priority asked for.
        priority: i32,
        /// The policy's lowest priority.
        min: i32,
        /// The policy's highest priority.
        max: i32,
    },
    /// The process may not use a real-time policy at this priority.
    #[error("{} priority {priority} needs root, CAP_SYS_NICE or an rtprio limit of at least {priority}: run as root or set `ulimit -r 99` (already root? give the cgroup real-time runtime: cpu.rt_runtime_us)", policy.sched_name())]
    SchedPermission {
        /// The policy.
        policy: Policy,
        /// The priority asked for.
        priority: i32,
    },
    /// A scheduling call failed for another reason.
    #[error("{call} failed: {errno}")]
    Sched {
        /// The failing call.
        call: &'static str,
        /// The OS error.
        errno: Errno,
    },
    /// A nice value outside -20..=19.
    #[error("nice value {0} is out of range: use -20..=19")]
    InvalidNice(i32),
    /// Lowering the nice value was refused.
    #[error("nice {nice} was refused: {errno}; run as root or raise `ulimit -e`")]
    NicePermission {
        /// The nice value asked for.
        nice: i32,
        /// The OS error.
        errno: Errno,
    },
    /// An empty CPU list was given for affinity.
    #[error("the CPU list is empty: name at least one CPU (e.g. `-a 1`)")]
    NoCpus,
    /// A CPU index beyond what this crate can put in a mask.
    #[error("CPU {cpu} is beyond the highest supported CPU index {max}")]
    CpuOutOfRange {
        /// The CPU asked for.
        cpu: usize,
        /// The highest accepted index.
        max: usize,
    },
    /// `sched_setaffinity` refused the CPU list.
    #[error(
        "cannot pin the thread to CPU {}: {errno}; the CPU is offline or this process's cgroup cpuset does not allow it (see /proc/self/cpuset and /sys/devices/system/cpu/online)",
        cpu_list(cpus)
    )]
    Affinity {
        /// The CPUs asked for.
        cpus: Vec<usize>,
        /// The OS error.
        errno: Errno,
    },
    /// The stack prefault of [`ThreadSetup`] failed.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// Reading the process's credentials failed (`capget`, `getrlimit`).
    #[error(transparent)]
    Os(#[from] OsError),
}

impl ThreadError {
    /// The OS error number behind this error, if there is one.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            ThreadError::Sched { errno, .. }
            | ThreadError::NicePermission { errno, .. }
            | ThreadError::Affinity { errno, .. }
            | ThreadError::Os(OsError { errno, .. }) => Some(*errno),
            ThreadError::SchedPermission { .. } => Some(Errno::EPERM),
            ThreadError::Memory(e) => e.errno(),
            _ => None,
        }
    }
}

/// `cpus` as a CPU list (`1`, `0-3`), for [`ThreadError::Affinity`]'s message.
fn cpu_list(cpus: &[usize]) -> String {
    crate::cpuset::CpuSet::from_cpus(cpus.iter().copied())
        .map_or_else(|_| format!("{cpus:?}"), |set| set.to_string())
}

/// A scheduling-policy name that is not one of [`Policy`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scheduling policy `{0}`: use fifo, rr, other (or normal), batch or idle")]
pub struct UnknownPolicy(pub String);

/// The highest CPU index accepted in an affinity list (a mask of 8192 CPUs).
pub const MAX_CPU: usize = 8191;

/// A Linux scheduling policy, named as cyclictest's `--policy` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// `SCHED_FIFO`: real-time, run until blocked or preempted by a higher priority (1–99).
    Fifo,
    /// `SCHED_RR`: real-time, like FIFO with a time slice among equal priorities (1–99).
    RoundRobin,
    /// `SCHED_OTHER` (cyclictest also says `normal`): the default time-sharing policy.
    Other,
    /// `SCHED_BATCH`: time-sharing, treated as CPU-bound.
    Batch,
    /// `SCHED_IDLE`: runs only when nothing else wants the CPU.
    Idle,
}

impl Policy {
    /// Every policy.
    pub const ALL: [Policy; 5] = [
        Policy::Fifo,
        Policy::RoundRobin,
        Policy::Other,
        Policy::Batch,
        Policy::Idle,
    ];

    /// The libc policy number.
    pub const fn raw(self) -> i32 {
        match self {
            Policy::Fifo => libc::SCHED_FIFO,
            Policy::RoundRobin => libc::SCHED_RR,
            Policy::Other => libc::SCHED_OTHER,
            Policy::Batch => libc::SCHED_BATCH,
            Policy::Idle => libc::SCHED_IDLE,
        }
    }

    /// The policy of a libc policy number (`SCHED_RESET_ON_FORK` ignored); `None` for one this
    /// crate does not model, such as `SCHED_DEADLINE`.
    pub const fn from_raw(raw: i32) -> Option<Policy> {
        match raw & !libc::SCHED_RESET_ON_FORK {
            libc::SCHED_FIFO => Some(Policy::Fifo),
            libc::SCHED_RR => Some(Policy::RoundRobin),
            libc::SCHED_OTHER => Some(Policy::Other),
            libc::SCHED_BATCH => Some(Policy::Batch),
            libc::SCHED_IDLE => Some(Policy::Idle),
            _ => None,
        }
    }

    /// cyclictest's name: `fifo`, `rr`, `other`, `batch`, `idle`.
    pub const fn name(self) -> &'static str {
        match self {
            Policy::Fifo => "fifo",
            Policy::RoundRobin => "rr",
            Policy::Other => "other",
            Policy::Batch => "batch",
            Policy::Idle => "idle",
        }
    }

    /// The C name: `SCHED_FIFO`, `SCHED_RR`, `SCHED_OTHER`, `SCHED_BATCH`, `SCHED_IDLE`.
    pub const fn sched_name(self) -> &'static str {
        match self {
            Policy::Fifo => "SCHED_FIFO",
            Policy::RoundRobin => "SCHED_RR",
            Policy::Other => "SCHED_OTHER",
            Policy::Batch => "SCHED_BATCH",
            Policy::Idle => "SCHED_IDLE",
        }
    }

    /// Whether this is a real-time policy (FIFO or RR), which takes a priority and needs
    /// privileges.
    pub const fn is_realtime(self) -> bool {
        matches!(self, Policy::Fifo | Policy::RoundRobin)
    }

    /// The priorities the kernel accepts for this policy (`sched_get_priority_min/max`):
    /// 1..=99 for FIFO and RR, 0..=0 for the others.
    pub fn priority_range(self) -> Result<RangeInclusive<i32>, ThreadError> {
        let sched = |call| move |errno| ThreadError::Sched { call, errno };
        let min =
            sys::sched_get_priority_min(self.raw()).map_err(sched("sched_get_priority_min"))?;
        let max =
            sys::sched_get_priority_max(self.raw()).map_err(sched("sched_get_priority_max"))?;
        Ok(min..=max)
    }

    /// `Ok` if `priority` is in [`priority_range`](Self::priority_range), else
    /// [`ThreadError::InvalidPriority`].
    pub fn check_priority(self, priority: i32) -> Result<(), ThreadError> {
        let range = self.priority_range()?;
        if range.contains(&priority) {
            Ok(())
        } else {
            Err(ThreadError::InvalidPriority {
                policy: self,
                priority,
                min: *range.start(),
                max: *range.end(),
            })
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = UnknownPolicy;

    /// cyclictest's names: `fifo`, `rr`, `other` or `normal`, `batch`, `idle`
    /// (case-insensitive; a `SCHED_` prefix is allowed).
    fn from_str(s: &str) -> Result<Self, UnknownPolicy> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.strip_prefix("sched_").unwrap_or(&lower) {
            "fifo" => Ok(Policy::Fifo),
            "rr" => Ok(Policy::RoundRobin),
            "other" | "normal" => Ok(Policy::Other),
            "batch" => Ok(Policy::Batch),
            "idle" => Ok(Policy::Idle),
            _ => Err(UnknownPolicy(s.to_owned())),
        }
    }
}

/// A thread's scheduling: policy and static priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scheduling {
    /// The policy.
    pub policy: Policy,
    /// The static priority (0 for the non-real-time policies).
    pub priority: i32,
}

/// The kernel thread id (TID) of the calling thread, as in `/proc/self/task/TID` and
/// cyclictest's per-thread line.
pub fn gettid() -> i32 {
    sys::gettid()
}

/// Sets the calling thread's policy and priority (`sched_setscheduler` on its TID).
///
/// The priority is checked against the policy's range first ([`ThreadError::InvalidPriority`]); a
/// refusal by the kernel for lack of privilege is [`ThreadError::SchedPermission`].
pub fn set_scheduler(policy: Policy, priority: i32) -> Result<(), ThreadError> {
    policy.check_priority(priority)?;
    match sys::sched_setscheduler(sys::gettid(), policy.raw(), priority) {
        Ok(()) => Ok(()),
        Err(Errno::EPERM) => Err(ThreadError::SchedPermission { policy, priority }),
        Err(errno) => Err(ThreadError::Sched {
            call: "sched_setscheduler",
            errno,
        }),
    }
}

/// The calling thread's policy and priority.
pub fn scheduler() -> Result<Scheduling, ThreadError> {
    scheduler_of(sys::gettid())
}

/// The policy and priority of thread `tid` (any thread of any process; 0 is the caller).
pub fn scheduler_of(tid: i32) -> Result<Scheduling, ThreadError> {
    let sched = |call| move |errno| ThreadError::Sched { call, errno };
    let raw = sys::sched_getscheduler(tid).map_err(sched("sched_getscheduler"))?;
    let policy = Policy::from_raw(raw).ok_or(ThreadError::UnsupportedPolicy(raw))?;
    let priority = sys::sched_getparam(tid).map_err(sched("sched_getparam"))?;
    Ok(Scheduling { policy, priority })
}

/// Pins the calling thread to `cpus` (`sched_setaffinity` on its TID). Duplicates are fine;
/// an empty list is [`ThreadError::NoCpus`], an index above [`MAX_CPU`] is
/// [`ThreadError::CpuOutOfRange`], CPUs that are offline or outside the process's cpuset make the
/// kernel refuse ([`ThreadError::Affinity`]).
pub fn set_affinity(cpus: &[usize]) -> Result<(), ThreadError> {
    if cpus.is_empty() {
        return Err(ThreadError::NoCpus);
    }
    if let Some(&cpu) = cpus.iter().find(|&&cpu| cpu > MAX_CPU) {
        return Err(ThreadError::CpuOutOfRange { cpu, max: MAX_CPU });
    }
    sys::sched_setaffinity(sys::gettid(), cpus).map_err(|errno| ThreadError::Affinity {
        cpus: cpus.to_vec(),
        errno,
    })
}

/// The CPUs the calling thread may run on, ascending.
pub fn affinity() -> Result<Vec<usize>, ThreadError> {
    affinity_of(sys::gettid())
}

/// The CPUs thread `tid` may run on, ascending (0 is the caller).
pub fn affinity_of(tid: i32) -> Result<Vec<usize>, ThreadError> {
    sys::sched_getaffinity(tid).map_err(|errno| ThreadError::Sched {
        call: "sched_getaffinity",
        errno,
    })
}

/// Sets the calling thread's nice value (-20..=19), which weighs `SCHED_OTHER` and
/// `SCHED_BATCH` threads. Lowering it below the current value needs root or `ulimit -e`.
pub fn set_nice(nice: i32) -> Result<(), ThreadError> {
    if !(-20..=19).contains(&nice) {
        return Err(ThreadError::InvalidNice(nice));
    }
    match sys::set_thread_nice(sys::gettid(), nice) {
        Ok(()) => Ok(()),
        Err(errno @ (Errno::EPERM | Errno::EACCES)) => {
            Err(ThreadError::NicePermission { nice, errno })
        }
        Err(errno) => Err(ThreadError::Sched {
            call: "setpriority",
            errno,
        }),
    }
}

/// The calling thread's nice value.
pub fn nice() -> Result<i32, ThreadError> {
    sys::thread_nice(sys::gettid()).map_err(|errno| ThreadError::Sched {
        call: "getpriority",
        errno,
    })
}

/// What a measuring thread applies to itself before its first cycle: affinity first (so the
/// stack is faulted in on the CPU that will use it), then the stack prefault, then the
/// policy, priority and nice value.
///
/// Build it anywhere, move it into the thread, call [`apply`](Self::apply) there. Memory
/// locking is process-wide and belongs before the threads start: see
/// [`lock_memory`](crate::lock_memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSetup {
    /// The policy.
    pub policy: Policy,
    /// The priority (1..=99 for fifo and rr, 0 otherwise).
    pub priority: i32,
    /// CPUs to pin to; empty leaves the affinity as inherited.
    pub cpus: Vec<usize>,
    /// Nice value for `other` and `batch`; `None` leaves it.
    pub nice: Option<i32>,
    /// Bytes of stack to prefault ([`prefault_stack`](crate::prefault_stack)); 0 skips it.
    pub prefault_stack: usize,
}

impl ThreadSetup {
    /// `policy` at `priority`, no pinning, no nice change, [`DEFAULT_STACK_PREFAULT`]
    /// bytes of stack prefault.
    ///
    /// [`DEFAULT_STACK_PREFAULT`]: crate::DEFAULT_STACK_PREFAULT
    pub fn new(policy: Policy, priority: i32) -> Self {
        ThreadSetup {
            policy,
            priority,
            cpus: Vec::new(),
            nice: None,
            prefault_stack: memory::DEFAULT_STACK_PREFAULT,
        }
    }

    /// Applies the set-up to the calling thread; returns its TID. The priority is checked
    /// before anything is changed.
    pub fn apply(&self) -> Result<i32, ThreadError> {
        self.policy.check_priority(self.priority)?;
        if let Some(nice) = self.nice
            && !(-20..=19).contains(&nice)
        {
            return Err(ThreadError::InvalidNice(nice));
        }
        if !self.cpus.is_empty() {
            set_affinity(&self.cpus)?;
        }
        if self.prefault_stack > 0 {
            memory::prefault_stack(self.prefault_stack)?;
        }
        set_scheduler(self.policy, self.priority)?;
        if let Some(nice) = self.nice {
            set_nice(nice)?;
        }
        Ok(gettid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    /// Fields of `/proc/self/task/TID/stat` after the command name, from field 3 (state).
    fn task_stat(tid: i32) -> Vec<String> {
        let text = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
        let after = &text[text.rfind(')').unwrap() + 2..];
        after.split_whitespace().map(str::to_owned).collect()
    }

    /// Field `n` (1-based, as in proc(5)) of a task's stat line.
    fn stat_field(stat: &[String], n: usize) -> i64 {
        stat[n - 3].parse().unwrap()
    }

    #[test]
    fn messages_tell_the_user_what_to_do() {
        let e = ThreadError::SchedPermission {
            policy: Policy::Fifo,
            priority: 80,
        };
        let text = e.to_string();
        assert!(
            text.starts_with("SCHED_FIFO priority 80 needs root, CAP_SYS_NICE"),
            "{text}"
        );
        assert!(text.contains("ulimit -r 99"), "{text}");
        assert_eq!(e.errno(), Some(Errno::EPERM));

        let e = ThreadError::InvalidPriority {
            policy: Policy::RoundRobin,
            priority: 100,
            min: 1,
            max: 99,
        };
        assert_eq!(
            e.to_string(),
            "priority 100 is out of range for SCHED_RR: use 1..=99"
        );
        assert_eq!(e.errno(), None);

        // A measuring thread that cannot go to its CPU: which one, and the likely cause.
        let e = ThreadError::Affinity {
            cpus: vec![3],
            errno: Errno::EINVAL,
        };
        let text = e.to_string();
        assert!(
            text.starts_with("cannot pin the thread to CPU 3: "),
            "{text}"
        );
        assert!(text.contains("cgroup cpuset does not allow it"), "{text}");
        assert!(!text.contains('\n'), "one line: {text}");
    }

    #[test]
    fn policy_names_parse_like_cyclictest() {
        for (name, policy) in [
            ("fifo", Policy::Fifo),
            ("rr", Policy::RoundRobin),
            ("other", Policy::Other),
            ("normal", Policy::Other),
            ("batch", Policy::Batch),
            ("idle", Policy::Idle),
            ("FIFO", Policy::Fifo),
            ("SCHED_RR", Policy::RoundRobin),
        ] {
            assert_eq!(name.parse::<Policy>().unwrap(), policy, "{name}");
        }
        for policy in Policy::ALL {
            assert_eq!(policy.to_string().parse::<Policy>().unwrap(), policy);
            assert_eq!(Policy::from_raw(policy.raw()), Some(policy));
        }
        let err = "deadline".parse::<Policy>().unwrap_err();
        assert_eq!(err, UnknownPolicy("deadline".into()));
        assert!(
            err.to_string()
                .contains("fifo, rr, other (or normal), batch or idle")
        );
        assert_eq!(Policy::from_raw(6), None, "SCHED_DEADLINE is not modelled");
        assert_eq!(
            Policy::from_raw(libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK),
            Some(Policy::Fifo)
        );
    }

    #[test]
    fn priority_ranges_come_from_the_kernel() {
        assert_eq!(Policy::Fifo.priority_range().unwrap(), 1..=99);
        assert_eq!(Policy::RoundRobin.priority_range().unwrap(), 1..=99);
        for policy in [Policy::Other, Policy::Batch, Policy::Idle] {
            assert_eq!(policy.priority_range().unwrap(), 0..=0, "{policy}");
        }
    }

    #[test]
    fn priority_out_of_range_is_a_typed_error_and_changes_nothing() {
        thread::spawn(|| {
            let before = scheduler().unwrap();
            for (policy, priority, min, max) in [
                (Policy::Fifo, 100, 1, 99),
                (Policy::Fifo, 0, 1, 99),
                (Policy::RoundRobin, -1, 1, 99),
                (Policy::Other, 5, 0, 0),
                (Policy::Idle, 1, 0, 0),
            ] {
                assert_eq!(
                    set_scheduler(policy, priority),
                    Err(ThreadError::InvalidPriority {
                        policy,
                        priority,
                        min,
                        max
                    })
                );
            }
            let setup = ThreadSetup {
                cpus: vec![0],
                ..ThreadSetup::new(Policy::Fifo, 120)
            };
            assert!(matches!(
                setup.apply(),
                Err(ThreadError::InvalidPriority { priority: 120, .. })
            ));
            assert_eq!(scheduler().unwrap(), before);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn fifo_80_and_affinity_show_in_the_kernel() {
        let cpus = affinity().unwrap();
        println!("this process may run on CPUs {cpus:?}");
        let target = *cpus.last().unwrap();
        let main_before = scheduler_of(sys::getpid()).unwrap();
        thread::spawn(move || {
            let tid = gettid();
            assert_ne!(tid, sys::getpid(), "a spawned thread has its own TID");
            let setup = ThreadSetup {
                cpus: vec![target],
                prefault_stack: 64 * 1024,
                ..ThreadSetup::new(Policy::Fifo, 80)
            };
            assert_eq!(setup.apply().unwrap(), tid);

            assert_eq!(
                scheduler().unwrap(),
                Scheduling {
                    policy: Policy::Fifo,
                    priority: 80
                }
            );
            assert_eq!(scheduler_of(tid).unwrap(), scheduler().unwrap());
            assert_eq!(affinity().unwrap(), vec![target]);
            thread::yield_now();

            let stat = task_stat(tid);
            assert_eq!(
                stat_field(&stat, 40),
                80,
                "rt_priority in /proc/self/task/{tid}/stat"
            );
            assert_eq!(
                stat_field(&stat, 41),
                i64::from(libc::SCHED_FIFO),
                "policy in stat"
            );
            assert_eq!(
                stat_field(&stat, 18),
                -81,
                "priority field: -1 - rt_priority"
            );
            assert_eq!(
                stat_field(&stat, 39),
                target as i64,
                "the CPU it last ran on"
            );
            let status = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")).unwrap();
            assert!(
                status
                    .lines()
                    .any(|l| l == format!("Cpus_allowed_list:\t{target}")),
                "{status}"
            );

            // Other threads are untouched: the process's main thread keeps its policy.
            assert_eq!(scheduler_of(sys::getpid()).unwrap(), main_before);

            // Back to normal, and round-robin works as well.
            set_scheduler(Policy::RoundRobin, 10).unwrap();
            assert_eq!(stat_field(&task_stat(tid), 41), i64::from(libc::SCHED_RR));
            set_scheduler(Policy::Other, 0).unwrap();
            assert_eq!(
                scheduler().unwrap(),
                Scheduling {
                    policy: Policy::Other,
                    priority: 0
                }
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn batch_idle_and_nice() {
        thread::spawn(|| {
            set_scheduler(Policy::Batch, 0).unwrap();
            set_nice(5).unwrap();
            assert_eq!(nice().unwrap(), 5);
            let stat = task_stat(gettid());
            assert_eq!(stat_field(&stat, 41), i64::from(libc::SCHED_BATCH));
            assert_eq!(stat_field(&stat, 19), 5, "nice in stat");
            set_nice(-3).unwrap(); // root may lower it
            assert_eq!(nice().unwrap(), -3);
            assert_eq!(set_nice(20), Err(ThreadError::InvalidNice(20)));
            set_scheduler(Policy::Idle, 0).unwrap();
            assert_eq!(scheduler().unwrap().policy, Policy::Idle);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn bad_cpu_lists_are_typed_errors() {
        thread::spawn(|| {
            let before = affinity().unwrap();
            assert_eq!(set_affinity(&[]), Err(ThreadError::NoCpus));
            assert_eq!(
                set_affinity(&[0, MAX_CPU + 1]),
                Err(ThreadError::CpuOutOfRange {
                    cpu: MAX_CPU + 1,
                    max: MAX_CPU
                })
            );
            // A CPU this machine does not have: the kernel refuses with EINVAL.
            let missing = 4000;
            match set_affinity(&[missing]) {
                Err(ThreadError::Affinity { cpus, errno }) => {
                    assert_eq!(cpus, vec![missing]);
                    assert_eq!(errno, Errno::EINVAL);
                }
                other => panic!("expected an affinity error, got {other:?}"),
            }
            assert_eq!(affinity().unwrap(), before);
            // Duplicates and unsorted lists are fine.
            let all: Vec<usize> = before.iter().rev().chain(before.iter()).copied().collect();
            set_affinity(&all).unwrap();
            assert_eq!(affinity().unwrap(), before);
        })
        .join()
        .unwrap();
    }
}
