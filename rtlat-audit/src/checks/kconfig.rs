//! The kernel's build configuration (`/boot/config-RELEASE` or `/proc/config.gz`): the options
//! that decide real-time behaviour, each with its remedy, as Xenomai's `chkkconf` checks its
//! own. What the command line asks (`nohz_full=`, `rcu_nocbs=`, `isolcpus=`) only works where
//! the kernel was built for it; debug options that instrument every lock, allocation or
//! memory access add latency no tuning removes.

use rtlat_system::facts::KernelConfig;

use crate::context::{Context, unreadable};
use crate::finding::{Finding, Severity};
use crate::paths::system_path;

/// The options the isolation parameters need: (option, what is lost without it).
const ISOLATION: [(&str, &str); 3] = [
    (
        "NO_HZ_FULL",
        "nohz_full= is ignored: the tick keeps interrupting the isolated CPUs",
    ),
    (
        "RCU_NOCB_CPU",
        "rcu_nocbs= is ignored: RCU callbacks run on the isolated CPUs",
    ),
    ("CPU_ISOLATION", "isolcpus= and nohz_full= are ignored"),
];

/// Debug options that add latency on every path they instrument: (option, what it does).
const DEBUG: [(&str, &str); 12] = [
    (
        "PROVE_LOCKING",
        "lockdep validates every lock taken and released",
    ),
    ("DEBUG_LOCK_ALLOC", "lockdep's bookkeeping on every lock"),
    ("DEBUG_PREEMPT", "checks every preemption-count change"),
    ("DEBUG_ATOMIC_SLEEP", "checks every call that may sleep"),
    ("KASAN", "checks every memory access"),
    ("KCSAN", "instruments every memory access"),
    ("KMSAN", "instruments every memory access"),
    ("SLUB_DEBUG_ON", "poisons and checks every slab allocation"),
    (
        "DEBUG_PAGEALLOC_ENABLE_DEFAULT",
        "unmaps every freed page (a TLB flush per free)",
    ),
    (
        "DEBUG_OBJECTS",
        "tracks every timer, work item and RCU callback",
    ),
    ("DEBUG_KMEMLEAK", "tracks every allocation"),
    (
        "IRQSOFF_TRACER",
        "hooks every interrupt disable and enable, even when not tracing",
    ),
];

/// The tracers rtlat uses where the kernel has them: (option, what uses it).
const TRACERS: [(&str, &str); 3] = [
    ("TIMERLAT_TRACER", "rtlat run --timerlat"),
    ("OSNOISE_TRACER", "--explain's tracer"),
    ("HWLAT_TRACER", "rtlat hwnoise's hwlat method"),
];

/// Runs the configuration checks (one finding when it cannot be read).
pub fn check(ctx: &Context, out: &mut Vec<Finding>) {
    let config = match ctx.facts.kernel_config() {
        Ok(config) => config,
        Err(e) => {
            let finding = unreadable("kconfig.readable", "the kernel's configuration", &e)
                .remedy("install the running kernel's /boot/config-RELEASE (the distribution's kernel package has it), or load the configs module for /proc/config.gz (modprobe configs)");
            out.push(finding);
            return;
        }
    };
    let source = config
        .source
        .strip_prefix(ctx.facts.root())
        .map(|p| system_path(&p.to_string_lossy()))
        .unwrap_or_else(|_| config.source.display().to_string());
    out.push(preempt(&config, &source));
    out.push(timers(&config, &source));
    out.push(isolation(&config, &source));
    out.push(debug(&config, &source));
    out.push(tracers(&config, &source));
}

/// `CONFIG_NAME=value` as the configuration has it (`is not set` for `n`, `absent`).
fn shown(config: &KernelConfig, name: &str) -> String {
    match config.get(name) {
        Some("n") => format!("# CONFIG_{name} is not set"),
        Some(value) => format!("CONFIG_{name}={value}"),
        None => format!("CONFIG_{name} absent"),
    }
}

/// The options of `table` the configuration does not build in.
fn not_built_in<'a>(
    config: &KernelConfig,
    table: &'a [(&str, &str)],
) -> Vec<&'a (&'a str, &'a str)> {
    table
        .iter()
        .filter(|(name, _)| !config.built_in(name))
        .collect()
}

/// `finding` with each option of `table` as the configuration has it.
fn with_evidence(
    finding: Finding,
    config: &KernelConfig,
    source: &str,
    table: &[(&str, &str)],
) -> Finding {
    table.iter().fold(finding, |f, (name, _)| {
        f.evidence(source, shown(config, name))
    })
}

