//! CPU idle states: the enabled states whose exit latency is above [`DEEP_US`], per online
//! CPU (`/sys/devices/system/cpu/cpuN/cpuidle/stateK/`), and the system-wide latency limit
//! some process may hold through `/dev/cpu_dma_latency`.

use std::collections::BTreeMap;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::{FactResultExt, IdleState};

use crate::context::{Context, and_list, cpus_phrase, unreadable};
use crate::finding::{Finding, Severity};
use crate::guest::Guest;
use crate::paths::system_path;

/// Idle states that take longer than this to leave (µs) are "deep": C1 takes about 1 µs and
/// C1E about 10; C3 and deeper take tens to hundreds.
pub const DEEP_US: u64 = 10;

/// The deep idle states of a CPU: (name, exit latency in µs) of each enabled one.
type DeepStates = Vec<(String, u64)>;

/// What `/dev/cpu_dma_latency` reads when no process holds a request (2000 s, in µs).
const NO_REQUEST: i32 = 2_000_000_000;

/// The latency limit a process holds through `/dev/cpu_dma_latency`, if readable.
fn dma_latency(ctx: &Context) -> Result<i32, rtlat_linux::DmaLatencyError> {
    rtlat_linux::read_dma_latency(ctx.facts.path("dev/cpu_dma_latency"))
}

