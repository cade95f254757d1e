//! The second step: a [`RunConfig`] resolved against the machine (its CPUs, the files the run
//! writes) into a per-thread [`Plan`].

use std::path::Path;

use rtlat_linux::ProcessCpus;
use rtlat_linux::cpuset::CpuSet;

use super::table::{Opt, name};
use super::{
    MAX_INTERVAL_US, MAX_RT_PRIORITY, MAX_THREADS, Policy, RunConfig, Threads, UsageError,
};

/// The resolved run: one entry per measuring thread, plus what the main thread does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The measuring threads, in index order.
    pub threads: Vec<ThreadPlan>,
    /// CPUs for the main thread (`--mainaffinity`), if asked.
    pub main_affinity: Option<CpuSet>,
    /// Defaults rtlat chose that cyclictest reports on stderr (e.g. the priority it uses for
    /// `--policy fifo` without `-p`); the CLI prints each on its own line to stderr.
    pub notices: Vec<String>,
}

/// One measuring thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadPlan {
    /// Thread number (`T:` in the report).
    pub index: u32,
    /// The CPU it is pinned to.
    pub cpu: usize,
    /// Its scheduling policy.
    pub policy: Policy,
    /// Its priority (1..=99 for fifo/rr, 0 otherwise).
    pub priority: u8,
    /// Its interval in µs: `-i` + index × distance.
    pub interval_us: u64,
}

impl RunConfig {
    /// Resolves the run against the machine's CPUs: `-a` and `--mainaffinity` may name any
    /// online CPU (an isolated one included: `isolcpus=` leaves it out of the process's
    /// affinity mask, it does not forbid it), and the threads go round-robin over the
    /// default set (the process's affinity mask, as cyclictest's) when no CPU is named.
    /// Fails, with a usage error, if `-a`/`--mainaffinity` name CPUs that are not online
    /// or leave none, or the priorities or intervals derived from the thread count are out
    /// of range.
    pub fn plan(&self, cpus: &ProcessCpus) -> Result<Plan, UsageError> {
        if cpus.default_cpus().is_empty() {
            return Err(UsageError::NoCpus);
        }
        if let Some(profile) = &self.profile {
            profile.check_cpus(cpus.online())?;
        }
        let pinned = match &self.affinity {
            Some(spec) => Some(spec.resolve(cpus, "-a/--affinity")?),
            None => None,
        };
        let pool = pinned.as_ref().unwrap_or(cpus.default_cpus());
        let count = match self.threads {
            Threads::Count(n) => n,
            // A CpuSet holds at most MAX_CPUS CPUs, which fits a u32.
            Threads::PerCpu => u32::try_from(pool.len()).unwrap_or(MAX_THREADS),
        };
        let main_affinity = match &self.main_affinity {
            Some(spec) => Some(spec.resolve(cpus, "--mainaffinity")?),
            None => None,
        };

        let policy = self.policy();
        let mut notices = self.warnings.clone();
        let base = if policy.is_realtime() {
            match self.priority {
                Some(priority) => u32::from(priority),
                None => {
                    let default = count + 1;
                    if default > u32::from(MAX_RT_PRIORITY) {
                        let option = match self.policy {
                            Some(policy) => format!("--policy {}", policy.name()),
                            None => "--priospread".into(),
                        };
                        return Err(UsageError::Conflict {
                            option,
                            with: format!("{count} threads"),
                            reason: format!(
                                "without -p the priority is threads + 1 = {default}, above {MAX_RT_PRIORITY}; give -p/--priority"
                            ),
                        });
                    }
                    // cyclictest's own words, so that its stderr is the same.
                    notices.push(format!("defaulting realtime priority to {default}"));
                    if self.policy.is_none() {
                        notices.push(
                            "policy and priority don't match: setting policy to SCHED_FIFO".into(),
                        );
                    }
                    default
                }
            }
        } else {
            0
        };
        // `count` is at least 1: -t refuses 0 and `pool` is never empty.
        let last = count.saturating_sub(1);
        if self.priospread && count > base {
            return Err(UsageError::Conflict {
                option: "--priospread".into(),
                with: format!("-p {base} and {count} threads"),
                reason: format!(
                    "thread {last} would get priority {}, below 1; use -p {count} or more, or fewer threads",
                    i64::from(base) - i64::from(last),
                ),
            });
        }

        let distance = self.distance_us();
        let last_interval = u64::from(last)
            .checked_mul(distance)
            .and_then(|spread| spread.checked_add(self.interval_us));
        if last_interval.is_none_or(|last| last > MAX_INTERVAL_US) {
            return Err(UsageError::Conflict {
                option: format!("-i {}", self.interval_us),
                with: format!("-d {distance} and {count} threads"),
                reason: format!(
                    "the last thread's interval (-i + {last} × -d) would exceed {MAX_INTERVAL_US} µs; use a smaller -d"
                ),
            });
        }

        let threads = (0..count)
            .map(|index| {
                let spread = if self.priospread { index } else { 0 };
                // Checked above: base - spread >= 1 when spreading, and base <= 99.
                let priority = u8::try_from(base.saturating_sub(spread)).unwrap_or(MAX_RT_PRIORITY);
                // `pool` is non-empty (resolve refuses empty sets), so nth finds a CPU.
                let cpu = pool.nth(index as usize % pool.len()).unwrap_or(0);
                ThreadPlan {
                    index,
                    cpu,
                    policy,
                    priority,
                    interval_us: self.interval_us + u64::from(index) * distance,
                }
            })
            .collect();
        Ok(Plan {
            threads,
            main_affinity,
            notices,
        })
    }

