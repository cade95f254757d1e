//! Moving IRQs away from CPUs (the real-time ones): each IRQ's `smp_affinity_list` loses
//! those CPUs, or, if that leaves none online, becomes the housekeeping CPUs (the online CPUs
//! but those); `/proc/irq/default_smp_affinity`, which new IRQs get, likewise.
//!
//! Some IRQs cannot be moved: per-CPU ones, those whose affinity the kernel manages
//! (multi-queue devices), the timer. Recent kernels make their `smp_affinity_list` read-only
//! for everyone ([`IrqPlan::fixed`]); older ones refuse the write with `EIO` or `EINVAL`
//! ([`is_unmovable`] tells such an error apart, to report it rather than fail).

use super::change::{Change, Target};
use super::error::TuneError;
use super::file;
use crate::facts::{FactError, Facts, Irq, format_cpu_mask, parse_cpu_mask};
use rtlat_linux::cpuset::CpuSet;

/// The system path of `/proc/irq/default_smp_affinity`.
pub const DEFAULT_AFFINITY_PATH: &str = "/proc/irq/default_smp_affinity";

/// One IRQ to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrqMove {
    /// The IRQ.
    pub irq: Irq,
    /// Its `smp_affinity_list`: old → new.
    pub change: Change,
}

/// What [`away_from`] would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrqPlan {
    /// The CPUs the IRQs are to leave.
    pub away_from: CpuSet,
    /// The online CPUs but those: where an IRQ goes when nothing else of its affinity is left.
    pub housekeeping: CpuSet,
    /// The IRQs that may run on those CPUs and can be moved, with their changes.
    pub moves: Vec<IrqMove>,
    /// The IRQs that may run on those CPUs but that the kernel does not let move (their
    /// `smp_affinity_list` is read-only).
    pub fixed: Vec<Irq>,
    /// The IRQs already away from those CPUs.
    pub already_away: Vec<Irq>,
    /// `default_smp_affinity` now (`None` where the kernel has no such file).
    pub default_affinity: Option<CpuSet>,
    /// Its change, if it includes any of those CPUs (a hex mask, as the file holds).
    pub default_change: Option<Change>,
}

/// Plans moving every IRQ of the system under `facts` away from `cpus`.
///
/// [`TuneError::NoHousekeepingCpu`] if `cpus` covers every online CPU.
pub fn away_from(facts: &Facts, cpus: &CpuSet) -> Result<IrqPlan, TuneError> {
    let online = facts.online_cpus()?;
    let housekeeping = online.difference(cpus);
    if housekeeping.is_empty() {
        return Err(TuneError::NoHousekeepingCpu {
            away_from: cpus.to_string(),
            online: online.to_string(),
        });
    }
    let moved = |old: &CpuSet| {
        let rest = old.difference(cpus);
        if rest.intersection(&online).is_empty() {
            housekeeping.clone()
        } else {
            rest
        }
    };
    let mut plan = IrqPlan {
        away_from: cpus.clone(),
        housekeeping: housekeeping.clone(),
        moves: Vec::new(),
        fixed: Vec::new(),
        already_away: Vec::new(),
        default_affinity: None,
        default_change: None,
    };
    for irq in facts.irqs()? {
        if irq.affinity.intersection(cpus).is_empty() {
            plan.already_away.push(irq);
            continue;
        }
        let path = format!("/proc/irq/{}/smp_affinity_list", irq.irq);
        if file::is_read_only(&facts.path(&path)) {
            plan.fixed.push(irq);
            continue;
        }
        let change = Change::new(
            Target::IrqAffinity {
                irq: irq.irq,
                actions: irq
                    .line
                    .as_ref()
                    .map(|l| l.actions.clone())
                    .unwrap_or_default(),
            },
            irq.affinity.to_string(),
            moved(&irq.affinity).to_string(),
        );
        plan.moves.push(IrqMove { irq, change });
    }
    let default_path = facts.path(DEFAULT_AFFINITY_PATH);
    let text = match file::read_value(&default_path) {
        Ok(text) => Some(text),
        Err(TuneError::Fact(fact)) if fact.is_absent() => None,
        Err(e) => return Err(e),
    };
    if let Some(text) = text {
        let old = parse_cpu_mask(&text).map_err(|source| {
            TuneError::Fact(FactError::Malformed {
                path: default_path.clone(),
                source,
            })
        })?;
        if !old.intersection(cpus).is_empty() {
            plan.default_change = Some(Change::new(
                Target::DefaultIrqAffinity,
                text,
                format_cpu_mask(&moved(&old)),
            ));
        }
        plan.default_affinity = Some(old);
    }
    Ok(plan)
}

/// Whether `error`, from writing an IRQ's affinity, means the kernel does not let that IRQ
/// move (`EIO`, `EINVAL`, a read-only file): reported, not fatal.
pub fn is_unmovable(error: &TuneError) -> bool {
    matches!(error, TuneError::WriteRefused { .. })
}
