//! The CPUs unbound workqueues may run on: `/sys/devices/virtual/workqueue/cpumask` (a hex
//! mask), which a tuned system restricts to its housekeeping CPUs.

use super::cpumask::parse_cpu_mask;
use super::error::FactError;
use super::read;
use super::root::Facts;
use rtlat_linux::cpuset::CpuSet;

impl Facts {
    /// `/sys/devices/virtual/workqueue/cpumask`.
    pub fn workqueue_cpumask(&self) -> Result<CpuSet, FactError> {
        let path = self.path("sys/devices/virtual/workqueue/cpumask");
        parse_cpu_mask(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }
}
