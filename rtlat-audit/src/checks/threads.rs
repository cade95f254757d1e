//! Threads on the isolated CPUs (`/proc/PID/task/TID/{stat,status}`): per-CPU kernel threads
//! bound there (expected), other kernel threads allowed there, real-time threads pinned there
//! (the point of isolating), and other user threads whose affinity reaches them.

use rtlat_linux::thread::Policy;
use rtlat_system::facts::{ThreadInfo, format_cpu_mask};

use crate::context::{Context, cpus_phrase, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// The most threads listed as evidence in one finding.
const MAX_LISTED: usize = 16;
/// The most thread names in a title.
const MAX_NAMED: usize = 5;
/// `SCHED_DEADLINE`, which [`Policy`] does not model.
const SCHED_DEADLINE: u32 = 6;

fn policy_name(thread: &ThreadInfo) -> String {
    let stat = &thread.stat;
    match i32::try_from(stat.policy).ok().and_then(Policy::from_raw) {
        Some(policy) if policy.is_realtime() => {
            format!("{} {}", policy.sched_name(), stat.rt_priority)
        }
        Some(policy) => policy.sched_name().to_owned(),
        None if stat.policy == SCHED_DEADLINE => "SCHED_DEADLINE".to_owned(),
        None => format!("policy {}", stat.policy),
    }
}

fn is_real_time(thread: &ThreadInfo) -> bool {
    thread.stat.is_real_time() || thread.stat.policy == SCHED_DEADLINE
}

fn describe(thread: &ThreadInfo) -> (String, String) {
    let source = system_path(&format!("proc/{}/task/{}/stat", thread.pid, thread.tid));
    let value = format!(
        "{}, {}, CPUs {}, last ran on CPU {}",
        thread.name(),
        policy_name(thread),
        thread.cpus_allowed,
        thread.stat.processor
    );
    (source, value)
}

fn names(threads: &[&ThreadInfo]) -> String {
    let mut names: Vec<String> = threads
        .iter()
        .take(MAX_NAMED)
        .map(|t| format!("{} ({})", t.name(), t.tid))
        .collect();
    if threads.len() > MAX_NAMED {
        names.push(format!("and {} more", threads.len() - MAX_NAMED));
    }
    names.join(", ")
}

fn with_threads(mut finding: Finding, threads: &[&ThreadInfo]) -> Finding {
    for thread in threads.iter().take(MAX_LISTED) {
        let (source, value) = describe(thread);
        finding = finding.evidence(source, value);
    }
    if threads.len() > MAX_LISTED {
        finding = finding.evidence(
            "/proc",
            format!("… and {} more threads", threads.len() - MAX_LISTED),
        );
    }
    finding
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// What moves unbound kernel threads off the isolated CPUs. A running thread is moved with
/// `taskset`, whatever the command line (not `kthreadd` first: a new kernel thread does not
/// keep kthreadd's CPUs, `kthread()` resets it to the housekeeping CPUs of
/// `HK_TYPE_KTHREAD`). Those CPUs are the housekeeping ones only with `nohz_full=` on the
/// command line (`isolcpus=` without it leaves them every CPU), so the remedy adds
/// `nohz_full=` only where the line lacks it. Unbound workqueue workers (`kworker/u*`) refuse
/// `taskset` (`PF_NO_SETAFFINITY`) and follow the workqueue cpumask; threaded interrupt
/// handlers (`irq/*`) follow their interrupt's affinity.
fn kernel_unbound_remedy(ctx: &Context, threads: &[&ThreadInfo]) -> String {
    let housekeeping = ctx.housekeeping_list();
    let isolated = &ctx.isolated;
    let nohz_full = ctx
        .cmdline
        .as_ref()
        .and_then(|c| c.isolation.nohz_full_cpus())
        .filter(|cpus| isolated.is_subset(cpus));
    let mut remedy = format!("move the running ones: taskset -pc {housekeeping} PID");
    if threads.iter().any(|t| t.name().starts_with("kworker/u")) {
        let mask = format_cpu_mask(&ctx.housekeeping().unwrap_or_default());
        remedy.push_str(&format!(
            "; kworker/u* threads refuse taskset: echo {mask} > /sys/devices/virtual/workqueue/cpumask"
        ));
    }
    if threads.iter().any(|t| t.name().starts_with("irq/")) {
        remedy.push_str(&format!(
            "; irq/N-* threads follow their interrupt: echo {housekeeping} > /proc/irq/N/smp_affinity_list"
        ));
    }
    match nohz_full {
        Some(cpus) => remedy.push_str(&format!(
            "; new kernel threads already start on the housekeeping CPUs (nohz_full={cpus} is on the command line)"
        )),
        None => remedy.push_str(&format!(
            "; new kernel threads may start on the isolated CPUs until nohz_full={isolated} is on the kernel command line (isolcpus= alone does not keep them off)"
        )),
    }
    remedy
}

/// Runs the thread checks (nothing to check without isolated CPUs).
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let isolated = &ctx.isolated;
    if isolated.is_empty() {
        return;
    }
    let threads = match ctx.facts.all_threads() {
        Ok(threads) => threads,
        Err(e) => {
            out.push(unreadable("threads.on_isolated", "/proc", &e));
            return;
        }
    };
    let housekeeping = ctx.housekeeping_list();
    let reaches = |t: &ThreadInfo| !t.cpus_allowed.intersection(isolated).is_empty();
    let inside = |t: &ThreadInfo| t.cpus_allowed.is_subset(isolated);
    let per_cpu: Vec<&ThreadInfo> = threads
        .iter()
        .filter(|t| t.is_kernel_thread() && t.cpus_allowed.len() == 1 && inside(t))
        .collect();
    let kernel_unbound: Vec<&ThreadInfo> = threads
        .iter()
        .filter(|t| t.is_kernel_thread() && reaches(t) && !(t.cpus_allowed.len() == 1 && inside(t)))
        .collect();
    let user = |t: &&ThreadInfo| !t.is_kernel_thread() && reaches(t);
    let rt_pinned: Vec<&ThreadInfo> = threads
        .iter()
        .filter(user)
        .filter(|t| inside(t) && is_real_time(t))
        .collect();
    let other_pinned: Vec<&ThreadInfo> = threads
        .iter()
        .filter(user)
        .filter(|t| inside(t) && !is_real_time(t))
        .collect();
    let spanning: Vec<&ThreadInfo> = threads.iter().filter(user).filter(|t| !inside(t)).collect();
    let on = cpus_phrase(isolated);

    if !per_cpu.is_empty() {
        out.push(with_threads(
            Finding::new(
                "threads.kernel_per_cpu",
                Severity::Ok,
                format!(
                    "{} bound to the isolated {on}, as expected (every CPU has its own): {}",
                    plural(
                        per_cpu.len(),
                        "per-CPU kernel thread is",
                        "per-CPU kernel threads are"
                    ),
                    names(&per_cpu)
                ),
            ),
            &per_cpu,
        ));
    }
    if !kernel_unbound.is_empty() {
        out.push(with_threads(
            Finding::new(
                "threads.kernel_unbound",
                Severity::Warn,
                format!(
                    "{} may run on the isolated {on}: {}",
                    plural(
                        kernel_unbound.len(),
                        "kernel thread that is not per-CPU",
                        "kernel threads that are not per-CPU"
                    ),
                    names(&kernel_unbound)
                ),
            )
            .remedy(kernel_unbound_remedy(ctx, &kernel_unbound)),
            &kernel_unbound,
        ));
    }
    out.push(if rt_pinned.is_empty() {
        Finding::new(
            "threads.rt_pinned",
            Severity::Info,
            format!("No real-time thread is pinned to the isolated {on} (yet)"),
        )
        .evidence(system_path("proc/*/task/*/stat"), format!("{} threads read", threads.len()))
        .remedy(format!(
            "pin the real-time threads there: rtlat run -a {isolated} …, taskset -c {isolated} COMMAND, or sched_setaffinity in the application"
        ))
    } else {
        with_threads(
            Finding::new(
                "threads.rt_pinned",
                Severity::Ok,
                format!(
                    "{} pinned to the isolated {on}: {}",
                    plural(rt_pinned.len(), "real-time thread is", "real-time threads are"),
                    names(&rt_pinned)
                ),
            ),
            &rt_pinned,
        )
    });
    if !other_pinned.is_empty() {
        out.push(with_threads(
            Finding::new(
                "threads.pinned_other",
                Severity::Info,
                format!(
                    "{} pinned to the isolated {on} without a real-time policy, sharing it with the real-time work: {}",
                    plural(other_pinned.len(), "thread is", "threads are"),
                    names(&other_pinned)
                ),
            )
            .remedy("check that they belong there (a real-time application's helper threads may)"),
            &other_pinned,
        ));
    }
    let running_there: Vec<&ThreadInfo> = spanning
        .iter()
        .copied()
        .filter(|t| isolated.contains(t.stat.processor))
        .collect();
    out.push(if spanning.is_empty() {
        Finding::new(
            "threads.on_isolated",
            Severity::Ok,
            format!("No other user thread may run on the isolated {on}"),
        )
        .evidence(system_path("proc/*/task/*/status"), format!("Cpus_allowed_list of {} threads", threads.len()))
    } else {
        let now = if running_there.is_empty() {
            String::new()
        } else {
            format!(" ({} last ran there)", running_there.len())
        };
        with_threads(
            Finding::new(
                "threads.on_isolated",
                Severity::Warn,
                format!(
                    "{} may run on the isolated {on}{now}: {}",
                    plural(spanning.len(), "user thread", "user threads"),
                    names(&spanning)
                ),
            )
            .remedy(format!(
                "CPUAffinity={housekeeping} in /etc/systemd/system.conf starts every service on the housekeeping CPUs (after a reboot); for running ones: taskset -apc {housekeeping} PID"
            )),
            &spanning,
        )
    });
}
