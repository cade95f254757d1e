//! The CPU sets of the command line: consistent among `isolcpus=`, `nohz_full=` and
//! `rcu_nocbs=`, CPUs that exist, CPU 0, a housekeeping CPU left; and, for the running
//! kernel's own line, what it made of them (`/sys/devices/system/cpu/{isolated,nohz_full}`).

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::FactResultExt;

use crate::context::{Cmdline, Context, and_list, cpus_phrase, or_none, unreadable};
use crate::finding::{Finding, Severity};
use crate::isolation::RcuNocbs;
use crate::paths::system_path;

/// Runs the CPU-set checks.
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let Some(c) = &ctx.cmdline else {
        return;
    };
    let isolated = c.isolation.isolated_cpus();
    if !isolated.is_empty() {
        out.extend(not_present(ctx, c, &isolated));
        out.extend(cpu0(ctx, c, &isolated));
        out.extend(housekeeping(ctx, c, &isolated));
        out.extend(sets(c));
    }
    if c.running {
        out.extend(isolated_vs_sysfs(ctx, c));
        out.extend(nohz_full_vs_sysfs(ctx, c));
    }
}

/// The isolation parameters as written, for evidence.
fn written(c: &Cmdline) -> String {
    let iso = &c.isolation;
    [
        iso.isolcpus.as_ref().map(|p| p.param.raw()),
        iso.nohz_full.as_ref().map(|p| p.param.raw()),
        iso.rcu_nocbs.as_ref().map(|p| p.param.raw()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
}

fn not_present(ctx: &Context, c: &Cmdline, isolated: &CpuSet) -> Option<Finding> {
    let possible = ctx.possible.as_ref()?;
    let missing = isolated.difference(possible);
    if missing.is_empty() {
        return None;
    }
    let present = isolated.intersection(possible);
    Some(
        Finding::new(
            "cpus.not_present",
            Severity::Warn,
            format!(
                "The command line names {} that this machine does not have: current kernels refuse such a CPU list whole ('incorrect CPU range') and isolate nothing from it; older ones drop those CPUs",
                cpus_phrase(&missing)
            ),
        )
        .evidence(&c.source, written(c))
        .evidence(system_path("sys/devices/system/cpu/possible"), possible.to_string())
        .remedy(if present.is_empty() {
            format!("name CPUs of this machine ({possible})")
        } else {
            format!("name only CPUs of this machine: {present}")
        }),
    )
}

fn cpu0(ctx: &Context, c: &Cmdline, isolated: &CpuSet) -> Option<Finding> {
    if !isolated.contains(0) {
        return None;
    }
    let mut others = isolated.clone();
    others.remove(0);
    if let Some(possible) = &ctx.possible {
        others = others.intersection(possible);
    }
    let remedy = if others.is_empty() {
        "isolate another CPU and leave CPU 0 to housekeeping".to_owned()
    } else {
        format!(
            "leave CPU 0 to housekeeping: rtlat audit --suggest --isolate {others} writes the line"
        )
    };
    Some(
        Finding::new(
            "cpus.cpu0",
            Severity::Warn,
            "CPU 0 is isolated: it is the boot CPU, which keeps the timekeeping duty (x86 kernels drop it from nohz_full) and takes legacy interrupts that cannot be moved (timer, ACPI); keep it for housekeeping",
        )
        .evidence(&c.source, written(c))
        .remedy(remedy),
    )
}

fn housekeeping(ctx: &Context, c: &Cmdline, isolated: &CpuSet) -> Option<Finding> {
    let online = ctx.online.as_ref()?;
    let left = online.difference(isolated);
    let finding = if left.is_empty() {
        let mut keep = online.intersection(isolated);
        keep.remove(0);
        let remedy = if keep.is_empty() {
            "remove isolcpus= and nohz_full=: this machine has a single CPU".to_owned()
        } else {
            format!(
                "leave at least one CPU (CPU 0) to housekeeping: rtlat audit --suggest --isolate {keep} writes the line"
            )
        };
        Finding::new(
            "cpus.housekeeping",
            Severity::Fail,
            format!(
                "No housekeeping CPU is left: the command line isolates every online CPU ({online}); the kernel then keeps the boot CPU anyway ('Housekeeping: must include one present CPU') and everything else crowds onto it"
            ),
        )
        .remedy(remedy)
    } else {
        Finding::new(
            "cpus.housekeeping",
            Severity::Ok,
            format!(
                "Left for housekeeping (the operating system, interrupts, kernel threads): {}",
                cpus_phrase(&left)
            ),
        )
    };
    Some(finding.evidence(&c.source, written(c)).evidence(
        system_path("sys/devices/system/cpu/online"),
        online.to_string(),
    ))
}

fn sets(c: &Cmdline) -> Option<Finding> {
    const ID: &str = "cpus.isolation_sets";
    let iso = &c.isolation;
    let isolcpus = iso.isolcpus.as_ref().and_then(|p| {
        let value = p.value.as_ref().ok()?;
        Some((&p.param, value))
    });
    let nohz_full = iso
        .nohz_full
        .as_ref()
        .and_then(|p| Some((&p.param, p.value.as_ref().ok()?)));

    // isolcpus=nohz,… and nohz_full= set the same housekeeping type: the second must match.
    if let (Some((iso_param, isolcpus)), Some((nohz_param, nohz_cpus))) = (isolcpus, nohz_full)
        && isolcpus.flags.nohz
        && isolcpus.cpus != *nohz_cpus
    {
        let params = c.line.params();
        let position = |p| params.iter().position(|q| q == p);
        let second = if position(iso_param) > position(nohz_param) {
            iso_param
        } else {
            nohz_param
        };
        return Some(
            Finding::new(
                ID,
                Severity::Fail,
                format!(
                    "isolcpus=nohz,… and nohz_full= name different CPUs: the kernel ignores the second one, `{second}` ('Housekeeping: nohz_full= must match isolcpus=')"
                ),
            )
            .evidence(&c.source, written(c))
            .remedy("name the same CPUs in both, or drop the nohz flag from isolcpus= (nohz_full= does the same)"),
        );
    }

    let mut named: Vec<(&str, CpuSet)> = Vec::new();
    if let Some((_, isolcpus)) = isolcpus {
        named.push(("isolcpus", isolcpus.cpus.clone()));
    }
    if let Some((_, cpus)) = nohz_full {
        named.push(("nohz_full", cpus.clone()));
    }
    if let Some(Ok(RcuNocbs::Cpus(cpus))) = iso.rcu_nocbs.as_ref().map(|p| &p.value) {
        named.push(("rcu_nocbs", cpus.clone()));
    }
    if named.len() < 2 {
        return None;
    }
    let (first_name, first) = &named[0];
    if named.iter().all(|(_, set)| set == first) {
        let names: Vec<&str> = named.iter().map(|(n, _)| *n).collect();
        return Some(
            Finding::new(
                ID,
                Severity::Ok,
                format!("{} name the same CPUs ({first})", and_list(&names)),
            )
            .evidence(&c.source, written(c)),
        );
    }
    let mut differences = Vec::new();
    for (name, set) in &named[1..] {
        let extra = set.difference(first);
        let missing = first.difference(set);
        if !extra.is_empty() {
            differences.push(format!(
                "{name} adds {} that {first_name} does not name",
                cpus_phrase(&extra)
            ));
        }
        if !missing.is_empty() {
            differences.push(format!(
                "{name} leaves out {} of {first_name}",
                cpus_phrase(&missing)
            ));
        }
    }
    let target = first.to_string();
    Some(
        Finding::new(
            ID,
            Severity::Warn,
            format!(
                "The isolation parameters name different CPUs: {}; a CPU isolated by one but not the others keeps some of the noise",
                differences.join("; ")
            ),
        )
        .evidence(&c.source, written(c))
        .remedy(format!(
            "name the same CPUs in all of them, e.g. isolcpus=managed_irq,domain,{target} nohz_full={target} rcu_nocbs={target}"
        )),
    )
}

fn isolated_vs_sysfs(ctx: &Context, c: &Cmdline) -> Option<Finding> {
    const ID: &str = "cpus.isolated_mismatch";
    let path = system_path("sys/devices/system/cpu/isolated");
    let running = match ctx.facts.isolated_cpus().optional() {
        Ok(Some(set)) => set,
        Ok(None) => return None,
        Err(e) => return Some(unreadable(ID, &path, &e)),
    };
    let asked = c.isolation.domain_cpus();
    if running.is_empty() && asked.is_empty() {
        return None;
    }
    let finding = if running == asked {
        Finding::new(
            ID,
            Severity::Ok,
            format!(
                "The running kernel isolates what its command line asks: {}",
                cpus_phrase(&running)
            ),
        )
    } else {
        Finding::new(
            ID,
            Severity::Warn,
            format!(
                "The running kernel isolates {} from load balancing, but its command line asks for {}: a CPU list it refused, CPUs it does not have, a repeated isolcpus= it ignored, or a cpuset partition made at run time",
                or_none(&running),
                or_none(&asked)
            ),
        )
        .remedy("see dmesg | grep -i -e housekeeping -e isolcpus, and fix the line (rtlat audit --suggest --isolate CPUS writes one)")
    };
    Some(
        finding
            .evidence(path, or_none(&running))
            .evidence(&c.source, written(c)),
    )
}

fn nohz_full_vs_sysfs(ctx: &Context, c: &Cmdline) -> Option<Finding> {
    const ID: &str = "cpus.nohz_full_mismatch";
    let path = system_path("sys/devices/system/cpu/nohz_full");
    let asked = c.isolation.tickless_cpus();
    let running = match ctx.facts.nohz_full_cpus().optional() {
        Ok(Some(set)) => set,
        Ok(None) if asked.is_empty() => return None,
        Ok(None) => {
            return Some(
                Finding::new(
                    ID,
                    Severity::Warn,
                    "The command line asks for tickless CPUs, but this kernel has no nohz_full file: built without CONFIG_NO_HZ_FULL, it ignores nohz_full=",
                )
                .evidence(path, "absent")
                .evidence(&c.source, written(c))
                .remedy("use a kernel built with CONFIG_NO_HZ_FULL=y"),
            );
        }
        Err(e) => return Some(unreadable(ID, &path, &e)),
    };
    if running.is_empty() && asked.is_empty() {
        return None;
    }
    let finding = if running == asked {
        Finding::new(
            ID,
            Severity::Ok,
            format!(
                "The running kernel's tickless CPUs are what its command line asks: {}",
                cpus_phrase(&running)
            ),
        )
    } else if asked.difference(&running).iter().eq([0]) && running.is_subset(&asked) {
        Finding::new(
            ID,
            Severity::Info,
            "The kernel dropped the boot CPU (CPU 0) from nohz_full: it keeps the timekeeping duty",
        )
    } else {
        Finding::new(
            ID,
            Severity::Warn,
            format!(
                "The running kernel's tickless CPUs are {}, but its command line asks for {}: a CPU list it refused, or a nohz_full= that did not match isolcpus=nohz",
                or_none(&running),
                or_none(&asked)
            ),
        )
        .remedy("see dmesg | grep -i -e housekeeping -e nohz, and fix the line")
    };
    Some(
        finding
            .evidence(path, or_none(&running))
            .evidence(&c.source, written(c)),
    )
}
