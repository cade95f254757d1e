//! The kernel's clocksource (`clocksource=` on the command line, `tsc` wanted on x86):
//! `/sys/devices/system/clocksource/clocksource0/`.

use super::error::FactError;
use super::read;
use super::root::Facts;

impl Facts {
    /// `current_clocksource`, e.g. `tsc`, `hpet`, `arch_sys_counter`.
    pub fn current_clocksource(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("sys/devices/system/clocksource/clocksource0/current_clocksource"))
    }

    /// `available_clocksource`, e.g. `["tsc", "hpet", "acpi_pm"]`.
    pub fn available_clocksources(&self) -> Result<Vec<String>, FactError> {
        let text = read::text(
            &self.path("sys/devices/system/clocksource/clocksource0/available_clocksource"),
        )?;
        Ok(text.split_whitespace().map(str::to_owned).collect())
    }
}
