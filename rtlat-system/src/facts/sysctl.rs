//! Sysctls (`/proc/sys/…`): a generic reader and the ones the audit checks (real-time
//! throttling, timer migration, the lockup watchdogs).

use std::path::PathBuf;

use super::error::FactError;
use super::read;
use super::root::Facts;
use rtlat_linux::cpuset::CpuSet;

impl Facts {
    /// The file of sysctl `name`, written `kernel.sched_rt_runtime_us` or
    /// `kernel/sched_rt_runtime_us` (with `/`, components may hold dots, as in
    /// `net/ipv4/conf/eth0.1/rp_filter`).
    pub fn sysctl_path(&self, name: &str) -> Result<PathBuf, FactError> {
        let separator = if name.contains('/') { '/' } else { '.' };
        let components: Vec<&str> = name.split(separator).collect();
        let valid = components
            .iter()
            .all(|c| !c.is_empty() && *c != "." && *c != ".." && !c.contains('\0'));
        if !valid {
            return Err(FactError::InvalidName {
                kind: "sysctl",
                name: name.to_owned(),
            });
        }
        Ok(self.path("proc/sys").join(components.join("/")))
    }

    /// The value of sysctl `name` (see [`sysctl_path`](Self::sysctl_path)), trimmed.
    pub fn sysctl(&self, name: &str) -> Result<String, FactError> {
        read::trimmed(&self.sysctl_path(name)?)
    }

    /// `kernel.sched_rt_runtime_us`: the µs per period real-time tasks may run before the
    /// kernel throttles them (950000 by default); −1 disables throttling.
    pub fn sched_rt_runtime_us(&self) -> Result<i64, FactError> {
        read::value(
            &self.path("proc/sys/kernel/sched_rt_runtime_us"),
            "a runtime in µs (or -1)",
        )
    }

    /// `kernel.sched_rt_period_us`: the throttling period (1000000 by default).
    pub fn sched_rt_period_us(&self) -> Result<u64, FactError> {
        read::value(
            &self.path("proc/sys/kernel/sched_rt_period_us"),
            "a period in µs",
        )
    }

    /// `kernel.timer_migration`: whether timers may move to non-idle CPUs (on by default).
    pub fn timer_migration(&self) -> Result<bool, FactError> {
        read::switch(&self.path("proc/sys/kernel/timer_migration"))
    }

    /// `kernel.nmi_watchdog`: the hard-lockup (NMI) watchdog.
    pub fn nmi_watchdog(&self) -> Result<bool, FactError> {
        read::switch(&self.path("proc/sys/kernel/nmi_watchdog"))
    }

    /// `kernel.watchdog`: the lockup watchdogs as a whole.
    pub fn watchdog(&self) -> Result<bool, FactError> {
        read::switch(&self.path("proc/sys/kernel/watchdog"))
    }

    /// `kernel.soft_watchdog`: the soft-lockup watchdog (`nosoftlockup` turns it off).
    pub fn soft_watchdog(&self) -> Result<bool, FactError> {
        read::switch(&self.path("proc/sys/kernel/soft_watchdog"))
    }

    /// `kernel.watchdog_cpumask` (a CPU list): the CPUs the watchdogs run on.
    pub fn watchdog_cpumask(&self) -> Result<CpuSet, FactError> {
        read::cpu_list(&self.path("proc/sys/kernel/watchdog_cpumask"), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn sysctl_names_stay_under_proc_sys() {
        let facts = Facts::at("/r");
        let path = |name| facts.sysctl_path(name);
        assert_eq!(
            path("kernel.sched_rt_runtime_us").unwrap(),
            Path::new("/r/proc/sys/kernel/sched_rt_runtime_us")
        );
        assert_eq!(
            path("net/ipv4/conf/eth0.1/rp_filter").unwrap(),
            Path::new("/r/proc/sys/net/ipv4/conf/eth0.1/rp_filter")
        );
        for bad in [
            "",
            ".",
            "kernel..x",
            "../etc/passwd",
            "/etc/passwd",
            "kernel/",
            "a/../../b",
        ] {
            let err = path(bad).unwrap_err();
            assert!(matches!(err, FactError::InvalidName { .. }), "{bad:?}");
            assert!(
                err.to_string().contains("kernel.sched_rt_runtime_us"),
                "{err}"
            );
        }
    }
}
