//! `rtlat irq` without `--away-from`: every IRQ with its affinity, where it runs, whether it
//! can be moved, and its name; then the affinity new IRQs get.

use std::process::ExitCode;

use rtlat_system::facts::{Facts, parse_cpu_mask};
use rtlat_system::tune::file;

/// Prints the IRQ table; returns the exit status.
pub fn list(facts: &Facts) -> ExitCode {
    let irqs = match facts.irqs() {
        Ok(irqs) => irqs,
        Err(e) => {
            errln!("rtlat irq: {e}");
            return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
        }
    };
    let width = irqs
        .iter()
        .map(|i| i.affinity.to_string().len())
        .max()
        .unwrap_or(0)
        .max("AFFINITY".len());
    outln!(
        "{:>5}  {:<width$}  {:<9}  {:<7}  NAME",
        "IRQ",
        "AFFINITY",
        "EFFECTIVE",
        "MOVABLE"
    );
    for irq in &irqs {
        let effective = match &irq.effective_affinity {
            Some(set) if set.is_empty() => "none".to_owned(),
            Some(set) => set.to_string(),
            None => "-".to_owned(),
        };
        let path = facts.path(&format!("proc/irq/{}/smp_affinity_list", irq.irq));
        let movable = if file::is_read_only(&path) {
            "no"
        } else {
            "yes"
        };
        outln!(
            "{:>5}  {:<width$}  {:<9}  {:<7}  {}",
            irq.irq,
            irq.affinity.to_string(),
            effective,
            movable,
            irq.name()
        );
    }
    let default = facts.path("proc/irq/default_smp_affinity");
    if let Ok(text) = file::read_value(&default) {
        match parse_cpu_mask(&text) {
            Ok(set) => outln!("# default_smp_affinity {text}: new IRQs may run on CPUs {set}"),
            Err(e) => outln!("# default_smp_affinity {text}: {e}"),
        }
    }
    ExitCode::SUCCESS
}