fn preempt(config: &KernelConfig, source: &str) -> Finding {
    const ID: &str = "kconfig.preempt_rt";
    let finding = if config.built_in("PREEMPT_RT") {
        Finding::new(ID, Severity::Ok, "The kernel was built with PREEMPT_RT")
    } else {
        // kernel.preempt_rt fails this kernel already, with the remedy.
        Finding::new(
            ID,
            Severity::Info,
            "The kernel was built without PREEMPT_RT (see kernel.preempt_rt for what to run instead)",
        )
    };
    finding.evidence(source, shown(config, "PREEMPT_RT"))
}

fn timers(config: &KernelConfig, source: &str) -> Finding {
    const ID: &str = "kconfig.timers";
    let hz = config.get("HZ").unwrap_or("unknown");
    let finding = if config.built_in("HIGH_RES_TIMERS") {
        Finding::new(
            ID,
            Severity::Ok,
            format!(
                "High-resolution timers are built in; the tick is {hz} Hz where it runs (nohz_full stops it on isolated CPUs)"
            ),
        )
    } else {
        Finding::new(
            ID,
            Severity::Fail,
            format!(
                "The kernel has no high-resolution timers: every timer fires on the {hz} Hz tick, so a wake-up is late by up to a tick"
            ),
        )
        .remedy("run a kernel built with CONFIG_HIGH_RES_TIMERS=y (every distribution's is)")
    };
    finding
        .evidence(source, shown(config, "HIGH_RES_TIMERS"))
        .evidence(source, shown(config, "HZ"))
}

fn isolation(config: &KernelConfig, source: &str) -> Finding {
    const ID: &str = "kconfig.isolation";
    let missing = not_built_in(config, &ISOLATION);
    let finding = if missing.is_empty() {
        Finding::new(
            ID,
            Severity::Ok,
            "The kernel can isolate CPUs: NO_HZ_FULL, RCU_NOCB_CPU and CPU_ISOLATION are built in",
        )
    } else {
        let lost: Vec<String> = missing
            .iter()
            .map(|(name, lost)| format!("without {name}, {lost}"))
            .collect();
        let options: Vec<String> = missing
            .iter()
            .map(|(name, _)| format!("CONFIG_{name}=y"))
            .collect();
        Finding::new(
            ID,
            Severity::Warn,
            format!("The kernel cannot isolate CPUs fully: {}", lost.join("; ")),
        )
        .remedy(format!(
            "run a kernel built with {} (Debian's and Ubuntu's RT kernels are)",
            options.join(", ")
        ))
    };
    with_evidence(finding, config, source, &ISOLATION)
}

fn debug(config: &KernelConfig, source: &str) -> Finding {
    const ID: &str = "kconfig.debug";
    let mut set: Vec<(String, &str)> = DEBUG
        .iter()
        .filter(|(name, _)| config.built_in(name))
        .map(|&(name, does)| (name.to_owned(), does))
        .collect();
    // The function tracer patched out when off costs nothing; without dynamic ftrace every
    // kernel function calls its hook.
    if config.built_in("FUNCTION_TRACER") && !config.built_in("DYNAMIC_FTRACE") {
        set.push((
            "FUNCTION_TRACER".to_owned(),
            "without DYNAMIC_FTRACE every kernel function calls the tracer's hook, tracing or not",
        ));
    }
    if set.is_empty() {
        return Finding::new(
            ID,
            Severity::Ok,
            "No debug option that adds latency is built in (lockdep, KASAN, SLUB_DEBUG_ON, the irqsoff tracer, …)",
        )
        .evidence(source, "none of CONFIG_PROVE_LOCKING, DEBUG_LOCK_ALLOC, DEBUG_PREEMPT, DEBUG_ATOMIC_SLEEP, KASAN, KCSAN, KMSAN, SLUB_DEBUG_ON, DEBUG_PAGEALLOC_ENABLE_DEFAULT, DEBUG_OBJECTS, DEBUG_KMEMLEAK, IRQSOFF_TRACER");
    }
    let named: Vec<String> = set
        .iter()
        .map(|(name, does)| format!("{name} ({does})"))
        .collect();
    let off: Vec<String> = set
        .iter()
        .map(|(name, _)| format!("CONFIG_{name}=n"))
        .collect();
    let finding = Finding::new(
        ID,
        Severity::Warn,
        format!(
            "Debug options that add latency are built in: {}",
            named.join("; ")
        ),
    )
    .remedy(format!(
        "run a kernel built without them: {} (they find kernel bugs; a production real-time kernel leaves them off)",
        off.join(", ")
    ));
    set.iter().fold(finding, |f, (name, _)| {
        f.evidence(source, shown(config, name))
    })
}

