//! The other parameters real-time tuning sets: `transparent_hugepage=`, `audit=`,
//! `selinux=`, `intel_pstate=`, `acpi_irq_nobalance`, `mitigations=`.

use super::Params;
use crate::finding::{Finding, Severity};

impl Params<'_> {
    pub(super) fn transparent_hugepage(&self) -> Option<Finding> {
        const ID: &str = "cmdline.transparent_hugepage";
        let param = self.c.line.last("transparent_hugepage")?;
        Some(match param.value() {
            Some("never") => self.finding(ID, Severity::Ok,
                "transparent_hugepage=never: no khugepaged compaction and no 2 MiB page-fault zeroing".to_owned(), param),
            Some("madvise") => self.finding(ID, Severity::Ok,
                "transparent_hugepage=madvise: huge pages only where a program asks for them".to_owned(), param),
            Some("always") => self.finding(ID, Severity::Warn,
                "transparent_hugepage=always: khugepaged compacts memory in the background and page faults may zero 2 MiB at a time".to_owned(), param)
                .remedy("write transparent_hugepage=never (or madvise)"),
            _ => self.malformed(ID, param, "never, madvise or always", "never"),
        })
    }

    pub(super) fn audit(&self) -> Option<Finding> {
        const ID: &str = "cmdline.audit";
        let param = self.c.line.last("audit")?;
        Some(match param.value() {
            Some("0" | "off") => self.finding(
                ID,
                Severity::Ok,
                "audit=0: the audit subsystem is off, so system calls are not audited".to_owned(),
                param,
            ),
            Some("1" | "on") => self
                .finding(
                    ID,
                    Severity::Info,
                    "audit=1: the audit subsystem is on; every audited system call costs time"
                        .to_owned(),
                    param,
                )
                .remedy("audit=0 if this machine does not need auditing"),
            _ => self.malformed(ID, param, "0 or 1", "0"),
        })
    }

    pub(super) fn selinux(&self) -> Option<Finding> {
        const ID: &str = "cmdline.selinux";
        let param = self.c.line.last("selinux")?;
        Some(match param.value() {
            Some("0") => self.finding(
                ID,
                Severity::Ok,
                "selinux=0: SELinux is off, so its checks do not run on each access".to_owned(),
                param,
            ),
            Some("1") => self.finding(
                ID,
                Severity::Info,
                "selinux=1: SELinux is on".to_owned(),
                param,
            ),
            _ => self.malformed(ID, param, "0 or 1", "0"),
        })
    }

    pub(super) fn intel_pstate(&self) -> Option<Finding> {
        const ID: &str = "cmdline.intel_pstate";
        let param = self.c.line.last("intel_pstate")?;
        Some(match param.value() {
            Some("disable") => self.finding(ID, Severity::Ok,
                "intel_pstate=disable: acpi-cpufreq and its governors set the frequency (the cpufreq check shows the governor)".to_owned(), param),
            Some("passive") => self.finding(ID, Severity::Ok,
                "intel_pstate=passive: the generic governors set the frequency (the cpufreq check shows the governor)".to_owned(), param),
            _ => self.finding(ID, Severity::Info, format!("`{param}` changes how intel_pstate scales the frequency"), param),
        })
    }

    pub(super) fn acpi_irq_nobalance(&self) -> Option<Finding> {
        self.flag("acpi_irq_nobalance", "cmdline.acpi_irq_nobalance", Severity::Ok,
            "acpi_irq_nobalance: ACPI does not spread PCI interrupt links over IRQs (it only matters in PIC mode; harmless)")
    }

    pub(super) fn mitigations(&self) -> Option<Finding> {
        let param = self.c.line.last("mitigations")?;
        (param.value() == Some("off")).then(|| {
            self.finding("cmdline.mitigations", Severity::Info,
                "mitigations=off: faster system calls and context switches, but the CPU vulnerability mitigations are off (acceptable only on an isolated, trusted machine)".to_owned(), param)
        })
    }
}
