//! The command line as a whole: what the kernel accepts only leniently (an open quote, a NUL
//! byte), unknown or misspelled names, repeated parameters, and combinations that conflict or
//! are redundant. What each real-time parameter does is in [`super::params`].

use rtlat_system::cmdline::Param;

use crate::context::{Cmdline, Context, and_list};
use crate::finding::{Finding, Severity};
use crate::known_params::{self, NameCheck};

/// Runs the whole-line checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let Some(cmdline) = &ctx.cmdline else {
        return;
    };
    syntax(cmdline, out);
    names(cmdline, out);
    repeated(cmdline, out);
    conflicts(cmdline, out);
}

fn syntax(c: &Cmdline, out: &mut Vec<Finding>) {
    for warning in c.line.warnings() {
        out.push(
            Finding::new(
                "cmdline.syntax",
                Severity::Warn,
                "The command line is malformed: the kernel reads it differently from what was probably meant",
            )
            .evidence(&c.source, warning.to_string())
            .remedy("fix the quoting of the line (in /etc/default/grub), then update the boot loader"),
        );
    }
}

/// What the kernel does with a name it does not know.
fn fate(param: &Param) -> &'static str {
    if param.name().contains('.') {
        "the kernel ignores it (modprobe would pass it to a module of that name)"
    } else if param.value().is_some() {
        "the kernel passes it to init as an environment variable"
    } else {
        "the kernel passes it to init as an argument"
    }
}

fn names(c: &Cmdline, out: &mut Vec<Finding>) {
    for param in c.line.params() {
        match known_params::check(param.name()) {
            NameCheck::Known => {}
            NameCheck::Misspelled(known) => {
                let fixed = match param.value() {
                    Some(value) => format!("{known}={value}"),
                    None => known.to_owned(),
                };
                out.push(
                    Finding::new(
                        "cmdline.unknown_param",
                        Severity::Warn,
                        format!(
                            "`{param}` is not a kernel parameter, probably a misspelling of {known}: {}, and {known} is not set",
                            fate(param)
                        ),
                    )
                    .evidence(&c.source, param.raw())
                    .remedy(format!("replace {param} with {fixed}")),
                );
            }
            NameCheck::Unknown => out.push(
                Finding::new(
                    "cmdline.unknown_param",
                    Severity::Info,
                    format!(
                        "`{param}` is not among the parameters rtlat knows (the kernel has many more); if the kernel does not know it either, {}",
                        fate(param)
                    ),
                )
                .evidence(&c.source, param.raw())
                .remedy("check its spelling: dmesg | grep -i 'unknown kernel command line' lists the names the kernel did not know"),
            ),
        }
    }
}

/// The occurrence in force of a repeated parameter and whether the others differ from it.
fn in_force<'a>(c: &'a Cmdline, name: &str, all: &[&'a Param]) -> (&'a Param, bool, &'static str) {
    let iso = &c.isolation;
    let parsed = match name {
        "isolcpus" => iso
            .isolcpus
            .as_ref()
            .map(|p| (&p.param, p.ignored.is_empty())),
        "nohz_full" => iso
            .nohz_full
            .as_ref()
            .map(|p| (&p.param, p.ignored.is_empty())),
        "rcu_nocbs" => iso
            .rcu_nocbs
            .as_ref()
            .map(|p| (&p.param, p.ignored.is_empty())),
        "irqaffinity" => iso
            .irqaffinity
            .as_ref()
            .map(|p| (&p.param, p.ignored.is_empty())),
        _ => None,
    };
    let rule = if matches!(name, "isolcpus" | "nohz_full") {
        "the first one it accepts; later ones must match it or are ignored"
    } else {
        "the last one, which overrides the others"
    };
    match parsed {
        // The occurrence in force is one of `all`, so the reference can be re-found there.
        Some((param, same)) => {
            let param = all.iter().copied().find(|p| *p == param).unwrap_or(all[0]);
            (param, same, rule)
        }
        None => {
            let last = all[all.len() - 1];
            let same = all.iter().all(|p| p.value() == last.value());
            (last, same, rule)
        }
    }
}

