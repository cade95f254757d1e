//! Unbound workqueues: `/sys/devices/virtual/workqueue/cpumask`, the CPUs their workers may
//! run on.

use rtlat_system::facts::format_cpu_mask;

use crate::context::{Context, cpus_phrase, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// Runs the workqueue check (only with isolated CPUs).
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    const ID: &str = "workqueue.cpumask";
    if ctx.isolated.is_empty() {
        return;
    }
    let path = system_path("sys/devices/virtual/workqueue/cpumask");
    let mask = match ctx.facts.workqueue_cpumask() {
        Ok(mask) => mask,
        Err(e) => {
            out.push(unreadable(ID, &path, &e));
            return;
        }
    };
    let on_isolated = mask.intersection(&ctx.isolated);
    let evidence = format!("{} (CPUs {mask})", format_cpu_mask(&mask));
    let finding = if on_isolated.is_empty() {
        Finding::new(
            ID,
            Severity::Ok,
            "Unbound workqueues run on the housekeeping CPUs only",
        )
    } else {
        let housekeeping = ctx.housekeeping().unwrap_or_default();
        Finding::new(
            ID,
            Severity::Warn,
            format!(
                "Unbound workqueue workers may run on the isolated {}",
                cpus_phrase(&on_isolated)
            ),
        )
        .remedy(format!(
            "echo {} > /sys/devices/virtual/workqueue/cpumask (until reboot; nohz_full= or isolcpus=domain on recent kernels set it at boot)",
            format_cpu_mask(&housekeeping)
        ))
    };
    out.push(finding.evidence(path, evidence));
}
