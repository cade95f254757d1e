//! CPU idle states: the enabled states whose exit latency is above [`DEEP_US`], per online
//! CPU (`/sys/devices/system/cpu/cpuN/cpuidle/stateK/`), and the system-wide latency limit
//! some process may hold through `/dev/cpu_dma_latency`.

use std::collections::BTreeMap;

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::facts::{FactResultExt, IdleState};

use crate::cli::audit::context::{Context, cpus_phrase, system_path, unreadable};
use crate::cli::audit::finding::{Finding, Severity};

/// Idle states that take longer than this to leave (µs) are "deep": C1 takes about 1 µs and
/// C1E about 10; C3 and deeper take tens to hundreds.
pub const DEEP_US: u64 = 10;

/// The deep idle states of a CPU: (name, exit latency in µs) of each enabled one.
type DeepStates = Vec<(String, u64)>;

/// What `/dev/cpu_dma_latency` reads when no process holds a request (2000 s, in µs).
const NO_REQUEST: i32 = 2_000_000_000;

/// The latency limit a process holds through `/dev/cpu_dma_latency`, if readable.
fn dma_latency(ctx: &Context) -> Result<i32, rtlat_linux::Error> {
    rtlat_linux::read_dma_latency(ctx.facts.path("dev/cpu_dma_latency"))
}

/// Runs the cpuidle checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let dma = dma_latency(ctx);
    out.extend(states(ctx, dma.as_ref().ok().copied()));
    out.push(dma_finding(dma));
}

fn states(ctx: &Context, dma: Option<i32>) -> Option<Finding> {
    const ID: &str = "cpuidle.states";
    let online = ctx.online.as_ref()?;
    let driver = ctx.facts.cpuidle_driver().optional().ok().flatten();
    let driver_path = system_path("sys/devices/system/cpu/cpuidle/current_driver");
    let mut groups: BTreeMap<DeepStates, (CpuSet, Vec<IdleState>)> = BTreeMap::new();
    for cpu in online {
        match ctx.facts.cpuidle_states(cpu) {
            Ok(states) => {
                let deep: DeepStates = states
                    .iter()
                    .filter(|s| !s.disabled && s.latency_us > DEEP_US)
                    .map(|s| (s.name.clone(), s.latency_us))
                    .collect();
                let entry = groups
                    .entry(deep)
                    .or_insert_with(|| (CpuSet::new(), states));
                let _ = entry.0.insert(cpu);
            }
            Err(e) if e.is_absent() => {}
            Err(e) => return Some(unreadable(ID, &format!("the idle states of CPU {cpu}"), &e)),
        }
    }
    if groups.is_empty() {
        let off_by_cmdline = ctx.cmdline.as_ref().is_some_and(|c| {
            c.running && (c.line.value("idle") == Some("poll") || c.line.contains("cpuidle.off"))
        });
        let finding = Finding::new(
            ID,
            if off_by_cmdline { Severity::Ok } else { Severity::Info },
            "No cpuidle states (cpuidle.off=1, idle=poll, or a kernel without cpuidle): idle CPUs use the default idle loop (HLT or WFI, a shallow state)",
        )
        .evidence(
            system_path(&format!("sys/devices/system/cpu/cpu{}/cpuidle", online.first().unwrap_or(0))),
            "absent",
        );
        return Some(finding);
    }
    // One finding for all CPUs: the worst group decides, each group is evidence.
    let mut worst: Option<(&DeepStates, &CpuSet)> = None;
    let mut evidence = Vec::new();
    for (deep, (cpus, states)) in &groups {
        let listed: Vec<String> = states
            .iter()
            .map(|s| {
                format!(
                    "{} {} µs{}",
                    s.name,
                    s.latency_us,
                    if s.disabled { " (disabled)" } else { "" }
                )
            })
            .collect();
        let first = cpus.first().unwrap_or(0);
        evidence.push((
            system_path(&format!(
                "sys/devices/system/cpu/cpu{first}/cpuidle/state*/{{name,latency,disable}}"
            )),
            format!("CPUs {cpus}: {}", listed.join(", ")),
        ));
        if !deep.is_empty() && worst.is_none_or(|(w, _)| deep.len() > w.len()) {
            worst = Some((deep, cpus));
        }
    }
    let mut finding = match worst {
        None => Finding::new(
            ID,
            Severity::Ok,
            format!("No enabled idle state takes longer than {DEEP_US} µs to leave"),
        ),
        Some((deep, _)) => {
            let deep_cpus = groups
                .iter()
                .filter(|(d, _)| !d.is_empty())
                .fold(CpuSet::new(), |all, (_, (cpus, _))| all.union(cpus));
            let states: Vec<String> = deep.iter().map(|(n, l)| format!("{n} ({l} µs)")).collect();
            let held = dma.filter(|v| (0..=DEEP_US as i32).contains(v));
            let (severity, note) = match held {
                Some(v) => (
                    Severity::Info,
                    format!(
                        "; a process holds /dev/cpu_dma_latency at {v} µs, which keeps them out for now"
                    ),
                ),
                None => (Severity::Warn, String::new()),
            };
            let boot = match driver.as_deref() {
                Some("intel_idle") => "intel_idle.max_cstate=1",
                Some("acpi_idle") => "processor.max_cstate=1",
                _ => "cpuidle.off=1",
            };
            Finding::new(
                ID,
                severity,
                format!(
                    "{} may enter idle states that take longer than {DEEP_US} µs to leave: {}; a wake-up from there adds that to the latency{note}",
                    cpus_phrase(&deep_cpus),
                    states.join(", ")
                ),
            )
            .remedy(format!(
                "add {boot} to the command line; or at run time: cpupower idle-set -D {DEEP_US} (until reboot), or hold /dev/cpu_dma_latency at 0 while the real-time work runs (rtlat run does by default)"
            ))
        }
    };
    for (source, value) in evidence {
        finding = finding.evidence(source, value);
    }
    if let Some(driver) = driver {
        finding = finding.evidence(driver_path, driver);
    }
    Some(finding)
}

fn dma_finding(dma: Result<i32, rtlat_linux::Error>) -> Finding {
    const ID: &str = "cpuidle.dma_latency";
    let source = rtlat_linux::DMA_LATENCY_PATH;
    match dma {
        Ok(value) if (0..=DEEP_US as i32).contains(&value) => Finding::new(
            ID,
            Severity::Ok,
            format!("A process holds /dev/cpu_dma_latency at {value} µs: the CPUs stay out of idle states slower than that while it runs"),
        )
        .evidence(source, format!("{value}")),
        Ok(value) => Finding::new(
            ID,
            Severity::Info,
            format!(
                "No process limits the CPUs' wake-up latency through /dev/cpu_dma_latency (it reads {value} µs{})",
                if value == NO_REQUEST { ", the kernel's value when nobody holds a request" } else { "" }
            ),
        )
        .evidence(source, format!("{value}"))
        .remedy("rtlat run (like cyclictest) holds it at 0 while it measures; a real-time application should do the same: open it, write a 32-bit 0, keep it open"),
        Err(rtlat_linux::Error::DmaLatencyMissing { .. }) => Finding::new(
            ID,
            Severity::Info,
            "/dev/cpu_dma_latency is absent (no PM QoS device, or not in this captured tree), so it was not checked",
        )
        .evidence(source, "absent"),
        Err(e) => Finding::new(
            ID,
            Severity::Info,
            "Could not read /dev/cpu_dma_latency (it is readable by root only), so it was not checked",
        )
        .evidence(source, e.to_string()),
    }
}
