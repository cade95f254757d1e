//! `rtlat irq --away-from CPUSET`: plan the moves, say what cannot move and what new IRQs
//! will do, then dry run or apply through the shared flow.

use std::process::ExitCode;

use rtlat_system::facts::{FactResultExt as _, parse_cpu_mask};
use rtlat_system::tune::irq::{away_from, is_unmovable};

use super::options::Away;
use crate::cli::tuning::apply::{Request, cpus_text, run as run_request};

/// Plans and prints (and with `--apply` makes) the moves; returns the exit status.
pub fn run(away: Away) -> ExitCode {
    let plan = match away_from(&away.facts, &away.cpus) {
        Ok(plan) => plan,
        Err(e) => {
            errln!("rtlat irq: --away-from {}: {e}", away.cpus);
            return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
        }
    };
    let cpus = cpus_text(&plan.away_from);
    outln!(
        "# moving IRQs away from {cpus} (housekeeping {})",
        cpus_text(&plan.housekeeping)
    );
    for irq in &plan.fixed {
        outln!(
            "# IRQ {} ({}) may run on {} but cannot be moved: the kernel manages its affinity",
            irq.irq,
            irq.name(),
            cpus_text(&irq.affinity)
        );
    }
    if !plan.already_away.is_empty() {
        let list: Vec<String> = plan
            .already_away
            .iter()
            .map(|i| i.irq.to_string())
            .collect();
        outln!("# already away from {cpus}: IRQ {}", list.join(", "));
    }
    let mut changes: Vec<_> = plan.moves.iter().map(|m| m.change.clone()).collect();
    match (&plan.default_change, away.default) {
        (Some(change), true) => changes.push(change.clone()),
        (Some(change), false) => {
            let now = plan
                .default_affinity
                .as_ref()
                .map(cpus_text)
                .unwrap_or_default();
            let new = parse_cpu_mask(&change.new)
                .map(|s| cpus_text(&s))
                .unwrap_or_default();
            outln!(
                "# /proc/irq/default_smp_affinity is {} ({now}): new IRQs may start on {cpus}; add --default to make it {} ({new})",
                change.old,
                change.new
            );
        }
        (None, _) => {}
    }
    if away.facts.irqbalance_running().optional().ok().flatten() == Some(true) {
        errln!(
            "rtlat irq: warning: irqbalance is running and will move IRQs back onto {cpus}: stop it (systemctl stop irqbalance) or ban the CPUs (IRQBALANCE_BANNED_CPULIST={})",
            plan.away_from
        );
    }
    run_request(&Request {
        command: "irq",
        argv: away.argv,
        root: away.facts.root().to_path_buf(),
        changes,
        apply: away.apply,
        save: away.save,
        skip: is_unmovable,
        skipped_as: "not movable",
    })
}
