//! Sysctls: real-time throttling, timer migration, and the lockup watchdogs.

use rtlat_system::facts::FactResultExt;

use crate::context::{Context, cpus_phrase, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// Runs the sysctl checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    out.push(rt_throttling(ctx));
    out.push(timer_migration(ctx));
    out.push(nmi_watchdog(ctx));
    out.push(soft_watchdog(ctx));
}

fn rt_throttling(ctx: &Context) -> Finding {
    const ID: &str = "sysctl.sched_rt_runtime_us";
    let path = system_path("proc/sys/kernel/sched_rt_runtime_us");
    let runtime = match ctx.facts.sched_rt_runtime_us() {
        Ok(runtime) => runtime,
        Err(e) => return unreadable(ID, &path, &e),
    };
    if runtime < 0 {
        return Finding::new(
            ID,
            Severity::Ok,
            "Real-time throttling is off: a real-time task may use its CPU fully",
        )
        .evidence(path, runtime.to_string());
    }
    let period = ctx.facts.sched_rt_period_us().ok();
    let period_us = period.unwrap_or(1_000_000);
    let ms = |us: u64| {
        if us.is_multiple_of(1000) {
            format!("{} ms", us / 1000)
        } else {
            format!("{us} µs")
        }
    };
    let runtime_us = runtime.unsigned_abs();
    let severity = if ctx.isolated.is_empty() {
        Severity::Info
    } else {
        Severity::Warn
    };
    let mut finding = Finding::new(
        ID,
        severity,
        format!(
            "Real-time throttling is on: real-time tasks may run {} of every {}, then they are held back for {} (a safety net against runaway tasks, but a busy-polling real-time loop stalls)",
            ms(runtime_us),
            ms(period_us),
            ms(period_us.saturating_sub(runtime_us))
        ),
    )
    .evidence(path, runtime.to_string())
    .remedy("sysctl -w kernel.sched_rt_runtime_us=-1, and kernel.sched_rt_runtime_us = -1 in /etc/sysctl.d/ to keep it (a runaway real-time task can then take its CPU for good)");
    if let Some(period) = period {
        finding = finding.evidence(
            system_path("proc/sys/kernel/sched_rt_period_us"),
            period.to_string(),
        );
    }
    finding
}

fn timer_migration(ctx: &Context) -> Finding {
    const ID: &str = "sysctl.timer_migration";
    let path = system_path("proc/sys/kernel/timer_migration");
    match ctx.facts.timer_migration() {
        Ok(false) => Finding::new(ID, Severity::Ok, "Timer migration is off: each CPU handles the timers armed on it")
            .evidence(path, "0"),
        Ok(true) => Finding::new(
            ID,
            Severity::Info,
            "Timer migration is on: timers armed on one CPU may be handled by another; real-time profiles (tuned's realtime) turn it off",
        )
        .evidence(path, "1")
        .remedy("sysctl -w kernel.timer_migration=0"),
        Err(e) => unreadable(ID, &path, &e),
    }
}

/// The CPUs the lockup detectors watch, for evidence and for the isolated-CPU test.
fn watched(ctx: &Context) -> Option<rtlat_linux::cpuset::CpuSet> {
    ctx.facts.watchdog_cpumask().ok()
}

fn nmi_watchdog(ctx: &Context) -> Finding {
    const ID: &str = "sysctl.nmi_watchdog";
    let path = system_path("proc/sys/kernel/nmi_watchdog");
    match ctx.facts.nmi_watchdog().optional() {
        Ok(None) => Finding::new(
            ID,
            Severity::Ok,
            "This kernel has no hard-lockup (NMI) watchdog",
        )
        .evidence(path, "absent"),
        Ok(Some(false)) => Finding::new(
            ID,
            Severity::Ok,
            "The NMI watchdog is off: no periodic perf NMI",
        )
        .evidence(path, "0"),
        Ok(Some(true)) => {
            let cpus = watched(ctx);
            let spares_isolated = !ctx.isolated.is_empty()
                && cpus
                    .as_ref()
                    .is_some_and(|c| c.intersection(&ctx.isolated).is_empty());
            let finding = if spares_isolated {
                Finding::new(
                    ID,
                    Severity::Info,
                    "The NMI watchdog is on, but kernel.watchdog_cpumask keeps it off the isolated CPUs",
                )
            } else {
                Finding::new(
                    ID,
                    Severity::Warn,
                    "The NMI watchdog is on: a perf NMI interrupts each watched CPU every few seconds, whatever runs there",
                )
                .remedy("nmi_watchdog=0 on the command line, or now: sysctl -w kernel.nmi_watchdog=0")
            };
            let finding = finding.evidence(path, "1");
            match cpus {
                Some(cpus) => finding.evidence(
                    system_path("proc/sys/kernel/watchdog_cpumask"),
                    cpus.to_string(),
                ),
                None => finding,
            }
        }
        Err(e) => unreadable(ID, &path, &e),
    }
}

fn soft_watchdog(ctx: &Context) -> Finding {
    const ID: &str = "sysctl.soft_watchdog";
    let path = system_path("proc/sys/kernel/soft_watchdog");
    let soft = match ctx.facts.soft_watchdog().optional() {
        Ok(Some(soft)) => soft,
        Ok(None) => {
            return Finding::new(ID, Severity::Ok, "This kernel has no soft-lockup detector")
                .evidence(path, "absent");
        }
        Err(e) => return unreadable(ID, &path, &e),
    };
    let all = ctx.facts.watchdog().unwrap_or(true);
    if !soft || !all {
        return Finding::new(ID, Severity::Ok, "The soft-lockup detector is off")
            .evidence(path, if soft { "1" } else { "0" })
            .evidence(
                system_path("proc/sys/kernel/watchdog"),
                if all { "1" } else { "0" },
            );
    }
    let cpus = watched(ctx);
    let mask_path = system_path("proc/sys/kernel/watchdog_cpumask");
    let finding = match (&cpus, ctx.isolated.is_empty()) {
        (_, true) => Finding::new(
            ID,
            Severity::Info,
            "The soft-lockup detector is on: a timer every 4 s on each CPU wakes its stopper thread",
        )
        .remedy("nosoftlockup on the command line, or keep it off the isolated CPUs with kernel.watchdog_cpumask once CPUs are isolated"),
        (Some(cpus), false) if cpus.intersection(&ctx.isolated).is_empty() => Finding::new(
            ID,
            Severity::Ok,
            "The soft-lockup detector runs only on the housekeeping CPUs",
        ),
        _ => Finding::new(
            ID,
            Severity::Warn,
            format!(
                "The soft-lockup detector watches the isolated {}: a timer every 4 s wakes the stopper thread there",
                cpus_phrase(&ctx.isolated)
            ),
        )
        .remedy(format!(
            "sysctl -w kernel.watchdog_cpumask={} (and in /etc/sysctl.d/), or nosoftlockup on the command line",
            ctx.housekeeping_list()
        )),
    };
    let finding = finding.evidence(path, "1");
    match cpus {
        Some(cpus) => finding.evidence(mask_path, cpus.to_string()),
        None => finding,
    }
}