fn repeated(c: &Cmdline, out: &mut Vec<Finding>) {
    for name in c.line.repeated_names() {
        let all: Vec<&Param> = c.line.all(&name).collect();
        let written: Vec<&str> = all.iter().map(|p| p.raw()).collect();
        let (chosen, same, rule) = in_force(c, &name, &all);
        let finding = if same {
            Finding::new(
                "cmdline.repeated",
                Severity::Info,
                format!(
                    "`{name}` is given {} times with the same meaning: harmless, but a sign of a line edited in several places",
                    all.len()
                ),
            )
            .remedy(format!("keep one {chosen} and remove the others"))
        } else {
            Finding::new(
                "cmdline.repeated",
                Severity::Warn,
                format!(
                    "`{name}` is given {} times with different values: the kernel uses {chosen} ({rule})",
                    all.len()
                ),
            )
            .remedy(format!(
                "keep only the one you mean (the kernel uses {chosen}) and remove the others"
            ))
        };
        out.push(finding.evidence(&c.source, written.join(" ")));
    }
}

fn value_at_most(c: &Cmdline, name: &str, max: u32) -> bool {
    c.line
        .value(name)
        .and_then(|v| v.trim().parse::<u32>().ok())
        .is_some_and(|v| v <= max)
}

fn conflicts(c: &Cmdline, out: &mut Vec<Finding>) {
    let line = &c.line;
    let raw = |name: &str| line.last(name).map(|p| p.raw().to_owned());
    let idle_poll = line.value("idle") == Some("poll");
    let cpuidle_off = line.value("cpuidle.off") == Some("1");

    let cstate_params: Vec<String> = ["processor.max_cstate", "intel_idle.max_cstate"]
        .into_iter()
        .filter_map(raw)
        .collect();
    if idle_poll && (cpuidle_off || !cstate_params.is_empty()) {
        let mut redundant = cstate_params.clone();
        if cpuidle_off {
            redundant.push("cpuidle.off=1".to_owned());
        }
        out.push(
            Finding::new(
                "cmdline.redundant",
                Severity::Info,
                format!(
                    "idle=poll bypasses the cpuidle drivers, so {} change nothing (harmless)",
                    and_list(&redundant)
                ),
            )
            .evidence(&c.source, format!("idle=poll {}", redundant.join(" "))),
        );
    } else if cpuidle_off && !cstate_params.is_empty() {
        out.push(
            Finding::new(
                "cmdline.redundant",
                Severity::Info,
                format!(
                    "cpuidle.off=1 disables the cpuidle drivers, so {} change nothing (harmless)",
                    and_list(&cstate_params)
                ),
            )
            .evidence(
                &c.source,
                format!("cpuidle.off=1 {}", cstate_params.join(" ")),
            ),
        );
    }
    if line.value("intel_idle.max_cstate") == Some("0")
        && !idle_poll
        && !cpuidle_off
        && !value_at_most(c, "processor.max_cstate", 1)
    {
        out.push(
            Finding::new(
                "cmdline.conflict",
                Severity::Warn,
                "intel_idle.max_cstate=0 does not limit C-states: it disables intel_idle, and acpi_idle takes over with the deep C-states the firmware lists",
            )
            .evidence(&c.source, "intel_idle.max_cstate=0")
            .remedy("write intel_idle.max_cstate=1 (C1 only), or add processor.max_cstate=1"),
        );
    }
    if line.contains("nowatchdog") {
        let redundant: Vec<String> = ["nosoftlockup", "nmi_watchdog"]
            .into_iter()
            .filter_map(raw)
            .filter(|p| p != "nmi_watchdog=1")
            .collect();
        if !redundant.is_empty() {
            out.push(
                Finding::new(
                    "cmdline.redundant",
                    Severity::Info,
                    format!(
                        "nowatchdog turns off both lockup detectors, so {} add nothing (harmless)",
                        and_list(&redundant)
                    ),
                )
                .evidence(&c.source, format!("nowatchdog {}", redundant.join(" "))),
            );
        }
    }
    if line.value("tsc") == Some("unstable") && line.value("clocksource") == Some("tsc") {
        out.push(
            Finding::new(
                "cmdline.conflict",
                Severity::Warn,
                "tsc=unstable marks the TSC unusable, so clocksource=tsc cannot be honoured",
            )
            .evidence(&c.source, "tsc=unstable clocksource=tsc")
            .remedy("remove tsc=unstable (or clocksource=tsc, if the TSC really is unstable here)"),
        );
    }
}
