//! Interrupts: IRQs whose affinity (`/proc/irq/N/smp_affinity_list`) or effective affinity
//! (`effective_affinity_list`) includes isolated CPUs, irqbalance, and the affinity new IRQs
//! get (`/proc/irq/default_smp_affinity`).

use rtlat_system::facts::format_cpu_mask;

use crate::context::{Context, and_list, cpus_phrase, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// The most IRQs listed as evidence in one finding.
const MAX_LISTED: usize = 16;

/// Runs the interrupt checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    out.extend(on_isolated(ctx));
    out.extend(irqbalance(ctx));
    out.extend(default_affinity(ctx));
}

fn on_isolated(ctx: &Context) -> Option<Finding> {
    const ID: &str = "irq.on_isolated";
    let isolated = &ctx.isolated;
    if isolated.is_empty() {
        return None;
    }
    let irqs = match ctx.facts.irqs() {
        Ok(irqs) => irqs,
        Err(e) => return Some(unreadable(ID, "/proc/irq", &e)),
    };
    let interrupts = ctx.facts.interrupts().ok();
    let mut listed = Vec::new();
    let mut delivered = Vec::new();
    for irq in &irqs {
        let may = irq.affinity.intersection(isolated);
        if may.is_empty() {
            continue;
        }
        let effective = irq
            .effective_affinity
            .as_ref()
            .map(|e| e.intersection(isolated));
        let mut value = irq.affinity.to_string();
        if let Some(all) = &irq.effective_affinity {
            value.push_str(&format!(
                ", effective {}",
                if all.is_empty() {
                    "(none)".to_owned()
                } else {
                    all.to_string()
                }
            ));
        }
        let name = irq.name();
        if !name.is_empty() {
            value.push_str(&format!(" ({name})"));
        }
        let counts: Vec<String> = match (&interrupts, &irq.line) {
            (Some(interrupts), Some(line)) => isolated
                .iter()
                .filter_map(|cpu| {
                    let n = interrupts.count_on(line, cpu)?;
                    (n > 0).then(|| format!("{n} on CPU {cpu}"))
                })
                .collect(),
            _ => Vec::new(),
        };
        if !counts.is_empty() {
            value.push_str(&format!("; {} so far", counts.join(", ")));
        }
        if effective.as_ref().is_some_and(|e| !e.is_empty()) {
            delivered.push(if name.is_empty() {
                irq.irq.to_string()
            } else {
                format!("{} ({name})", irq.irq)
            });
        }
        listed.push((irq.irq, value));
    }
    let finding = if listed.is_empty() {
        Finding::new(
            ID,
            Severity::Ok,
            format!(
                "No IRQ may be delivered to the isolated {}",
                cpus_phrase(isolated)
            ),
        )
        .evidence(
            system_path("proc/irq/*/smp_affinity_list"),
            format!("{} IRQs, none on {isolated}", irqs.len()),
        )
    } else {
        let delivered_text = match delivered.len() {
            0 => String::new(),
            1 => format!("; IRQ {} is delivered there now", delivered[0]),
            _ => format!("; IRQs {} are delivered there now", and_list(&delivered)),
        };
        let mut finding = Finding::new(
            ID,
            Severity::Warn,
            format!(
                "{} IRQ{} may be delivered to the isolated {}{delivered_text}",
                listed.len(),
                if listed.len() == 1 { "" } else { "s" },
                cpus_phrase(isolated)
            ),
        )
        .remedy(format!(
            "rtlat irq --away-from {isolated} --apply; for IRQs set up later, irqaffinity={} on the command line; managed IRQs (NVMe, multi-queue NICs) cannot be moved: isolcpus=managed_irq,… keeps them away",
            ctx.housekeeping_list()
        ));
        for (irq, value) in listed.iter().take(MAX_LISTED) {
            finding = finding.evidence(
                system_path(&format!("proc/irq/{irq}/smp_affinity_list")),
                value.clone(),
            );
        }
        if listed.len() > MAX_LISTED {
            finding = finding.evidence(
                "/proc/irq",
                format!("… and {} more", listed.len() - MAX_LISTED),
            );
        }
        finding
    };
    Some(ctx.isolated_evidence(finding))
}

fn irqbalance(ctx: &Context) -> Option<Finding> {
    const ID: &str = "irq.irqbalance";
    let running = match ctx.facts.irqbalance_running() {
        Ok(running) => running,
        Err(e) => return Some(unreadable(ID, "/proc", &e)),
    };
    let evidence = if running {
        "a process named irqbalance runs"
    } else {
        "no process named irqbalance"
    };
    let finding = match (running, ctx.isolated.is_empty()) {
        (false, _) => Finding::new(ID, Severity::Ok, "irqbalance does not run: IRQ affinities stay where they are set"),
        (true, false) => Finding::new(
            ID,
            Severity::Warn,
            format!(
                "irqbalance runs: it rewrites IRQ affinities every 10 s, undoing what rtlat irq sets (recent versions leave the isolated {} alone, older ones do not)",
                cpus_phrase(&ctx.isolated)
            ),
        )
        .remedy(format!(
            "systemctl disable --now irqbalance (or keep it with IRQBALANCE_BANNED_CPULIST={} in /etc/default/irqbalance)",
            ctx.isolated
        )),
        (true, true) => Finding::new(
            ID,
            Severity::Info,
            "irqbalance runs: it moves IRQs between CPUs every 10 s (harmless while no CPU is isolated, but it will undo rtlat irq)",
        )
        .remedy("systemctl disable --now irqbalance once CPUs are isolated"),
    };
    Some(finding.evidence(system_path("proc/*/stat"), evidence))
}

fn default_affinity(ctx: &Context) -> Option<Finding> {
    const ID: &str = "irq.default_affinity";
    let path = system_path("proc/irq/default_smp_affinity");
    let affinity = match ctx.facts.default_smp_affinity() {
        Ok(affinity) => affinity,
        Err(e) => return Some(unreadable(ID, &path, &e)),
    };
    if ctx.isolated.is_empty() {
        return None;
    }
    let on_isolated = affinity.intersection(&ctx.isolated);
    let mask = format_cpu_mask(&affinity);
    let finding = if on_isolated.is_empty() {
        Finding::new(
            ID,
            Severity::Ok,
            format!("New IRQs get the housekeeping {}", cpus_phrase(&affinity)),
        )
    } else {
        let housekeeping = ctx.housekeeping().unwrap_or_default();
        Finding::new(
            ID,
            Severity::Warn,
            format!(
                "New IRQs get an affinity that includes the isolated {}",
                cpus_phrase(&on_isolated)
            ),
        )
        .remedy(format!(
            "irqaffinity={} on the command line, or now: echo {} > /proc/irq/default_smp_affinity",
            ctx.housekeeping_list(),
            format_cpu_mask(&housekeeping)
        ))
    };
    Some(finding.evidence(path, format!("{mask} (CPUs {affinity})")))
}
