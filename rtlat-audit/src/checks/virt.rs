//! A virtual machine: that it is one (`vm.guest`), what only its host can do for its
//! latency, and how much CPU time the host has taken from it since boot (`vm.steal`, from
//! `/proc/stat`).

use rtlat_system::facts::{CpuTimes, FactResultExt};

use crate::context::{Context, unreadable};
use crate::finding::{Finding, Severity};
use crate::guest::Guest;
use crate::paths::system_path;

/// Clock ticks per second in `/proc/stat` (`USER_HZ`: 100 on every architecture Linux
/// exports it for).
const USER_HZ: f64 = 100.0;

/// Steal time above this share of all CPU time (percent) means the host runs other work on
/// this guest's CPUs routinely: `fail`. Any steal at all is `warn`.
const STEAL_FAIL_PERCENT: f64 = 1.0;

/// Runs the virtual-machine checks (nothing on bare metal).
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let Some(guest) = &ctx.guest else {
        return;
    };
    let steal = steal(ctx);
    let mut finding = guest_finding(guest);
    // The steal time so far belongs with the VM too: its own finding rates it.
    if let Some(steal) = steal.as_ref().filter(|f| f.id == "vm.steal") {
        for e in steal
            .evidence
            .iter()
            .filter(|e| e.source == system_path("proc/stat"))
        {
            finding = finding.evidence(&e.source, &e.value);
        }
    }
    out.push(finding);
    out.extend(steal);
}

/// What to do on the host, in the hypervisor's words where they differ.
fn host_remedy(guest: &Guest) -> String {
    let pin = if guest.is_kvm() {
        "pin each vCPU thread to a host CPU of its own and run it SCHED_FIFO (on the host, rtlat threads --name qemu-system lists QEMU's `CPU N/KVM` threads, rtlat threads --name fc_vcpu Firecracker's; then rtlat threads --tid TID --set fifo:95 --pin CPU --apply)"
    } else {
        match guest.hypervisor {
            Some("Xen") => {
                "pin each vCPU to a physical CPU of its own (xl vcpu-pin) in a cpupool with the null or RTDS scheduler"
            }
            Some("VMware") => {
                "reserve all of the VM's CPU and memory and set its Latency Sensitivity to High (each vCPU then gets a physical CPU of its own)"
            }
            Some("Hyper-V") => {
                "reserve 100 % of the VM's processors and keep other VMs off their cores (Hyper-V has no real-time priority for vCPUs)"
            }
            _ => "pin each vCPU to a physical CPU of its own and give it real-time priority",
        }
    };
    let mut remedy = format!("on the host: {pin}");
    remedy.push_str("; isolate those host CPUs from the host's own work (isolcpus=, nohz_full=, rcu_nocbs= on the host's command line, its IRQs moved away)");
    if guest.is_kvm() {
        remedy.push_str("; keep halt polling enabled on the host (/sys/module/kvm/parameters/halt_poll_ns, 200000 ns by default, 0 is off: a vCPU woken within that time after it halts is woken from a poll, not by the host scheduler)");
    }
    remedy.push_str("; give the guest no more vCPUs than host CPUs reserved for it (no overcommit); then measure in the guest with rtlat run and check that the steal time stays still; the time the host and its hypervisor take from a vCPU, which no setting in the guest removes, is what rtlat hwnoise measures");
    remedy
}

fn guest_finding(guest: &Guest) -> Finding {
    let mut finding = Finding::new(
        "vm.guest",
        Severity::Warn,
        format!(
            "This is a virtual machine ({}): its latency depends on the host. A vCPU runs only when the host schedules its thread, anything the host runs on that CPU delays it, and no setting inside the guest can bound that",
            guest.description()
        ),
    )
    .remedy(host_remedy(guest));
    for (source, value) in &guest.evidence {
        finding = finding.evidence(source, value);
    }
    finding
}

/// `part` as a percentage of `whole`.
fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// `0.11 %`, with more digits for small shares.
fn share(part: u64, whole: u64) -> String {
    let p = percent(part, whole);
    if part > 0 && p < 0.01 {
        "< 0.01 %".to_owned()
    } else {
        format!("{p:.2} %")
    }
}

fn steal(ctx: &Context) -> Option<Finding> {
    const ID: &str = "vm.steal";
    let times = match ctx.facts.cpu_times().optional() {
        Ok(Some(times)) => times,
        Ok(None) => return None,
        Err(e) => return Some(unreadable(ID, &system_path("proc/stat"), &e)),
    };
    let CpuTimes { steal, .. } = times.all;
    let total = times.all.total();
    let per_cpu: Vec<String> = times
        .per_cpu
        .iter()
        .map(|(cpu, t)| format!("cpu{cpu} {} ({})", t.steal, share(t.steal, t.total())))
        .collect();
    let evidence = format!(
        "cpu steal {steal} of {total} ticks ({}) since boot; {}",
        share(steal, total),
        per_cpu.join(", ")
    );
    let finding = if steal == 0 {
        Finding::new(
            ID,
            Severity::Ok,
            "No steal time since boot: the host has never kept a runnable vCPU of this guest waiting",
        )
    } else {
        let severity = if percent(steal, total) >= STEAL_FAIL_PERCENT {
            Severity::Fail
        } else {
            Severity::Warn
        };
        let worst = times
            .per_cpu
            .iter()
            .max_by(|a, b| {
                percent(a.1.steal, a.1.total()).total_cmp(&percent(b.1.steal, b.1.total()))
            })
            .map(|(cpu, t)| format!("; most on CPU {cpu}, {}", share(t.steal, t.total())))
            .unwrap_or_default();
        Finding::new(
            ID,
            severity,
            format!(
                "The host has taken {:.2} s of CPU time from this guest since boot (steal time, {} of all CPU time{worst}): each time, a runnable vCPU waited while the host ran something else, a delay the guest cannot prevent",
                steal as f64 / USER_HZ,
                share(steal, total)
            ),
        )
        .remedy("on the host: give each vCPU a host CPU that runs nothing else (see vm.guest); to see the steal time of one measurement, compare the steal column of /proc/stat (or top's st) before and after rtlat run")
    };
    Some(finding.evidence(system_path("proc/stat"), evidence))
}
