//! Interrupt affinity: `/proc/irq/N/{smp_affinity_list,effective_affinity_list}` and
//! `/proc/irq/default_smp_affinity`.

use std::path::PathBuf;

use super::cpumask::parse_cpu_mask;
use super::error::{FactError, FactResultExt};
use super::interrupts::InterruptLine;
use super::read;
use super::root::Facts;
use rtlat_linux::cpuset::CpuSet;

/// One IRQ: where it may run, where it does run, and its line of `/proc/interrupts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irq {
    /// The IRQ number.
    pub irq: u32,
    /// `smp_affinity_list`: the CPUs the IRQ may be delivered to.
    pub affinity: CpuSet,
    /// `effective_affinity_list`: the CPUs the interrupt controller actually targets (often a
    /// single CPU of `affinity`; empty for an IRQ not started yet). `None` where the kernel
    /// has no such file.
    pub effective_affinity: Option<CpuSet>,
    /// Its `/proc/interrupts` line (`None` if the IRQ has none, e.g. no handler).
    pub line: Option<InterruptLine>,
}

impl Irq {
    /// A name for the IRQ (its handlers), or `""` when it has no `/proc/interrupts` line.
    pub fn name(&self) -> String {
        self.line
            .as_ref()
            .map(InterruptLine::name)
            .unwrap_or_default()
    }
}

impl Facts {
    /// The directory of IRQ `irq` (`proc/irq/N` under the root), for the commands that write
    /// `smp_affinity_list`.
    pub fn irq_dir(&self, irq: u32) -> PathBuf {
        self.path(&format!("proc/irq/{irq}"))
    }

    /// The IRQ numbers in `/proc/irq/`, ascending.
    pub fn irq_numbers(&self) -> Result<Vec<u32>, FactError> {
        read::numbered_entries(&self.path("proc/irq"))
    }

    /// `/proc/irq/N/smp_affinity_list`.
    pub fn irq_affinity(&self, irq: u32) -> Result<CpuSet, FactError> {
        read::cpu_list(&self.irq_dir(irq).join("smp_affinity_list"), true)
    }

    /// `/proc/irq/N/effective_affinity_list` (empty for an IRQ not started yet).
    pub fn irq_effective_affinity(&self, irq: u32) -> Result<CpuSet, FactError> {
        read::cpu_list(&self.irq_dir(irq).join("effective_affinity_list"), true)
    }

    /// `/proc/irq/default_smp_affinity` (a hex mask): the affinity new IRQs get.
    pub fn default_smp_affinity(&self) -> Result<CpuSet, FactError> {
        let path = self.path("proc/irq/default_smp_affinity");
        parse_cpu_mask(&read::text(&path)?).map_err(|e| FactError::malformed(&path, e))
    }

    /// Every IRQ of `/proc/irq/` with its affinities and `/proc/interrupts` line. An IRQ that
    /// disappears while being read is left out; `/proc/interrupts` missing leaves every
    /// `line` `None`.
    pub fn irqs(&self) -> Result<Vec<Irq>, FactError> {
        let interrupts = self.interrupts().optional()?;
        let mut irqs = Vec::new();
        for irq in self.irq_numbers()? {
            let Some(affinity) = self.irq_affinity(irq).optional()? else {
                continue;
            };
            irqs.push(Irq {
                irq,
                affinity,
                effective_affinity: self.irq_effective_affinity(irq).optional()?,
                line: interrupts.as_ref().and_then(|i| i.irq(irq)).cloned(),
            });
        }
        Ok(irqs)
    }
}
