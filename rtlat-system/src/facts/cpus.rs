//! CPU sets the kernel publishes: online, possible, isolated (`isolcpus=`), tickless
//! (`nohz_full=`).

use super::error::FactError;
use super::read;
use super::root::Facts;
use rtlat_linux::cpuset::CpuSet;

impl Facts {
    /// `/sys/devices/system/cpu/online`: the CPUs running now (never empty).
    pub fn online_cpus(&self) -> Result<CpuSet, FactError> {
        read::cpu_list(&self.path("sys/devices/system/cpu/online"), false)
    }

    /// `/sys/devices/system/cpu/possible`: every CPU that could ever be online; its highest
    /// number is the kernel's `nr_cpu_ids - 1` (the `N` of kernel CPU lists).
    pub fn possible_cpus(&self) -> Result<CpuSet, FactError> {
        read::cpu_list(&self.path("sys/devices/system/cpu/possible"), false)
    }

    /// `/sys/devices/system/cpu/isolated`: the CPUs `isolcpus=` (domain) took out of load
    /// balancing; empty when none.
    pub fn isolated_cpus(&self) -> Result<CpuSet, FactError> {
        read::cpu_list(&self.path("sys/devices/system/cpu/isolated"), true)
    }

    /// `/sys/devices/system/cpu/nohz_full`: the tickless CPUs of `nohz_full=`; empty when
    /// none (the kernel writes an empty line or `(null)`). Absent without `CONFIG_NO_HZ_FULL`.
    pub fn nohz_full_cpus(&self) -> Result<CpuSet, FactError> {
        let path = self.path("sys/devices/system/cpu/nohz_full");
        let text = read::trimmed(&path)?;
        if text == "(null)" {
            return Ok(CpuSet::new());
        }
        CpuSet::parse_allowing_empty(&text).map_err(|source| FactError::CpuList { path, source })
    }
}
