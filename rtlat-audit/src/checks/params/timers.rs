//! Timers and clocks on the command line: the lockup watchdogs (`nmi_watchdog=`,
//! `nosoftlockup`), the TSC and its watchdog (`tsc=`), `clocksource=`, `skew_tick=`.

use super::Params;
use crate::finding::{Finding, Severity};
use crate::tsc_watchdog::{TscWatchdog, tsc_watchdog};

impl Params<'_> {
    pub(super) fn nmi_watchdog(&self) -> Option<Finding> {
        const ID: &str = "cmdline.nmi_watchdog";
        let param = self.c.line.last("nmi_watchdog")?;
        Some(if param.value() == Some("0") {
            self.finding(ID, Severity::Ok,
                "nmi_watchdog=0: the hard-lockup detector is off, so no periodic perf NMI interrupts the CPUs".to_owned(), param)
        } else {
            self.finding(ID, Severity::Info, format!(
                "`{param}` keeps the hard-lockup detector on: a perf NMI on each watched CPU every few seconds"
            ), param)
            .remedy("nmi_watchdog=0, or keep it off the isolated CPUs with kernel.watchdog_cpumask")
        })
    }

    pub(super) fn nosoftlockup(&self) -> Option<Finding> {
        self.flag("nosoftlockup", "cmdline.nosoftlockup", Severity::Ok,
            "nosoftlockup: the soft-lockup detector is off, so no watchdog timer and thread wake up on every CPU every few seconds")
    }

    pub(super) fn tsc(&self) -> Option<Finding> {
        const ID: &str = "cmdline.tsc";
        let Some(param) = self.c.line.last("tsc") else {
            let current = self.ctx.facts.current_clocksource().ok()?;
            if current != "tsc" {
                return None;
            }
            // The CPU and the kernel decide, not the rest of the line: the same on the running
            // line and on one given with --cmdline for this machine.
            let release = self.ctx.facts.os_release().ok();
            let watchdog = tsc_watchdog(self.ctx.cpuinfo.as_ref(), release.as_deref());
            let finding = match &watchdog {
                TscWatchdog::Exempt(why) => self.absent(ID, Severity::Ok, format!(
                    "The kernel runs no clocksource watchdog on the TSC ({why}), so tsc=nowatchdog would change nothing"
                ), "tsc="),
                TscWatchdog::Watched(why) => self.absent(ID, Severity::Info, format!(
                    "The clocksource watchdog cross-checks the TSC every half second from a timer that visits every online CPU in turn ({why})"
                ), "tsc=")
                .remedy("add tsc=nowatchdog if the TSC is stable here (dmesg shows no 'Marking TSC unstable')"),
                TscWatchdog::Unknown => self.absent(ID, Severity::Info,
                    "The clocksource watchdog may cross-check the TSC every half second from a timer that visits every online CPU (kernels since 5.16 skip it for a constant, nonstop TSC with TSC_ADJUST on up to two packages)".to_owned(),
                    "tsc=")
                .remedy("if /proc/cpuinfo lacks any of constant_tsc, nonstop_tsc, tsc_adjust, add tsc=nowatchdog, provided the TSC is stable here (dmesg shows no 'Marking TSC unstable')"),
            };
            let mut finding = finding.evidence(
                "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                current,
            );
            if !matches!(watchdog, TscWatchdog::Unknown)
                && let Some(info) = &self.ctx.cpuinfo
            {
                let flags: Vec<&str> =
                    ["constant_tsc", "nonstop_tsc", "tsc_adjust", "tsc_reliable"]
                        .into_iter()
                        .filter(|f| info.has(f))
                        .collect();
                let packages = info
                    .packages
                    .map(|n| format!("; {n} package{}", if n == 1 { "" } else { "s" }))
                    .unwrap_or_default();
                finding = finding.evidence(
                    "/proc/cpuinfo",
                    format!(
                        "flags: {}{packages}",
                        if flags.is_empty() {
                            "none of constant_tsc nonstop_tsc tsc_adjust tsc_reliable".to_owned()
                        } else {
                            flags.join(" ")
                        }
                    ),
                );
                if let Ok(release) = self.ctx.facts.os_release() {
                    finding = finding.evidence("/proc/sys/kernel/osrelease", release);
                }
            }
            return Some(finding);
        };
        Some(match param.value() {
            Some("nowatchdog") => self.finding(ID, Severity::Ok,
                "tsc=nowatchdog: the clocksource watchdog no longer cross-checks the TSC from a timer that visits every CPU".to_owned(), param),
            Some("reliable") => self.finding(ID, Severity::Ok,
                "tsc=reliable: the TSC is trusted without runtime checks, so no clocksource watchdog (right only on CPUs with a constant, nonstop TSC)".to_owned(), param),
            Some("unstable") => self.finding(ID, Severity::Warn,
                "tsc=unstable forces a slower clocksource than the TSC".to_owned(), param)
                .remedy("remove tsc=unstable unless the TSC really is unstable here"),
            _ => self.finding(ID, Severity::Info, format!("`{param}` changes how the kernel treats the TSC"), param),
        })
    }

    pub(super) fn clocksource(&self) -> Option<Finding> {
        const ID: &str = "cmdline.clocksource";
        let param = self.c.line.last("clocksource")?;
        Some(match param.value() {
            Some("tsc" | "arch_sys_counter") => self.finding(ID, Severity::Ok, format!(
                "`{param}`: the fastest clock to read"
            ), param),
            Some(slow @ ("hpet" | "acpi_pm" | "jiffies" | "pit")) => self.finding(ID, Severity::Warn, format!(
                "`{param}` forces a slow clocksource: every clock read goes to a device ({slow})"
            ), param)
            .remedy(format!("remove clocksource={slow} (or write clocksource=tsc on x86)")),
            _ => self.finding(ID, Severity::Info, format!("`{param}` selects the clocksource"), param),
        })
    }

    pub(super) fn skew_tick(&self) -> Option<Finding> {
        const ID: &str = "cmdline.skew_tick";
        Some(match self.c.line.last("skew_tick") {
            Some(param) if param.value() == Some("1") => self.finding(ID, Severity::Ok,
                "skew_tick=1: the CPUs' ticks are offset, so they do not all contend for the timekeeping lock at once".to_owned(), param),
            Some(param) => self.finding(ID, Severity::Info, format!(
                "`{param}`: the CPUs' ticks fire at the same moment and contend for the timekeeping lock"
            ), param)
            .remedy("write skew_tick=1"),
            None => self.absent(ID, Severity::Info,
                "The CPUs' ticks fire at the same moment and contend for the timekeeping lock (skew_tick=1 absent; recommended with PREEMPT_RT)".to_owned(),
                "skew_tick=")
                .remedy("add skew_tick=1"),
        })
    }
}