    /// Checks, before anything changes, that the kernel lets the threads run where `plan`
    /// puts them, and the main thread on `--mainaffinity`'s CPUs: an online CPU outside the
    /// default set may be isolated (allowed) or excluded by a cgroup cpuset (refused by
    /// `sched_setaffinity`), which only the kernel can tell ([`ProcessCpus::refused_by_cpuset`]).
    pub fn check_cpuset(&self, plan: &Plan, cpus: &ProcessCpus) -> Result<(), String> {
        let measured =
            CpuSet::from_cpus(plan.threads.iter().map(|t| t.cpu)).map_err(|e| e.to_string())?;
        let asked = [
            (Some(measured), self.affinity.as_ref(), "-a/--affinity"),
            (
                plan.main_affinity.clone(),
                self.main_affinity.as_ref(),
                "--mainaffinity",
            ),
        ];
        for (set, spec, option) in asked {
            let Some(set) = set else { continue };
            let refused = cpus.refused_by_cpuset(&set).map_err(|e| e.to_string())?;
            if !refused.is_empty() {
                let value = spec.map_or_else(|| set.to_string(), ToString::to_string);
                return Err(cpuset_refused(option, &value, &refused, cpus));
            }
        }
        Ok(())
    }

    /// Checks that the `--json` and `--histfile` files can be written (see
    /// [`check_writable_parent`]).
    pub fn check_output_paths(&self) -> Result<(), UsageError> {
        if let Some(path) = self.json.as_ref().filter(|p| p.as_os_str() != "-") {
            check_writable_parent(path, "--json")?;
        }
        if let Some(path) = &self.histfile {
            check_writable_parent(path, "--histfile")?;
        }
        if let Some(path) = &self.fifo {
            super::super::fifo::check(path).map_err(|reason| UsageError::NotHere {
                option: name(Opt::Fifo),
                reason,
            })?;
        }
        Ok(())
    }
}

/// Checks, before a run, that `path` (the value of `option`) can be written at its end, as
/// [`rtlat::output`] will write it: its kind (a directory, block device, socket, kernel
/// interface file or another user's symlink is refused), its directory (exists and is
/// writable) and, for a file that is replaced, that it can keep its owner. Nothing is
/// written and a FIFO is not opened.
pub fn check_writable_parent(path: &Path, option: &str) -> Result<(), UsageError> {
    rtlat::output::check(path).map_err(|err| UsageError::NotWritable {
        option: option.to_owned(),
        path: path.to_owned(),
        reason: err.to_string(),
    })
}

/// The line for CPUs `refused` (by [`ProcessCpus::refused_by_cpuset`]) that `option VALUE`
/// asked for: what was wrong (a cgroup cpuset) and what is accepted.
pub fn cpuset_refused(option: &str, value: &str, refused: &CpuSet, cpus: &ProcessCpus) -> String {
    let (s, it) = if refused.len() == 1 {
        ("", "it")
    } else {
        ("s", "them")
    };
    UsageError::InvalidCpuList {
        option: option.to_owned(),
        value: value.to_owned(),
        reason: format!(
            "this process's cgroup cpuset does not allow CPU{s} {refused} (see /proc/self/cpuset), so no thread can run on {it}; name a CPU it allows (this process's CPUs: {})",
            cpus.default_cpus()
        ),
    }
    .to_string()
}
