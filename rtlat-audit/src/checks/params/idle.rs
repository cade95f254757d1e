//! Idle states on the command line: `idle=`, `processor.max_cstate=`,
//! `intel_idle.max_cstate=`, `cpuidle.off=`.

use rtlat_system::facts::FactResultExt;

use super::Params;
use crate::finding::{Finding, Severity};

impl Params<'_> {
    /// What C1 costs on leaving it: about a microsecond on bare metal; in a virtual machine it
    /// is HLT, which exits to the host.
    fn c1(&self) -> &'static str {
        if self.ctx.guest.is_some() {
            "which in a virtual machine is HLT: it exits to the host, and a wake-up waits until the host runs the vCPU again"
        } else {
            "a wake-up of about a microsecond"
        }
    }

    pub(super) fn idle(&self) -> Option<Finding> {
        const ID: &str = "cmdline.idle";
        let param = self.c.line.last("idle")?;
        let guest = self.ctx.guest.is_some();
        Some(match param.value() {
            Some("poll") if guest => self.finding(ID, Severity::Ok,
                "idle=poll: idle vCPUs spin and never execute HLT, which in a virtual machine exits to the host: the shortest wake-up a guest can have, for a host CPU kept busy by each vCPU".to_owned(), param),
            Some("halt") if guest => self.finding(ID, Severity::Info,
                "idle=halt: idle vCPUs execute HLT, which in a virtual machine is not a shallow state: it exits to the host, and a wake-up waits until the host runs the vCPU again".to_owned(), param)
                .remedy("idle=poll if each vCPU has a host CPU of its own; see cpuidle.states"),
            Some("poll") => self.finding(ID, Severity::Info,
                "idle=poll: idle CPUs spin instead of sleeping; the fastest wake-up, but full power and heat all the time, less turbo headroom, and with SMT a spinning sibling slows the real-time thread on its core".to_owned(), param)
                .remedy("keep it only if measurements show it helps: processor.max_cstate=1 and intel_idle.max_cstate=1, or holding /dev/cpu_dma_latency at 0 while the real-time work runs (rtlat run does), bound the wake-up nearly as well"),
            Some("halt") => self.finding(ID, Severity::Ok,
                "idle=halt: idle CPUs only halt (C1), with a wake-up of about a microsecond".to_owned(), param),
            Some("nomwait") => self.finding(ID, Severity::Info,
                "idle=nomwait: C-states are entered without MWAIT; the depth is still up to the cpuidle driver".to_owned(), param),
            _ => self.malformed(ID, param, "poll, halt or nomwait", "halt"),
        })
    }

    pub(super) fn processor_max_cstate(&self) -> Option<Finding> {
        const ID: &str = "cmdline.processor.max_cstate";
        let param = self.c.line.last("processor.max_cstate")?;
        Some(match self.value_u32("processor.max_cstate")? {
            Err(param) => self.malformed(ID, param, "a C-state number", "1"),
            Ok(0 | 1) => {
                let intel_idle_runs = self.c.running
                    && self.ctx.facts.cpuidle_driver().optional().ok().flatten().as_deref() == Some("intel_idle");
                if intel_idle_runs && !self.c.line.contains("intel_idle.max_cstate") {
                    self.finding(ID, Severity::Warn,
                        "processor.max_cstate limits acpi_idle only, but this machine idles with intel_idle, which ignores it".to_owned(), param)
                        .evidence("/sys/devices/system/cpu/cpuidle/current_driver", "intel_idle")
                        .remedy("add intel_idle.max_cstate=1")
                } else {
                    self.finding(ID, Severity::Ok,
                        format!("acpi_idle is limited to C1, {} (intel_idle ignores this: it has intel_idle.max_cstate)", self.c1()), param)
                }
            }
            Ok(n) => self.finding(ID, Severity::Info, format!(
                "acpi_idle may use C-states down to C{n}; the cpuidle check shows their exit latencies"
            ), param),
        })
    }

    pub(super) fn intel_idle_max_cstate(&self) -> Option<Finding> {
        const ID: &str = "cmdline.intel_idle.max_cstate";
        let param = self.c.line.last("intel_idle.max_cstate")?;
        Some(match self.value_u32("intel_idle.max_cstate")? {
            Err(param) => self.malformed(ID, param, "a C-state number", "1"),
            Ok(0) => self.finding(ID, Severity::Ok,
                "intel_idle is disabled (acpi_idle or the default idle loop takes over)".to_owned(), param),
            Ok(1) => self.finding(ID, Severity::Ok,
                format!("intel_idle is limited to C1, {}", self.c1()), param),
            Ok(n) => self.finding(ID, Severity::Info, format!(
                "intel_idle may use C-states down to C{n}; the cpuidle check shows their exit latencies"
            ), param),
        })
    }

    pub(super) fn cpuidle_off(&self) -> Option<Finding> {
        const ID: &str = "cmdline.cpuidle.off";
        let param = self.c.line.last("cpuidle.off")?;
        Some(match self.value_u32("cpuidle.off")? {
            Err(param) => self.malformed(ID, param, "a number, 1 to turn cpuidle off", "1"),
            Ok(0) => self.finding(ID, Severity::Info, "cpuidle.off=0 changes nothing".to_owned(), param),
            Ok(_) if self.ctx.guest.is_some() => self.finding(ID, Severity::Info,
                "cpuidle is off: idle vCPUs execute HLT, which in a virtual machine exits to the host (see cpuidle.states)".to_owned(), param),
            Ok(_) => self.finding(ID, Severity::Ok,
                "cpuidle is off: idle CPUs use the architecture's default idle (HLT or WFI, a shallow state)".to_owned(), param),
        })
    }
}
