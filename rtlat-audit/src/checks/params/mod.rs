//! What each real-time kernel parameter on the line does here: one finding per parameter the
//! issue lists (`cmdline.isolcpus`, `cmdline.nohz_full`, …), `ok` when it is set as a
//! real-time machine wants it, with the parameter to add or change otherwise. Parameters that
//! are absent are reported only where their absence costs latency.
//!
//! One file per group: [`isolation`] (isolcpus, nohz_full, rcu_nocbs, rcu_nocb_poll,
//! irqaffinity, nohz), [`idle`] (idle, C-state limits, cpuidle.off),
//! [`timers`] (watchdogs, TSC, clocksource, skew_tick), [`other`] (THP, audit, SELinux,
//! intel_pstate and the rest).

mod idle;
mod isolation;
mod other;
mod timers;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::cmdline::Param;

use crate::context::{Cmdline, Context};
use crate::finding::{Finding, Severity};

/// Runs the per-parameter checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let Some(c) = &ctx.cmdline else {
        return;
    };
    let p = Params { ctx, c };
    out.extend(p.isolcpus());
    out.extend(p.nohz_full());
    out.extend(p.rcu_nocbs());
    out.extend(p.rcu_nocb_poll());
    out.extend(p.irqaffinity());
    out.extend(p.nohz());
    out.extend(p.idle());
    out.extend(p.processor_max_cstate());
    out.extend(p.intel_idle_max_cstate());
    out.extend(p.cpuidle_off());
    out.extend(p.nmi_watchdog());
    out.extend(p.nosoftlockup());
    out.extend(p.tsc());
    out.extend(p.clocksource());
    out.extend(p.skew_tick());
    out.extend(p.transparent_hugepage());
    out.extend(p.audit());
    out.extend(p.selinux());
    out.extend(p.intel_pstate());
    out.extend(p.acpi_irq_nobalance());
    out.extend(p.flag("threadirqs", "cmdline.threadirqs", Severity::Ok,
        "threadirqs: interrupt handlers run in kernel threads whose priority can be set (PREEMPT_RT does this anyway)"));
    out.extend(p.flag("nosmt", "cmdline.nosmt", Severity::Ok,
        "nosmt: SMT is off, so no sibling hardware thread competes with a real-time thread for its core"));
    out.extend(p.mitigations());
}

/// The command line audited and its context, with the helpers every parameter check uses.
struct Params<'a> {
    ctx: &'a Context,
    c: &'a Cmdline,
}

impl Params<'_> {
    fn finding(
        &self,
        id: &'static str,
        severity: Severity,
        title: String,
        param: &Param,
    ) -> Finding {
        Finding::new(id, severity, title).evidence(&self.c.source, param.raw())
    }

    fn absent(&self, id: &'static str, severity: Severity, title: String, name: &str) -> Finding {
        Finding::new(id, severity, title).evidence(&self.c.source, format!("no {name}"))
    }

    /// The CPUs the line isolates (any flag).
    fn isolated(&self) -> CpuSet {
        self.c.isolation.isolated_cpus()
    }

    /// The CPUs left for housekeeping by the line: possible (else online) minus isolated.
    fn housekeeping(&self) -> String {
        let all = self.ctx.possible.as_ref().or(self.ctx.online.as_ref());
        all.map(|all| all.difference(&self.isolated()))
            .filter(|hk| !hk.is_empty())
            .map_or_else(
                || "HOUSEKEEPING_CPUS (the line leaves none: see cpus.housekeeping)".to_owned(),
                |hk| hk.to_string(),
            )
    }

    fn value_u32(&self, name: &str) -> Option<Result<u32, &Param>> {
        let param = self.c.line.last(name)?;
        Some(
            param
                .value()
                .and_then(|v| v.trim().parse().ok())
                .ok_or(param),
        )
    }

    fn malformed(&self, id: &'static str, param: &Param, expected: &str, example: &str) -> Finding {
        self.finding(
            id,
            Severity::Warn,
            format!("`{param}` is not a value the kernel accepts ({expected}): it is ignored"),
            param,
        )
        .remedy(format!(
            "write an accepted value, e.g. {}={example}",
            param.name()
        ))
    }

    fn flag(
        &self,
        name: &str,
        id: &'static str,
        severity: Severity,
        title: &str,
    ) -> Option<Finding> {
        let param = self.c.line.last(name)?;
        Some(self.finding(id, severity, title.to_owned(), param))
    }
}
