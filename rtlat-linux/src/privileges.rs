//! May this process use `SCHED_FIFO`/`SCHED_RR` at a given priority? Answered up front, so the
//! CLI can refuse with a clear message before it starts threads.
//!
//! The kernel allows a real-time policy when the thread has `CAP_SYS_NICE` (root normally has
//! it; a container may drop it), or when the priority is at most the `RLIMIT_RTPRIO` soft limit
//! (`ulimit -r`). Being uid 0 is not itself enough: it is the capability that counts.

use crate::errno::{Errno, OsError};
use crate::sys;
use crate::thread::{Policy, ThreadError};

/// Bit of `CAP_SYS_NICE` in a capability mask (capability 23).
pub const CAP_SYS_NICE: u32 = 23;

/// What the process has that decides real-time scheduling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtCredentials {
    /// The effective user id.
    pub euid: u32,
    /// Whether `CAP_SYS_NICE` is in the effective set.
    pub cap_sys_nice: bool,
    /// The `RLIMIT_RTPRIO` soft limit; `None` is unlimited.
    pub rtprio_limit: Option<u64>,
}

/// Why a real-time policy is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtPermission {
    /// The policy is not a real-time one: nothing is needed.
    NotNeeded,
    /// The process has `CAP_SYS_NICE`; `root` tells whether it is also uid 0.
    CapSysNice {
        /// Effective uid 0.
        root: bool,
    },
    /// The priority is within the `RLIMIT_RTPRIO` soft limit (`None`: unlimited).
    RtprioLimit(Option<u64>),
}

impl RtCredentials {
    /// The calling process's credentials (`geteuid`, `capget`, `getrlimit`). If `capget` is
    /// unavailable, `CapEff` in `/proc/self/status` is read instead.
    pub fn current() -> Result<Self, OsError> {
        let caps = match sys::capget_effective() {
            Ok(caps) => caps,
            Err(errno) => {
                let status = std::fs::read_to_string("/proc/self/status").map_err(|_| OsError {
                    call: "capget",
                    errno,
                })?;
                cap_eff_from_status(&status).ok_or(OsError {
                    call: "capget",
                    errno,
                })?
            }
        };
        let (soft, _hard) = sys::rtprio_limit().map_err(|errno| OsError {
            call: "getrlimit",
            errno,
        })?;
        Ok(RtCredentials {
            euid: sys::geteuid(),
            cap_sys_nice: caps & (1 << CAP_SYS_NICE) != 0,
            rtprio_limit: soft,
        })
    }

    /// Whether these credentials allow `policy` at `priority`; if not,
    /// [`ThreadError::SchedPermission`], whose message tells the user what to do. The priority's
    /// range is not checked here (see [`Policy::check_priority`]).
    pub fn permits(&self, policy: Policy, priority: i32) -> Result<RtPermission, ThreadError> {
        if !policy.is_realtime() {
            return Ok(RtPermission::NotNeeded);
        }
        if self.cap_sys_nice {
            return Ok(RtPermission::CapSysNice {
                root: self.euid == 0,
            });
        }
        let within = match self.rtprio_limit {
            None => true,
            Some(limit) => u64::try_from(priority).is_ok_and(|p| p <= limit),
        };
        if within {
            Ok(RtPermission::RtprioLimit(self.rtprio_limit))
        } else {
            Err(ThreadError::SchedPermission { policy, priority })
        }
    }
}

/// Whether this process may run threads under `policy` at `priority`: the check the CLI makes
/// before starting, so that it can refuse early with [`ThreadError::SchedPermission`].
///
/// This predicts the kernel's own check; a cgroup without real-time runtime
/// (`cpu.rt_runtime_us` = 0) can still make [`set_scheduler`](crate::set_scheduler) fail.
pub fn check_rt_permission(policy: Policy, priority: i32) -> Result<RtPermission, ThreadError> {
    RtCredentials::current()?.permits(policy, priority)
}

/// The effective capability mask from the text of `/proc/PID/status` (`CapEff:` in hex).
pub fn cap_eff_from_status(status: &str) -> Option<u64> {
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))?;
    u64::from_str_radix(line.trim(), 16).ok()
}

/// Whether this process runs with effective user id 0.
pub fn is_root() -> bool {
    sys::geteuid() == 0
}