fn tracers(config: &KernelConfig, source: &str) -> Finding {
    const ID: &str = "kconfig.tracers";
    let missing = not_built_in(config, &TRACERS);
    let finding = if missing.is_empty() {
        Finding::new(
            ID,
            Severity::Ok,
            "The timerlat, osnoise and hwlat tracers are built in: rtlat run --timerlat, --explain's tracer and rtlat hwnoise can use them",
        )
    } else {
        let lost: Vec<String> = missing
            .iter()
            .map(|(name, user)| format!("{name} ({user})"))
            .collect();
        Finding::new(
            ID,
            Severity::Info,
            format!(
                "Tracers rtlat uses where they exist are not built in: {}; rtlat falls back where it can and says so",
                lost.join(", ")
            ),
        )
    };
    with_evidence(finding, config, source, &TRACERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The findings for a configuration's text.
    fn findings(text: &str) -> Vec<Finding> {
        let config = KernelConfig::parse("/boot/config-test", text);
        vec![
            preempt(&config, "/boot/config-test"),
            timers(&config, "/boot/config-test"),
            isolation(&config, "/boot/config-test"),
            debug(&config, "/boot/config-test"),
            tracers(&config, "/boot/config-test"),
        ]
    }

    fn by_id<'a>(findings: &'a [Finding], id: &str) -> &'a Finding {
        findings.iter().find(|f| f.id == id).unwrap()
    }

    /// Debian's RT kernels' settings for the options checked.
    const RT: &str = "CONFIG_PREEMPT_RT=y\nCONFIG_HIGH_RES_TIMERS=y\nCONFIG_HZ=250\nCONFIG_NO_HZ_FULL=y\nCONFIG_RCU_NOCB_CPU=y\nCONFIG_CPU_ISOLATION=y\n# CONFIG_PROVE_LOCKING is not set\n# CONFIG_KASAN is not set\nCONFIG_FUNCTION_TRACER=y\nCONFIG_DYNAMIC_FTRACE=y\nCONFIG_TIMERLAT_TRACER=y\nCONFIG_OSNOISE_TRACER=y\nCONFIG_HWLAT_TRACER=y\n";

    #[test]
    fn an_rt_kernels_configuration_passes() {
        let found = findings(RT);
        assert!(
            found.iter().all(|f| f.severity == Severity::Ok),
            "{found:#?}"
        );
        assert!(by_id(&found, "kconfig.timers").title.contains("250 Hz"));
    }

    #[test]
    fn each_missing_or_costly_option_is_named_with_its_remedy() {
        let text = RT
            .replace("CONFIG_NO_HZ_FULL=y", "# CONFIG_NO_HZ_FULL is not set")
            .replace("CONFIG_RCU_NOCB_CPU=y\n", "")
            .replace("# CONFIG_KASAN is not set", "CONFIG_KASAN=y")
            .replace(
                "CONFIG_DYNAMIC_FTRACE=y",
                "# CONFIG_DYNAMIC_FTRACE is not set",
            )
            .replace(
                "CONFIG_HIGH_RES_TIMERS=y",
                "# CONFIG_HIGH_RES_TIMERS is not set",
            )
            .replace("CONFIG_PREEMPT_RT=y", "# CONFIG_PREEMPT_RT is not set")
            .replace("CONFIG_HWLAT_TRACER=y", "");
        let found = findings(&text);
        let isolation = by_id(&found, "kconfig.isolation");
        assert_eq!(isolation.severity, Severity::Warn);
        assert!(isolation.title.contains("nohz_full= is ignored"));
        assert!(isolation.title.contains("rcu_nocbs= is ignored"));
        assert!(
            !isolation.title.contains("isolcpus= and"),
            "CPU_ISOLATION is there"
        );
        let remedy = isolation.remedy.as_deref().unwrap();
        assert!(
            remedy.contains("CONFIG_NO_HZ_FULL=y, CONFIG_RCU_NOCB_CPU=y"),
            "{remedy}"
        );
        let debug = by_id(&found, "kconfig.debug");
        assert_eq!(debug.severity, Severity::Warn);
        assert!(debug.title.contains("KASAN") && debug.title.contains("FUNCTION_TRACER"));
        assert!(debug.remedy.as_deref().unwrap().contains("CONFIG_KASAN=n"));
        assert_eq!(by_id(&found, "kconfig.timers").severity, Severity::Fail);
        // Not RT: said, and left to kernel.preempt_rt to fail.
        assert_eq!(by_id(&found, "kconfig.preempt_rt").severity, Severity::Info);
        let tracers = by_id(&found, "kconfig.tracers");
        assert_eq!(tracers.severity, Severity::Info);
        assert!(tracers.title.contains("HWLAT_TRACER (rtlat hwnoise"));
        assert!(
            tracers
                .evidence
                .iter()
                .any(|e| e.value == "CONFIG_HWLAT_TRACER absent")
        );
    }
}