/// Runs the cpuidle checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let dma = dma_latency(ctx);
    out.extend(states(ctx, dma.as_ref().ok().copied()));
    out.push(dma_finding(ctx, dma));
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
    if let Some(guest) = &ctx.guest {
        return Some(guest_states(ctx, guest, driver, &groups));
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

/// In a virtual machine, HLT is no shallow idle state: it exits to the host. What the guest
/// does when idle, and what shortens the wake-up.
fn guest_states(
    ctx: &Context,
    guest: &Guest,
    driver: Option<String>,
    groups: &BTreeMap<DeepStates, (CpuSet, Vec<IdleState>)>,
) -> Finding {
    const ID: &str = "cpuidle.states";
    const HLT_EXITS: &str = "HLT, which in a virtual machine is not a shallow idle state: it exits to the host, the vCPU thread sleeps there, and a wake-up waits until the host runs it again (tens of µs, more on a busy host";
    let polls = ctx
        .cmdline
        .as_ref()
        .is_some_and(|c| c.running && c.line.last("idle").and_then(|p| p.value()) == Some("poll"));
    let poll_ns = ctx.facts.guest_halt_poll_ns().ok();
    let finding = if polls {
        Finding::new(
            ID,
            Severity::Ok,
            "idle=poll: idle vCPUs spin in the guest and never execute HLT, so no wake-up waits on the host (each vCPU keeps its host CPU busy)",
        )
    } else if driver.as_deref() == Some("haltpoll") {
        let limit = poll_ns.map_or_else(String::new, |ns| {
            format!(", up to guest_halt_poll_ns = {ns} ns")
        });
        Finding::new(
            ID,
            Severity::Info,
            format!(
                "Idle vCPUs first poll in the guest (cpuidle-haltpoll{limit}, adapted to recent idle times; it turns the host's halt polling off for this guest); a vCPU idle for longer executes {HLT_EXITS})"
            ),
        )
        .remedy("if each vCPU has a host CPU of its own: idle=poll on the guest's command line (it never halts); otherwise a longer poll: echo NS > /sys/module/haltpoll/parameters/guest_halt_poll_ns")
    } else {
        let remedy = if guest.is_kvm() {
            "in the guest: cpuidle_haltpoll.force=1 on the command line (the cpuidle-haltpoll driver and haltpoll governor poll before halting; the kernel loads them by itself only when the host declares dedicated CPUs), or idle=poll if each vCPU has a host CPU of its own (it never halts); on the host: halt polling, /sys/module/kvm/parameters/halt_poll_ns"
        } else {
            "in the guest: idle=poll on the command line if each vCPU has a host CPU of its own (it never halts)"
        };
        Finding::new(
            ID,
            Severity::Warn,
            format!(
                "Idle vCPUs execute {HLT_EXITS}; the host's halt polling, halt_poll_ns, shortens it){}",
                match driver.as_deref() {
                    None | Some("none") => String::new(),
                    Some(d) => format!("; {d}'s states only add to that"),
                }
            ),
        )
        .remedy(remedy)
    };
    let mut finding = finding;
    if groups.is_empty() {
        let first = ctx.online.as_ref().and_then(CpuSet::first).unwrap_or(0);
        finding = finding.evidence(
            system_path(&format!("sys/devices/system/cpu/cpu{first}/cpuidle")),
            "absent",
        );
    }
    for (cpus, states) in groups.values() {
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
        finding = finding.evidence(
            system_path(&format!(
                "sys/devices/system/cpu/cpu{first}/cpuidle/state*/{{name,latency,disable}}"
            )),
            format!("CPUs {cpus}: {}", listed.join(", ")),
        );
    }
    if let Some(driver) = driver {
        finding = finding.evidence(
            system_path("sys/devices/system/cpu/cpuidle/current_driver"),
            driver,
        );
    }
    if let Some(ns) = poll_ns {
        finding = finding.evidence(
            system_path("sys/module/haltpoll/parameters/guest_halt_poll_ns"),
            ns.to_string(),
        );
    }
    for (source, value) in &guest.evidence {
        finding = finding.evidence(source, value);
    }
    finding
}

/// Programs that hold `/dev/cpu_dma_latency` only while they measure.
const MEASURING_TOOLS: [&str; 3] = ["cyclictest", "rtlat", "latency"];

/// The processes holding `/dev/cpu_dma_latency` open, as `name (PID n)`, and the evidence of
/// the search.
fn dma_holders(ctx: &Context) -> (Vec<(u32, String)>, String) {
    match ctx.facts.holders_of(rtlat_linux::DMA_LATENCY_PATH) {
        Ok(holders) => {
            let named: Vec<(u32, String)> = holders
                .pids
                .iter()
                .map(|&pid| {
                    let comm = ctx
                        .facts
                        .process_stat(pid)
                        .map_or_else(|_| "?".to_owned(), |s| s.comm);
                    (pid, comm)
                })
                .collect();
            let found = if named.is_empty() {
                "no process has it open".to_owned()
            } else {
                let list: Vec<String> = named
                    .iter()
                    .map(|(pid, comm)| format!("{comm} (PID {pid})"))
                    .collect();
                format!("open in {}", and_list(&list))
            };
            let unreadable = if holders.unreadable > 0 {
                format!(
                    "; {} of {} processes could not be searched (run as root)",
                    holders.unreadable, holders.searched
                )
            } else {
                String::new()
            };
            (named, format!("{found}{unreadable}"))
        }
        Err(e) => (Vec::new(), format!("could not be searched: {e}")),
    }
}

fn dma_finding(ctx: &Context, dma: Result<i32, rtlat_linux::DmaLatencyError>) -> Finding {
    const ID: &str = "cpuidle.dma_latency";
    let source = rtlat_linux::DMA_LATENCY_PATH;
    let fd_source = "/proc/*/fd/* -> /dev/cpu_dma_latency";
    match dma {
        Ok(value) if (0..=DEEP_US as i32).contains(&value) => {
            let (holders, searched) = dma_holders(ctx);
            let finding = if holders.is_empty() {
                Finding::new(
                    ID,
                    Severity::Info,
                    format!("Some process holds /dev/cpu_dma_latency at {value} µs, but none was found holding it open: the CPUs stay out of idle states slower than that only while that process keeps it open"),
                )
                .remedy("the real-time application should hold it itself: open it, write a 32-bit 0, keep it open while it runs")
            } else {
                let names: Vec<String> = holders.iter().map(|(pid, comm)| format!("{comm} (PID {pid})")).collect();
                let (holds, keeps) = if holders.len() == 1 { ("holds", "it keeps") } else { ("hold", "they keep") };
                let title = format!(
                    "{} {holds} /dev/cpu_dma_latency at {value} µs: the CPUs stay out of idle states slower than that only while {keeps} it open",
                    and_list(&names)
                );
                if holders.iter().all(|(_, comm)| MEASURING_TOOLS.contains(&comm.as_str())) {
                    Finding::new(ID, Severity::Info, format!("{title}; a measurement holds it, and the limit goes when the measurement ends"))
                        .remedy("the real-time application should hold it itself: open it, write a 32-bit 0, keep it open while it runs")
                } else {
                    Finding::new(ID, Severity::Ok, title)
                }
            };
            finding.evidence(source, format!("{value}")).evidence(fd_source, searched)
        }
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
        Err(rtlat_linux::DmaLatencyError::Missing { .. }) => Finding::new(
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