/// What to tell a user whose access to a kernel file failed with `errno`, after the error
/// itself (`"; …"`), or nothing: "run as root" only to a user who is not root and was
/// refused (`EACCES`, `EPERM`); root refused is told so; any other error (`EINVAL`, `EIO`)
/// is no matter of privileges and gets no hint. `root`: [`is_root`].
pub fn access_hint(errno: Errno, root: bool, root_only: &'static str) -> String {
    match errno {
        Errno::EACCES | Errno::EPERM if root => {
            "; root was refused too (kernel lockdown, a security module, or a container without that access)".to_owned()
        }
        Errno::EACCES | Errno::EPERM => format!("; run as root ({root_only})"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{self, Child};

    #[test]
    fn decision_follows_the_kernel_rules() {
        let root = RtCredentials {
            euid: 0,
            cap_sys_nice: true,
            rtprio_limit: Some(0),
        };
        assert_eq!(
            root.permits(Policy::Fifo, 99),
            Ok(RtPermission::CapSysNice { root: true })
        );
        let capable = RtCredentials { euid: 1000, ..root };
        assert_eq!(
            capable.permits(Policy::RoundRobin, 1),
            Ok(RtPermission::CapSysNice { root: false })
        );
        // uid 0 without the capability (a container): only the rlimit counts.
        let stripped = RtCredentials {
            euid: 0,
            cap_sys_nice: false,
            rtprio_limit: Some(0),
        };
        assert_eq!(
            stripped.permits(Policy::Fifo, 1),
            Err(ThreadError::SchedPermission {
                policy: Policy::Fifo,
                priority: 1
            })
        );
        let limited = RtCredentials {
            euid: 1000,
            cap_sys_nice: false,
            rtprio_limit: Some(50),
        };
        assert_eq!(
            limited.permits(Policy::Fifo, 50),
            Ok(RtPermission::RtprioLimit(Some(50)))
        );
        assert!(limited.permits(Policy::Fifo, 51).is_err());
        assert!(limited.permits(Policy::Fifo, -1).is_err());
        assert_eq!(
            limited.permits(Policy::Other, 0),
            Ok(RtPermission::NotNeeded)
        );
        let unlimited = RtCredentials {
            rtprio_limit: None,
            ..limited
        };
        assert_eq!(
            unlimited.permits(Policy::Fifo, 99),
            Ok(RtPermission::RtprioLimit(None))
        );
    }

    #[test]
    fn cap_eff_parses_from_proc_status() {
        let status = "Name:\tx\nCapPrm:\t0000000000000000\nCapEff:\t000001fffeffffff\n";
        let caps = cap_eff_from_status(status).unwrap();
        assert_eq!(caps, 0x1ff_feff_ffff);
        assert_ne!(caps & (1 << CAP_SYS_NICE), 0);
        assert_eq!(cap_eff_from_status("CapEff:\t0000000000000000\n"), Some(0));
        assert_eq!(cap_eff_from_status("Name:\tx\n"), None);
        assert_eq!(cap_eff_from_status("CapEff:\tzz\n"), None);
    }

    #[test]
    fn this_process_agrees_with_proc_status() {
        let creds = RtCredentials::current().unwrap();
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let from_status = cap_eff_from_status(&status).unwrap() & (1 << CAP_SYS_NICE) != 0;
        assert_eq!(creds.cap_sys_nice, from_status);
        println!("credentials of the test process: {creds:?}");
        if creds.cap_sys_nice {
            assert!(matches!(
                check_rt_permission(Policy::Fifo, 99),
                Ok(RtPermission::CapSysNice { .. })
            ));
        } else {
            println!("NOTE: the test process lacks CAP_SYS_NICE; checked the refusal instead");
            let expected = creds.permits(Policy::Fifo, 99);
            assert_eq!(check_rt_permission(Policy::Fifo, 99), expected);
        }
    }

    /// Runs as `nobody` with `RLIMIT_RTPRIO` 0: every real-time priority is refused, by the
    /// prediction and by the kernel alike.
    #[test]
    #[ignore = "child process of unprivileged_process_is_refused"]
    fn child_no_rtprio() {
        if !test_support::is_child() {
            return;
        }
        let creds = RtCredentials::current().unwrap();
        assert_eq!(
            creds,
            RtCredentials {
                euid: 65534,
                cap_sys_nice: false,
                rtprio_limit: Some(0)
            }
        );
        let refused = ThreadError::SchedPermission {
            policy: Policy::Fifo,
            priority: 1,
        };
        assert_eq!(check_rt_permission(Policy::Fifo, 1), Err(refused.clone()));
        assert_eq!(
            crate::thread::set_scheduler(Policy::Fifo, 1),
            Err(refused.clone())
        );
        assert_eq!(
            check_rt_permission(Policy::Other, 0),
            Ok(RtPermission::NotNeeded)
        );
        crate::thread::set_scheduler(Policy::Batch, 0).unwrap();
        println!("as nobody: {refused}");
    }

    #[test]
    fn unprivileged_process_is_refused() {
        test_support::run_child(
            "privileges::tests::child_no_rtprio",
            Child {
                nobody: true,
                rtprio: Some(0),
                ..Child::default()
            },
        );
    }

    /// Runs as `nobody` with an `RLIMIT_RTPRIO` of at least 2: priorities up to the limit are
    /// allowed, above it refused.
    #[test]
    #[ignore = "child process of rtprio_limit_allows_up_to_the_limit"]
    fn child_rtprio_limit() {
        if !test_support::is_child() {
            return;
        }
        let creds = RtCredentials::current().unwrap();
        assert!(!creds.cap_sys_nice);
        let limit = creds.rtprio_limit.expect("the parent set a finite limit");
        assert!(limit >= 2);
        let below = i32::try_from(limit - 1).unwrap().min(98);
        assert_eq!(
            check_rt_permission(Policy::Fifo, below),
            Ok(RtPermission::RtprioLimit(Some(limit)))
        );
        crate::thread::set_scheduler(Policy::Fifo, below).unwrap();
        assert_eq!(
            crate::thread::scheduler().unwrap(),
            crate::thread::Scheduling {
                policy: Policy::Fifo,
                priority: below
            }
        );
        if limit < 99 {
            let above = i32::try_from(limit + 1).unwrap();
            let refused = ThreadError::SchedPermission {
                policy: Policy::RoundRobin,
                priority: above,
            };
            assert_eq!(
                check_rt_permission(Policy::RoundRobin, above),
                Err(refused.clone())
            );
            assert_eq!(
                crate::thread::set_scheduler(Policy::RoundRobin, above),
                Err(refused)
            );
        }
    }

    #[test]
    fn rtprio_limit_allows_up_to_the_limit() {
        const CAP_SYS_RESOURCE: u32 = 24;
        let name = "privileges::tests::child_rtprio_limit";
        let can_raise = sys::capget_effective().unwrap() & (1 << CAP_SYS_RESOURCE) != 0;
        let (_, hard) = sys::rtprio_limit().unwrap();
        let limit = match hard {
            _ if can_raise => 50,
            None => 50,
            Some(hard) if hard >= 2 => hard.min(50),
            Some(hard) => {
                println!(
                    "NOTE: RLIMIT_RTPRIO cannot be raised here (hard limit {hard}, no \
                     CAP_SYS_RESOURCE): the rlimit grant is covered by \
                     decision_follows_the_kernel_rules only; checking that raising it is refused"
                );
                let child = Child {
                    nobody: true,
                    rtprio: Some(50),
                    ..Child::default()
                };
                let err = test_support::try_run_child(name, child).unwrap_err();
                assert_eq!(err.raw_os_error(), Some(libc::EPERM), "{err}");
                return;
            }
        };
        test_support::run_child(
            name,
            Child {
                nobody: true,
                rtprio: Some(limit),
                ..Child::default()
            },
        );
    }

    #[test]
    fn the_access_hint_says_run_as_root_only_to_others_refused() {
        let files = "tracefs files are root-only";
        assert_eq!(
            access_hint(Errno::EACCES, false, files),
            "; run as root (tracefs files are root-only)"
        );
        assert_eq!(
            access_hint(Errno::EPERM, false, files),
            "; run as root (tracefs files are root-only)"
        );
        assert!(!access_hint(Errno::EACCES, true, files).contains("run as root"));
        assert!(access_hint(Errno::EACCES, true, files).starts_with("; root was refused"));
        for errno in [libc::EINVAL, libc::EIO, libc::EBUSY] {
            assert_eq!(access_hint(Errno::from_raw(errno), false, files), "");
            assert_eq!(access_hint(Errno::from_raw(errno), true, files), "");
        }
    }
}
