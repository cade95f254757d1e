//! [`ProcessCpus`]: the CPUs a measurement may put its threads on, read once per run.
//!
//! Two sets, because `isolcpus=` makes them differ:
//!
//! - **online** (`/sys/devices/system/cpu/online`): every CPU a CPU list may name. An
//!   isolated CPU is one of them: `isolcpus=` takes it out of the *default* affinity of every
//!   task (init's mask, which every process inherits), but does not forbid it —
//!   `sched_setaffinity` onto it works, and measuring there is the point of isolating it.
//!   cyclictest (`-a 1`), Xenomai's `latency` (`-c 1`) and LinuxCNC's realtime threads all
//!   run on an isolated CPU that is named.
//! - **default** (online ∩ this process's `sched_getaffinity` mask): where the process runs
//!   when nobody says otherwise. It is the set used when no CPU is named, the base of
//!   cyclictest's relative lists (`!LIST`, `+LIST`), and where helper threads (an evidence
//!   sampler, an HTTP server) stay, so that they stay off the isolated CPUs unless named. On
//!   a machine booted with `isolcpus=1` it is every CPU but 1; under `taskset -c 0`, CPU 0.
//!
//! A cgroup cpuset can forbid an online CPU outside the default set too, and nothing a
//! process reads about itself tells that from `isolcpus=`; [`ProcessCpus::refused_by_cpuset`]
//! asks the kernel, from a probe thread, before a run starts.
//!
//! ```
//! use rtlat_linux::cpuset::CpuSet;
//! use rtlat_linux::ProcessCpus;
//!
//! // Four CPUs, CPU 3 isolated (booted with isolcpus=3).
//! let cpus = ProcessCpus::new(CpuSet::parse("0-3").unwrap(), CpuSet::parse("0-2").unwrap());
//! assert!(cpus.online().contains(3));
//! assert!(!cpus.default_cpus().contains(3));
//! assert_eq!(cpus.outside_default().to_string(), "3");
//! ```

use std::path::Path;

use crate::cpuset::{CpuSet, CpuSetReadError};
use crate::thread::{ThreadError, affinity, set_affinity};

/// The online CPUs and this process's default CPUs (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessCpus {
    online: CpuSet,
    default: CpuSet,
}

/// Why the CPUs could not be read or probed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProcessCpusError {
    /// `/sys/devices/system/cpu/online` could not be read.
    #[error(transparent)]
    Online(#[from] CpuSetReadError),
    /// `sched_getaffinity` failed, or its mask does not fit a [`CpuSet`].
    #[error("cannot read this process's CPU affinity: {0}")]
    Affinity(String),
    /// The probe thread of [`ProcessCpus::refused_by_cpuset`] could not start.
    #[error("cannot start a thread to check the CPUs the cgroup cpuset allows: {0}")]
    Probe(std::io::Error),
}

impl ProcessCpus {
    /// Reads the online CPUs and the calling thread's affinity mask (call it from the main
    /// thread before anything moves it: that mask is the process's default).
    pub fn read() -> Result<ProcessCpus, ProcessCpusError> {
        let online = CpuSet::online(Path::new("/"))?;
        let mask =
            affinity().map_err(|e: ThreadError| ProcessCpusError::Affinity(e.to_string()))?;
        let mask =
            CpuSet::from_cpus(mask).map_err(|e| ProcessCpusError::Affinity(e.to_string()))?;
        Ok(ProcessCpus::new(online, mask))
    }

    /// The sets as given (tests, captured machines); `default` is kept to its online CPUs.
    pub fn new(online: CpuSet, default: CpuSet) -> ProcessCpus {
        let default = default.intersection(&online);
        ProcessCpus { online, default }
    }

    /// Every online CPU: what a CPU list may name, isolated CPUs included.
    pub fn online(&self) -> &CpuSet {
        &self.online
    }

    /// The online CPUs of this process's affinity mask: where threads go when no CPU is
    /// named, what `!LIST` and `+LIST` count from, and where helper threads stay.
    pub fn default_cpus(&self) -> &CpuSet {
        &self.default
    }

    /// The online CPUs outside the default set: the isolated ones (or those `taskset` left
    /// out), accepted when named.
    pub fn outside_default(&self) -> CpuSet {
        self.online.difference(&self.default)
    }

    /// The CPUs of `cpus` no thread of this process may run on: offline ones, and online
    /// ones outside the default set that the kernel refuses (a cgroup cpuset that excludes
    /// them). A short-lived probe thread asks `sched_setaffinity` for each CPU outside the
    /// default set (those inside it are allowed by definition); the calling thread is not
    /// moved.
    pub fn refused_by_cpuset(&self, cpus: &CpuSet) -> Result<CpuSet, ProcessCpusError> {
        let unknown = cpus.difference(&self.default);
        let offline = unknown.difference(&self.online);
        let to_probe = unknown.intersection(&self.online);
        if to_probe.is_empty() {
            return Ok(offline);
        }
        let refused = std::thread::Builder::new()
            .name("rtlat-cpu-probe".into())
            .stack_size(64 * 1024)
            .spawn(move || {
                let refused = to_probe.iter().filter(|&cpu| set_affinity(&[cpu]).is_err());
                // Every CPU came from a CpuSet, so it fits one.
                CpuSet::from_cpus(refused).unwrap_or_default()
            })
            .map_err(ProcessCpusError::Probe)?
            .join()
            .unwrap_or_default();
        Ok(offline.union(&refused))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(list: &str) -> CpuSet {
        CpuSet::parse_allowing_empty(list).unwrap()
    }

    #[test]
    fn the_default_set_is_kept_to_online_cpus() {
        let cpus = ProcessCpus::new(set("0-3"), set("0-2,7"));
        assert_eq!(cpus.online(), &set("0-3"));
        assert_eq!(cpus.default_cpus(), &set("0-2"));
        assert_eq!(cpus.outside_default(), set("3"));
        let none = ProcessCpus::new(set("0-1"), set("0-1"));
        assert!(none.outside_default().is_empty());
    }

    #[test]
    fn this_process_may_run_on_every_online_cpu_it_was_not_kept_from() {
        let cpus = ProcessCpus::read().unwrap();
        assert!(!cpus.default_cpus().is_empty());
        assert!(cpus.default_cpus().is_subset(cpus.online()));
        // The test's machine has no cpuset excluding an online CPU (CI runs as root in the
        // root cpuset); a CPU that is not online is refused, and nothing else.
        let offline = (0..4096).find(|&c| !cpus.online().contains(c)).unwrap();
        let mut asked = cpus.online().clone();
        asked.insert(offline).unwrap();
        let before = affinity().unwrap();
        assert_eq!(
            cpus.refused_by_cpuset(&asked).unwrap(),
            set(&offline.to_string())
        );
        assert_eq!(affinity().unwrap(), before, "the caller is not moved");
    }

    #[test]
    fn a_cpu_outside_a_narrower_default_set_is_probed_not_refused() {
        // As if isolcpus= had left only the first online CPU in the mask: the others are
        // probed, and allowed (no cpuset excludes them here).
        let online = CpuSet::online(Path::new("/")).unwrap();
        let first = online.first().unwrap();
        let cpus = ProcessCpus::new(online.clone(), set(&first.to_string()));
        assert!(cpus.refused_by_cpuset(&online).unwrap().is_empty());
    }
}
