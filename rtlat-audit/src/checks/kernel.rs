//! The kernel: PREEMPT_RT or not (and how to get one), and the clocksource.

use rtlat_system::facts::{FactResultExt, PreemptModel};

use crate::context::{Context, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// Runs the kernel checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    out.push(preempt_rt(ctx));
    out.extend(clocksource(ctx));
}

fn model_phrase(model: PreemptModel) -> &'static str {
    match model {
        PreemptModel::Rt => "PREEMPT_RT",
        PreemptModel::Dynamic => "PREEMPT_DYNAMIC, preemption model chosen at boot",
        PreemptModel::Lazy => "PREEMPT_LAZY",
        PreemptModel::Preempt => "PREEMPT, the low-latency desktop model",
        PreemptModel::NotShown => "no preemption flag: PREEMPT_NONE or PREEMPT_VOLUNTARY",
    }
}

/// How to get a PREEMPT_RT kernel, from the release's distribution flavour
/// (`6.1.0-18-amd64` is Debian's, `6.8.0-45-generic` Ubuntu's, `…el9…` RHEL's).
pub fn how_to_get_rt(release: Option<&str>, model: PreemptModel) -> String {
    let release = release.unwrap_or("");
    let debian_arch = ["amd64", "arm64", "686-pae", "armmp"]
        .into_iter()
        .find(|arch| release.ends_with(&format!("-{arch}")));
    let mut remedy = if let Some(arch) = debian_arch {
        format!(
            "install Debian's PREEMPT_RT kernel: apt install linux-image-rt-{arch}, then reboot into it"
        )
    } else if release.contains("-generic") || release.contains("-lowlatency") {
        "install Ubuntu's real-time kernel: pro attach, then pro enable realtime-kernel (Ubuntu Pro, free for personal use), then reboot into it".to_owned()
    } else if release.contains(".el") {
        "install the kernel-rt package: enable the distribution's RT repository, dnf install kernel-rt, then reboot into it".to_owned()
    } else {
        "install a PREEMPT_RT kernel (Debian: apt install linux-image-rt-amd64; Ubuntu: pro enable realtime-kernel; RHEL and clones: dnf install kernel-rt from the RT repository) or build Linux 6.12 or later with CONFIG_PREEMPT_RT=y, then reboot into it".to_owned()
    };
    if model == PreemptModel::Dynamic {
        remedy.push_str(
            "; until then, preempt=full on the command line gives the lowest latency this kernel can",
        );
    }
    remedy
}

fn preempt_rt(ctx: &Context) -> Finding {
    const ID: &str = "kernel.preempt_rt";
    let rt = match ctx.facts.preempt_rt() {
        Ok(rt) => rt,
        Err(e) => {
            let mut finding = unreadable(ID, "/proc/sys/kernel/version", &e);
            finding.severity = Severity::Warn;
            return finding;
        }
    };
    let release = ctx.facts.os_release().ok();
    let realtime = match rt.realtime_file {
        Some(true) => "1".to_owned(),
        Some(false) => "0".to_owned(),
        None => "absent".to_owned(),
    };
    let finding = if rt.is_rt() {
        Finding::new(
            ID,
            Severity::Ok,
            "The kernel is PREEMPT_RT: fully preemptible, interrupt handlers in threads",
        )
    } else {
        Finding::new(
            ID,
            Severity::Fail,
            format!(
                "The kernel is not PREEMPT_RT ({}): its wake-up latency has no bound, and reaches milliseconds under load",
                model_phrase(rt.model)
            ),
        )
        .remedy(how_to_get_rt(release.as_deref(), rt.model))
    };
    let mut finding = finding
        .evidence(system_path("sys/kernel/realtime"), realtime)
        .evidence(system_path("proc/sys/kernel/version"), rt.version);
    if let Some(release) = release {
        finding = finding.evidence(system_path("proc/sys/kernel/osrelease"), release);
    }
    finding
}

fn clocksource(ctx: &Context) -> Option<Finding> {
    const ID: &str = "kernel.clocksource";
    let path = system_path("sys/devices/system/clocksource/clocksource0/current_clocksource");
    let current = match ctx.facts.current_clocksource() {
        Ok(current) => current,
        Err(e) => return Some(unreadable(ID, "the current clocksource", &e)),
    };
    let available = ctx
        .facts
        .available_clocksources()
        .optional()
        .ok()
        .flatten()
        .unwrap_or_default();
    let finding = match current.as_str() {
        "tsc" | "arch_sys_counter" => Finding::new(
            ID,
            Severity::Ok,
            format!("The clocksource is {current}: reading the time costs tens of nanoseconds"),
        ),
        "hpet" | "acpi_pm" => {
            let finding = Finding::new(
                ID,
                Severity::Warn,
                format!(
                    "The clocksource is {current}: every clock read goes to a device and costs about a microsecond ({}), on every timestamp and timer",
                    if current == "hpet" {
                        "hpet"
                    } else {
                        "acpi_pm: several"
                    }
                ),
            );
            if available.iter().any(|c| c == "tsc") {
                finding.remedy(
                    "boot with clocksource=tsc; if the kernel marked the TSC unstable, dmesg | grep -i tsc says why (fix the cause, e.g. BIOS power settings, rather than forcing tsc=reliable)",
                )
            } else {
                finding.remedy(format!(
                    "none: this machine offers no faster clocksource ({})",
                    available.join(" ")
                ))
            }
        }
        _ => Finding::new(
            ID,
            Severity::Info,
            format!("The clocksource is {current} (paravirtual or architecture-specific)"),
        ),
    };
    let mut finding = finding.evidence(path, current);
    if !available.is_empty() {
        finding = finding.evidence(
            system_path("sys/devices/system/clocksource/clocksource0/available_clocksource"),
            available.join(" "),
        );
    }
    Some(finding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_to_get_rt_follows_the_distribution() {
        let debian = how_to_get_rt(Some("6.1.0-18-amd64"), PreemptModel::Dynamic);
        assert!(
            debian.contains("apt install linux-image-rt-amd64"),
            "{debian}"
        );
        assert!(debian.contains("preempt=full"), "{debian}");
        let arm = how_to_get_rt(Some("6.1.0-18-arm64"), PreemptModel::NotShown);
        assert!(arm.contains("linux-image-rt-arm64") && !arm.contains("preempt=full"));
        let ubuntu = how_to_get_rt(Some("6.8.0-45-generic"), PreemptModel::Dynamic);
        assert!(ubuntu.contains("pro enable realtime-kernel"), "{ubuntu}");
        let rhel = how_to_get_rt(Some("5.14.0-427.el9.x86_64"), PreemptModel::Dynamic);
        assert!(rhel.contains("dnf install kernel-rt"), "{rhel}");
        let other = how_to_get_rt(Some("6.18.44-fc-v857"), PreemptModel::Dynamic);
        assert!(other.contains("CONFIG_PREEMPT_RT=y") && other.contains("linux-image-rt-amd64"));
        assert!(how_to_get_rt(None, PreemptModel::NotShown).contains("reboot"));
    }
}
