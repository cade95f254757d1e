//! The checks, one file per area. Each reads what it needs through the [`Context`] and
//! appends its findings; a fact that cannot be read becomes a finding, never an abort.

mod cmdline;
mod cpufreq;
mod cpuidle;
mod cpus;
mod irq;
mod kconfig;
mod kernel;
mod memory;
mod params;
mod sysctl;
mod threads;
mod virt;
mod workqueue;

use crate::context::Context;
use crate::finding::Finding;

/// Runs every check, in the order of the report: virtual machine, kernel, its build
/// configuration, command line, CPU sets, frequency, idle states, interrupts, sysctls, memory, workqueues, threads.
pub fn run(ctx: &Context) -> Vec<Finding> {
    let mut out = Vec::new();
    virt::check(ctx, &mut out);
    kernel::check(ctx, &mut out);
    kconfig::check(ctx, &mut out);
    cmdline::check(ctx, &mut out);
    params::check(ctx, &mut out);
    cpus::check(ctx, &mut out);
    cpufreq::check(ctx, &mut out);
    cpuidle::check(ctx, &mut out);
    irq::check(ctx, &mut out);
    sysctl::check(ctx, &mut out);
    memory::check(ctx, &mut out);
    workqueue::check(ctx, &mut out);
    threads::check(ctx, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suggest::{Machine, suggest};
    use rtlat_linux::cpuset::CpuSet;
    use rtlat_system::facts::Facts;

    /// Words that exercise the command-line checks: isolation parameters with good and bad
    /// CPU lists, flags, quotes, repeats and near-misspellings.
    const PIECES: [&str; 32] = [
        "isolcpus=",
        "nohz_full=",
        "rcu_nocbs",
        "rcu_nocbs=",
        "irqaffinity=",
        "rcu_nocb_poll",
        "nohz=off",
        "idle=",
        "processor.max_cstate=",
        "intel_idle.max_cstate=",
        "cpuidle.off=",
        "tsc=",
        "clocksource=",
        "skew_tick=",
        "transparent_hugepage=",
        "rcunocbs=",
        "isolcpu",
        "domain,",
        "managed_irq,",
        "nohz,",
        "N",
        "all",
        "0",
        "1-3",
        "7-",
        ",",
        "-",
        "\"",
        " ",
        " -- ",
        "=",
        "x.y=",
    ];

    /// A deterministic pseudo-random command line (xorshift).
    fn line(seed: &mut u64) -> String {
        let mut text = String::new();
        let count = (*seed % 12) as usize;
        for _ in 0..count {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            text.push_str(PIECES[(*seed % PIECES.len() as u64) as usize]);
        }
        text
    }

    #[test]
    fn no_command_line_makes_a_check_or_the_suggestion_panic() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../rtlat-system/tests/data/hp-t630"
        );
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let possible = CpuSet::parse("0-3").unwrap();
        for _ in 0..400 {
            let text = line(&mut seed);
            let (ctx, _) = Context::load(Facts::at(root), Some(("fuzz".into(), text.clone())));
            let findings = run(&ctx);
            assert!(findings.iter().all(|f| !f.title.is_empty()), "{text:?}");
            let cmdline = &ctx.cmdline.as_ref().unwrap().line;
            let machine = Machine {
                possible: &possible,
                online: None,
                from_grub: false,
            };
            if let Ok(s) = suggest(cmdline, "fuzz", &CpuSet::parse("2-3").unwrap(), &machine) {
                let again = rtlat_system::cmdline::KernelCmdline::parse(&s.line.to_string());
                assert_eq!(again.params(), s.line.params(), "{text:?}");
            }
        }
    }
}
