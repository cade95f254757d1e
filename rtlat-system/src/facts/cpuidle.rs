//! CPU idle states: `/sys/devices/system/cpu/cpuN/cpuidle/stateK/` and the cpuidle driver and
//! governor in `/sys/devices/system/cpu/cpuidle/`. Absent with `cpuidle.off=1` (and on kernels
//! without `CONFIG_CPU_IDLE`).

use super::error::{FactError, FactResultExt, Malformed};
use super::read;
use super::root::Facts;

/// One idle state of a CPU (`stateK/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleState {
    /// `K`, the state's index (0 is the shallowest, usually `POLL`).
    pub index: u32,
    /// `name`, e.g. `POLL`, `C1`, `C6`.
    pub name: String,
    /// `desc`, if present (e.g. `MWAIT 0x20`).
    pub desc: Option<String>,
    /// `latency`: the exit latency in µs (the delay a wake-up from this state adds).
    pub latency_us: u64,
    /// `residency`: the target residency in µs, if present.
    pub residency_us: Option<u64>,
    /// `disable`: whether the state is disabled for this CPU.
    pub disabled: bool,
}

impl Facts {
    /// The idle states of `cpu`, by index. [`FactError::Absent`] if the CPU has no `cpuidle`
    /// directory.
    pub fn cpuidle_states(&self, cpu: usize) -> Result<Vec<IdleState>, FactError> {
        let dir = self.path(&format!("sys/devices/system/cpu/cpu{cpu}/cpuidle"));
        read::prefixed_entries(&dir, "state")?
            .into_iter()
            .map(|index| {
                let state = dir.join(format!("state{index}"));
                let name = read::trimmed(&state.join("name"))?;
                Ok(IdleState {
                    index,
                    name,
                    desc: read::trimmed(&state.join("desc")).optional()?,
                    latency_us: read::value(&state.join("latency"), "an exit latency in µs")?,
                    residency_us: read::value(&state.join("residency"), "a residency in µs")
                        .optional()?,
                    disabled: read::switch(&state.join("disable"))?,
                })
            })
            .collect()
    }

    /// `/sys/devices/system/cpu/cpuidle/current_driver`, e.g. `intel_idle`, `acpi_idle`,
    /// `haltpoll`, or `none`.
    pub fn cpuidle_driver(&self) -> Result<String, FactError> {
        let path = self.path("sys/devices/system/cpu/cpuidle/current_driver");
        let driver = read::trimmed(&path)?;
        if driver.is_empty() {
            return Err(FactError::malformed(
                &path,
                Malformed::new("a driver name", &driver),
            ));
        }
        Ok(driver)
    }

    /// The cpuidle governor (`current_governor_ro`, or `current_governor` where that is the
    /// only one), e.g. `menu`, `teo`, `haltpoll`.
    pub fn cpuidle_governor(&self) -> Result<String, FactError> {
        let dir = self.path("sys/devices/system/cpu/cpuidle");
        match read::trimmed(&dir.join("current_governor_ro")) {
            Err(e) if e.is_absent() => read::trimmed(&dir.join("current_governor")),
            other => other,
        }
    }

    /// The haltpoll governor's longest poll before a halt, in ns
    /// (`/sys/module/haltpoll/parameters/guest_halt_poll_ns`; KVM guests).
    pub fn guest_halt_poll_ns(&self) -> Result<u64, FactError> {
        read::value(
            &self.path("sys/module/haltpoll/parameters/guest_halt_poll_ns"),
            "a time in ns",
        )
    }
}
