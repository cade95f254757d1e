//! `rtlat audit` through the binary on the captured and constructed machine trees, the four
//! real command lines, the JSON shape, the exit statuses, and the live machine.

use crate::audit_support;

use audit_support::{
    TempFile, audit, audit_tree, findings, fixture, linux_tree, one, pairs, text, with_id,
};
use serde_json::Value;

fn expected(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(i, s)| (i.to_string(), s.to_string()))
        .collect()
}

/// The JSON report's exit status matches the process's, and the summary its findings.
fn check_summary(report: &Value, code: i32) {
    let summary = &report["summary"];
    let severities = ["ok", "info", "warn", "fail"];
    let counts: Vec<u64> = severities
        .iter()
        .map(|s| summary[*s].as_u64().unwrap())
        .collect();
    assert_eq!(counts.iter().sum::<u64>() as usize, findings(report).len());
    for (severity, count) in severities.iter().zip(&counts) {
        let actual = findings(report)
            .iter()
            .filter(|f| f["severity"] == *severity)
            .count();
        assert_eq!(actual as u64, *count, "{severity}");
    }
    let worst = severities
        .iter()
        .rev()
        .zip(counts.iter().rev())
        .find(|(_, n)| **n > 0)
        .map(|(s, _)| *s);
    assert_eq!(summary["worst"].as_str(), worst);
    let status = match worst {
        Some("fail") => 3,
        Some("warn") => 1,
        _ => 0,
    };
    assert_eq!(summary["exit_status"], status);
    assert_eq!(code, status, "exit status");
}

#[test]
fn vm_2cpu_is_not_rt_has_no_isolation_and_no_cpufreq() {
    let run = audit(&["--root", &linux_tree("vm-2cpu"), "--json"]);
    assert_eq!(run.stderr, "");
    let report = run.json();
    check_summary(&report, run.code);
    assert_eq!(run.code, 3);
    assert_eq!(
        pairs(&report),
        expected(&[
            ("vm.guest", "warn"),
            ("kernel.preempt_rt", "fail"),
            ("kernel.clocksource", "ok"),
            // A captured tree holds no kernel configuration.
            ("kconfig.readable", "info"),
            ("cmdline.unknown_param", "info"),
            ("cmdline.unknown_param", "info"),
            ("cmdline.unknown_param", "info"),
            ("cmdline.isolcpus", "info"),
            ("cmdline.tsc", "info"),
            ("cmdline.skew_tick", "info"),
            ("cpufreq.absent", "info"),
            ("cpuidle.states", "info"),
            ("cpuidle.dma_latency", "info"),
            ("irq.irqbalance", "ok"),
            ("sysctl.sched_rt_runtime_us", "info"),
            ("sysctl.timer_migration", "info"),
            ("sysctl.nmi_watchdog", "ok"),
            ("sysctl.soft_watchdog", "info"),
            ("mm.thp", "ok"),
            ("mm.swap", "ok"),
            ("mm.ksm", "ok"),
        ])
    );
    let rt = text(one(&report, "kernel.preempt_rt"));
    assert!(
        rt.contains("PREEMPT_DYNAMIC") && rt.contains("/sys/kernel/realtime = absent"),
        "{rt}"
    );
    assert!(
        rt.contains("apt install linux-image-rt-amd64") && rt.contains("CONFIG_PREEMPT_RT=y"),
        "{rt}"
    );
    let isolcpus = text(one(&report, "cmdline.isolcpus"));
    assert!(
        isolcpus.contains("No CPU is isolated") && isolcpus.contains("--suggest --isolate 1"),
        "{isolcpus}"
    );
    assert!(text(one(&report, "cpufreq.absent")).contains("virtual machine"));
    // The VM's own parameters, module ones included, are not called misspellings.
    let unknown: Vec<String> = with_id(&report, "cmdline.unknown_param")
        .iter()
        .map(|f| f["evidence"][0]["value"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        unknown,
        ["deferred_init=lazy", "nested_pvm=1", "sched_vcpu_pack=15"]
    );
}

#[test]
fn hp_t630_misspelling_repeats_irqs_irqbalance_governor_and_the_servo_thread() {
    let run = audit(&["--root", &linux_tree("hp-t630"), "--json"]);
    let report = run.json();
    check_summary(&report, run.code);
    assert_eq!(
        pairs(&report),
        expected(&[
            ("kernel.preempt_rt", "fail"),
            ("kernel.clocksource", "ok"),
            // A captured tree holds no kernel configuration.
            ("kconfig.readable", "info"),
            ("cmdline.unknown_param", "warn"),
            ("cmdline.repeated", "info"),
            ("cmdline.repeated", "info"),
            ("cmdline.repeated", "info"),
            ("cmdline.repeated", "info"),
            ("cmdline.repeated", "info"),
            ("cmdline.redundant", "info"),
            ("cmdline.isolcpus", "ok"),
            ("cmdline.nohz_full", "ok"),
            ("cmdline.rcu_nocbs", "info"),
            ("cmdline.rcu_nocb_poll", "ok"),
            ("cmdline.irqaffinity", "warn"),
            ("cmdline.nohz", "info"),
            ("cmdline.idle", "info"),
            ("cmdline.processor.max_cstate", "ok"),
            ("cmdline.intel_idle.max_cstate", "ok"),
            ("cmdline.cpuidle.off", "ok"),
            ("cmdline.nmi_watchdog", "ok"),
            ("cmdline.nosoftlockup", "ok"),
            ("cmdline.tsc", "ok"),
            ("cmdline.clocksource", "ok"),
            ("cmdline.skew_tick", "ok"),
            ("cmdline.transparent_hugepage", "ok"),
            ("cmdline.audit", "ok"),
            ("cmdline.selinux", "ok"),
            ("cmdline.intel_pstate", "ok"),
            ("cmdline.acpi_irq_nobalance", "ok"),
            ("cpus.housekeeping", "ok"),
            ("cpus.isolation_sets", "ok"),
            ("cpus.isolated_mismatch", "ok"),
            ("cpus.nohz_full_mismatch", "ok"),
            ("cpufreq.governor", "warn"),
            ("cpufreq.range", "warn"),
            ("cpuidle.states", "ok"),
            ("cpuidle.dma_latency", "info"),
            ("irq.on_isolated", "warn"),
            ("irq.irqbalance", "warn"),
            ("irq.default_affinity", "warn"),
            ("sysctl.sched_rt_runtime_us", "warn"),
            ("sysctl.timer_migration", "info"),
            ("sysctl.nmi_watchdog", "ok"),
            ("sysctl.soft_watchdog", "ok"),
            ("mm.thp", "ok"),
            ("mm.swap", "warn"),
            ("mm.ksm", "ok"),
            ("workqueue.cpumask", "warn"),
            ("threads.kernel_per_cpu", "ok"),
            ("threads.kernel_unbound", "warn"),
            ("threads.rt_pinned", "ok"),
            ("threads.on_isolated", "ok"),
        ])
    );
    let misspelled = one(&report, "cmdline.unknown_param");
    assert!(
        text(misspelled).contains("`rcunocbs=3`")
            && text(misspelled).contains("misspelling of rcu_nocbs")
    );
    assert_eq!(misspelled["remedy"], "replace rcunocbs=3 with rcu_nocbs=3");
    let repeated: Vec<String> = with_id(&report, "cmdline.repeated")
        .iter()
        .map(|f| text(f))
        .collect();
    for name in [
        "isolcpus",
        "intel_pstate",
        "nosoftlockup",
        "tsc",
        "skew_tick",
    ] {
        assert!(
            repeated.iter().any(|t| t.contains(&format!("`{name}`"))),
            "{name}: {repeated:#?}"
        );
    }
    assert!(
        repeated
            .iter()
            .any(|t| t.contains("`intel_pstate` is given 3 times"))
    );
    let irq = text(one(&report, "irq.on_isolated"));
    assert!(
        irq.contains("IRQ 26 (enp1s0) is delivered there now"),
        "{irq}"
    );
    assert!(
        irq.contains("/proc/irq/26/smp_affinity_list = 0-3, effective 3 (enp1s0); 98231 on CPU 3"),
        "{irq}"
    );
    assert!(!irq.contains("/proc/irq/28/"), "IRQ 28 stays on 0-2: {irq}");
    assert!(irq.contains("rtlat irq --away-from 3 --apply"), "{irq}");
    assert!(text(one(&report, "irq.irqbalance")).contains("systemctl disable --now irqbalance"));
    let governor = text(one(&report, "cpufreq.governor"));
    assert!(
        governor.contains("ondemand")
            && governor.contains("rtlat cpufreq --governor performance --apply"),
        "{governor}"
    );
    assert!(text(one(&report, "cpufreq.range")).contains("1200 MHz and 2000 MHz"));
    let servo = text(one(&report, "threads.rt_pinned"));
    assert!(
        servo.contains("servo-rt (1201)") && servo.contains("SCHED_FIFO 80, CPUs 3"),
        "{servo}"
    );
    let per_cpu = text(one(&report, "threads.kernel_per_cpu"));
    assert!(
        per_cpu.contains("migration/3")
            && per_cpu.contains("ksoftirqd/3")
            && per_cpu.contains("kworker/3:1")
    );
    assert!(text(one(&report, "threads.kernel_unbound")).contains("kthreadd (2)"));
    assert!(text(one(&report, "kernel.preempt_rt")).contains("apt install linux-image-rt-amd64"));
    assert!(text(one(&report, "sysctl.sched_rt_runtime_us")).contains("950 ms of every 1000 ms"));
    assert!(
        text(one(&report, "workqueue.cpumask"))
            .contains("echo 7 > /sys/devices/virtual/workqueue/cpumask")
    );
}

#[test]
fn dell_optiplex_755_is_rt_with_a_misspelling() {
    let run = audit(&["--root", &linux_tree("dell-optiplex-755"), "--json"]);
    let report = run.json();
    check_summary(&report, run.code);
    assert_eq!(run.code, 1);
    assert_eq!(
        pairs(&report),
        expected(&[
            ("kernel.preempt_rt", "ok"),
            ("kernel.clocksource", "ok"),
            // A captured tree holds no kernel configuration.
            ("kconfig.readable", "info"),
            ("cmdline.unknown_param", "warn"),
            ("cmdline.redundant", "info"),
            ("cmdline.isolcpus", "warn"),
            ("cmdline.nohz_full", "ok"),
            ("cmdline.rcu_nocbs", "info"),
            ("cmdline.rcu_nocb_poll", "ok"),
            ("cmdline.irqaffinity", "warn"),
            ("cmdline.nohz", "info"),
            ("cmdline.idle", "info"),
            ("cmdline.processor.max_cstate", "ok"),
            ("cmdline.cpuidle.off", "ok"),
            ("cmdline.nmi_watchdog", "ok"),
            ("cmdline.tsc", "info"),
            ("cmdline.clocksource", "ok"),
            ("cmdline.skew_tick", "ok"),
            ("cmdline.transparent_hugepage", "ok"),
            ("cmdline.audit", "ok"),
            ("cmdline.selinux", "ok"),
            ("cmdline.acpi_irq_nobalance", "ok"),
            ("cpus.housekeeping", "ok"),
            ("cpus.isolation_sets", "ok"),
            ("cpus.isolated_mismatch", "ok"),
            ("cpus.nohz_full_mismatch", "ok"),
            ("cpufreq.governor", "ok"),
            ("cpufreq.range", "ok"),
            ("cpuidle.states", "ok"),
            ("cpuidle.dma_latency", "info"),
            ("irq.on_isolated", "warn"),
            ("irq.irqbalance", "ok"),
            ("irq.default_affinity", "ok"),
            ("sysctl.sched_rt_runtime_us", "ok"),
            ("sysctl.timer_migration", "ok"),
            ("sysctl.nmi_watchdog", "ok"),
            ("sysctl.soft_watchdog", "ok"),
            ("mm.thp", "ok"),
            ("mm.swap", "ok"),
            ("mm.ksm", "ok"),
            ("workqueue.cpumask", "ok"),
            ("threads.kernel_per_cpu", "ok"),
            ("threads.kernel_unbound", "warn"),
            ("threads.rt_pinned", "ok"),
            ("threads.on_isolated", "ok"),
        ])
    );
    let rt = text(one(&report, "kernel.preempt_rt"));
    assert!(
        rt.contains("/sys/kernel/realtime = 1") && rt.contains("PREEMPT_RT Debian"),
        "{rt}"
    );
    assert_eq!(
        one(&report, "cmdline.unknown_param")["remedy"],
        "replace rcunocbs=1 with rcu_nocbs=1"
    );
    assert_eq!(
        one(&report, "cmdline.isolcpus")["remedy"],
        "write isolcpus=managed_irq,domain,1"
    );
    assert!(text(one(&report, "threads.rt_pinned")).contains("cyclictest (1501)"));
    assert!(text(one(&report, "cpufreq.range")).contains("pinned at the maximum, 2333 MHz"));
    let per_cpu = text(one(&report, "threads.kernel_per_cpu"));
    for name in ["migration/1", "rcuc/1", "ktimers/1", "ksoftirqd/1"] {
        assert!(per_cpu.contains(name), "{name}: {per_cpu}");
    }
}

#[test]
fn the_table_is_plain_when_piped_and_matches_the_json() {
    for tree in ["vm-2cpu", "hp-t630", "dell-optiplex-755"] {
        let root = linux_tree(tree);
        let table = audit(&["--root", &root]);
        let json = audit(&["--root", &root, "--json"]);
        assert_eq!(table.code, json.code, "{tree}");
        assert_eq!(table.stderr, "");
        assert!(!table.stdout.contains('\x1b'), "no colour in a pipe");
        assert!(table.stdout.starts_with(&format!(
            "rtlat audit of {root}; command line: /proc/cmdline"
        )));
        for line in table.stdout.lines().skip(1) {
            // Wrapped at 100 columns, except a single word longer than that.
            let long = line.chars().count() > 100;
            assert!(!long || !line.trim().contains(' '), "{tree}: {line}");
        }
        let report = json.json();
        for (id, severity) in pairs(&report) {
            assert!(
                table
                    .stdout
                    .contains(&format!("{:<6}{id}\n", severity.to_uppercase())),
                "{tree}: {id}"
            );
        }
        let last = table.stdout.lines().last().unwrap();
        assert!(
            last.ends_with(&format!("(exit status {})", table.code)),
            "{last}"
        );
    }
}

#[test]
fn json_has_the_documented_shape() {
    for tree in ["hp-t630", "vm-kvm-2cpu", "vm-2cpu", "dell-optiplex-755"] {
        json_shape(&audit(&["--root", &linux_tree(tree), "--json"]).json());
    }
}

fn json_shape(report: &Value) {
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["root", "cmdline", "findings", "summary"]);
    assert_eq!(report["cmdline"]["source"], "/proc/cmdline");
    assert_eq!(report["cmdline"]["running"], true);
    for finding in findings(report) {
        let keys: Vec<&str> = finding
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["id", "severity", "title", "evidence", "remedy"]);
        let id = finding["id"].as_str().unwrap();
        assert!(
            id.contains('.')
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || "._".contains(c)),
            "{id}"
        );
        assert!(["ok", "info", "warn", "fail"].contains(&finding["severity"].as_str().unwrap()));
        assert!(!finding["title"].as_str().unwrap().is_empty());
        let evidence = finding["evidence"].as_array().unwrap();
        assert!(!evidence.is_empty(), "{id} has evidence");
        for e in evidence {
            assert!(e["source"].is_string() && e["value"].is_string(), "{id}");
        }
        match finding["severity"].as_str().unwrap() {
            "warn" | "fail" => assert!(finding["remedy"].is_string(), "{id} says what to do"),
            "ok" => assert!(finding["remedy"].is_null(), "{id}: nothing to do"),
            _ => {}
        }
    }
    let keys: Vec<&str> = report["summary"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["ok", "info", "warn", "fail", "worst", "exit_status"]);
}

#[test]
fn fixture_lines_through_cmdline() {
    let root = audit_tree("ubuntu-8cpu");
    // Ubuntu's default line: no real-time tuning at all.
    let run = audit(&[
        "--root",
        &root,
        "--cmdline",
        &fixture("ubuntu-default"),
        "--json",
    ]);
    let report = run.json();
    check_summary(&report, run.code);
    assert_eq!(report["cmdline"]["running"], false);
    assert!(
        report["cmdline"]["source"]
            .as_str()
            .unwrap()
            .ends_with("ubuntu-default.txt")
    );
    let cmdline: Vec<(String, String)> = pairs(&report)
        .into_iter()
        .filter(|(id, _)| id.starts_with("cmdline.") || id.starts_with("cpus."))
        .collect();
    assert_eq!(
        cmdline,
        expected(&[("cmdline.isolcpus", "info"), ("cmdline.skew_tick", "info")])
    );
    assert!(text(one(&report, "cmdline.isolcpus")).contains("No CPU is isolated"));

    // The same with isolcpus=0,1,2,3,4: CPU 0 isolated, managed IRQs not kept off, no RCU
    // offload, no irqaffinity; 5-7 are left for housekeeping on 8 CPUs.
    let run = audit(&[
        "--root",
        &root,
        "--cmdline",
        &fixture("ubuntu-isolcpus-0-4"),
        "--json",
    ]);
    let report = run.json();
    let cmdline: Vec<(String, String)> = pairs(&report)
        .into_iter()
        .filter(|(id, _)| id.starts_with("cmdline.") || id.starts_with("cpus."))
        .collect();
    assert_eq!(
        cmdline,
        expected(&[
            ("cmdline.isolcpus", "warn"),
            ("cmdline.nohz_full", "info"),
            ("cmdline.rcu_nocbs", "warn"),
            ("cmdline.irqaffinity", "warn"),
            ("cmdline.skew_tick", "info"),
            ("cpus.cpu0", "warn"),
            ("cpus.housekeeping", "ok"),
        ])
    );
    let cpu0 = one(&report, "cpus.cpu0");
    assert!(
        text(cpu0).contains("CPU 0 is isolated") && text(cpu0).contains("--suggest --isolate 1-4"),
        "{}",
        text(cpu0)
    );
    assert_eq!(
        one(&report, "cmdline.irqaffinity")["remedy"],
        "add irqaffinity=5-7"
    );
    assert!(text(one(&report, "cpus.housekeeping")).contains("CPUs 5-7"));

    // On the 2-CPU VM, the same line names CPUs it lacks and leaves no housekeeping CPU.
    let run = audit(&[
        "--root",
        &linux_tree("vm-2cpu"),
        "--cmdline",
        &fixture("ubuntu-isolcpus-0-4"),
        "--json",
    ]);
    let report = run.json();
    assert_eq!(run.code, 3);
    assert_eq!(one(&report, "cpus.cpu0")["severity"], "warn");
    assert_eq!(one(&report, "cpus.housekeeping")["severity"], "fail");
    let missing = one(&report, "cpus.not_present");
    assert_eq!(missing["severity"], "warn");
    assert!(
        text(missing).contains("CPUs 2-4")
            && text(missing).contains("name only CPUs of this machine: 0-1")
    );

    // The two tuned machines' lines flag their misspelling wherever they are audited.
    for name in ["hp-t630", "dell-optiplex-755"] {
        let report = audit(&["--root", &root, "--cmdline", &fixture(name), "--json"]).json();
        let unknown = one(&report, "cmdline.unknown_param");
        assert_eq!(unknown["severity"], "warn");
        assert!(
            unknown["remedy"]
                .as_str()
                .unwrap()
                .contains("with rcu_nocbs="),
            "{name}"
        );
        // Not the running line: not compared with what the running kernel isolates.
        assert!(with_id(&report, "cpus.isolated_mismatch").is_empty());
    }
}

#[test]
fn repeated_and_conflicting_parameters() {
    let line = TempFile::new(
        "conflicts",
        "isolcpus=domain,managed_irq,2 isolcpus=3 nohz_full=3 rcu_nocbs=3 rcu_nocbs=3 nohz=off \
         intel_idle.max_cstate=0 idle=halt isolcpu=2\n",
    );
    let report = audit(&[
        "--root",
        &audit_tree("ubuntu-8cpu"),
        "--cmdline",
        line.as_str(),
        "--json",
    ])
    .json();
    let get = |id| {
        pairs(&report)
            .into_iter()
            .filter(|(i, _)| i == id)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
    };
    let repeated = with_id(&report, "cmdline.repeated");
    assert_eq!(repeated.len(), 2);
    assert_eq!(repeated[0]["severity"], "warn");
    assert!(
        text(repeated[0])
            .contains("the kernel uses isolcpus=domain,managed_irq,2 (the first one it accepts"),
        "{}",
        text(repeated[0])
    );
    assert_eq!(
        repeated[1]["severity"], "info",
        "rcu_nocbs twice, same value"
    );
    assert_eq!(get("cmdline.nohz"), ["warn"]);
    assert!(text(one(&report, "cmdline.nohz")).contains("tickless CPU 3"));
    assert_eq!(get("cmdline.conflict"), ["warn"]);
    assert!(
        text(one(&report, "cmdline.conflict"))
            .contains("intel_idle.max_cstate=0 does not limit C-states")
    );
    assert_eq!(get("cmdline.idle"), ["ok"]);
    let sets = one(&report, "cpus.isolation_sets");
    assert_eq!(sets["severity"], "warn");
    assert!(
        text(sets).contains("nohz_full adds CPU 3 that isolcpus does not name"),
        "{}",
        text(sets)
    );
    let unknown = one(&report, "cmdline.unknown_param");
    assert_eq!(unknown["remedy"], "replace isolcpu=2 with isolcpus=2");
}

#[test]
fn a_grub_file_can_be_audited() {
    let grub = TempFile::new(
        "grub",
        "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=managed_irq,domain,6-7 nohz_full=6-7\"\nGRUB_CMDLINE_LINUX=\"\"\n",
    );
    let report = audit(&[
        "--root",
        &audit_tree("ubuntu-8cpu"),
        "--cmdline",
        grub.as_str(),
        "--json",
    ])
    .json();
    assert_eq!(one(&report, "cmdline.isolcpus")["severity"], "ok");
    assert_eq!(one(&report, "cpus.isolation_sets")["severity"], "ok");
    assert_eq!(
        one(&report, "cmdline.irqaffinity")["remedy"],
        "add irqaffinity=0-5"
    );
}

#[test]
fn malformed_files_become_findings_not_panics() {
    let run = audit(&["--root", &audit_tree("malformed"), "--json"]);
    assert_eq!(run.stderr, "", "no panic");
    let report = run.json();
    check_summary(&report, run.code);
    let unreadable: Vec<&str> = findings(&report)
        .iter()
        .filter(|f| f["title"].as_str().unwrap().starts_with("Could not read"))
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    for id in [
        "cpus.isolated",
        "cpufreq.governor",
        "cpuidle.states",
        "irq.on_isolated",
        "irq.default_affinity",
        "sysctl.sched_rt_runtime_us",
        "sysctl.timer_migration",
        "mm.thp",
        "mm.swap",
        "mm.ksm",
        "workqueue.cpumask",
        "threads.on_isolated",
    ] {
        assert!(unreadable.contains(&id), "{id}: {unreadable:?}");
    }
    assert_eq!(one(&report, "cmdline.syntax")["severity"], "warn");
    assert_eq!(one(&report, "cmdline.rcu_nocbs")["severity"], "warn");
    assert!(
        text(one(&report, "cmdline.rcu_nocbs")).contains("offloads the RCU callbacks of every CPU")
    );
    // The table too.
    let table = audit(&["--root", &audit_tree("malformed")]);
    assert_eq!(table.stderr, "");
    assert_eq!(table.code, run.code);
}

#[test]
fn help_documents_the_exit_statuses() {
    for flag in ["--help", "-h"] {
        let run = audit(&[flag]);
        assert_eq!(run.code, 0);
        assert_eq!(run.stderr, "");
        for needle in [
            "--root DIR",
            "--cmdline FILE",
            "--json",
            "--suggest",
            "--isolate CPUS",
            "Exit status:",
            "  3  the worst finding is fail",
            "  2  bad usage",
        ] {
            assert!(run.stdout.contains(needle), "{needle}");
        }
    }
}

#[test]
fn the_live_machine() {
    let json = audit(&["--json"]);
    assert!([0, 1, 3].contains(&json.code), "{json:?}");
    let report = json.json();
    check_summary(&report, json.code);
    assert_eq!(report["root"], "/");
    let kernel = one(&report, "kernel.preempt_rt");
    assert!(["ok", "fail", "warn"].contains(&kernel["severity"].as_str().unwrap()));
    let table = audit(&[]);
    assert_eq!(table.code, json.code);
    assert!(table.stdout.contains("kernel.preempt_rt"));
    // This machine is a KVM guest: the audit says so.
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let guest = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .is_some_and(|l| l.split_whitespace().any(|f| f == "hypervisor"));
    assert_eq!(with_id(&report, "vm.guest").len(), usize::from(guest));
}

// A virtual machine: `vm-kvm-2cpu` is captured from a KVM guest (Firecracker, no DMI); the
// bare-metal trees (`hp-t630`, `dell-optiplex-755`, `ubuntu-8cpu`) have CPU flags without
// `hypervisor`, their makers' DMI names and no steal time.

const BARE_METAL: [&str; 2] = ["hp-t630", "dell-optiplex-755"];

fn report_of(root: &str) -> Value {
    let run = audit(&["--root", root, "--json"]);
    let report = run.json();
    check_summary(&report, run.code);
    report
}

fn ids_starting(report: &Value, prefix: &str) -> Vec<String> {
    findings(report)
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .filter(|id| id.starts_with(prefix))
        .collect()
}

#[test]
fn a_kvm_guest_is_named_with_what_only_the_host_can_fix_and_its_steal_time() {
    let report = report_of(&linux_tree("vm-kvm-2cpu"));
    // First in the report: what the machine is.
    assert_eq!(findings(&report)[0]["id"], "vm.guest");
    let guest = one(&report, "vm.guest");
    assert_eq!(guest["severity"], "warn");
    let text = text(guest);
    assert!(text.contains("This is a virtual machine (KVM)"), "{text}");
    for advice in [
        "pin each vCPU thread",
        "SCHED_FIFO",
        "rtlat threads --name qemu-system",
        "isolcpus=",
        "nohz_full=",
        "rcu_nocbs=",
        "/sys/module/kvm/parameters/halt_poll_ns",
        "no overcommit",
    ] {
        assert!(text.contains(advice), "{advice}: {text}");
    }
    assert!(text.contains("/proc/cpuinfo = flags: hypervisor"), "{text}");
    assert!(
        text.contains("= kvm-clock (registered only under KVM)"),
        "{text}"
    );
    // The captured /proc/stat: 522 ticks of steal out of 488862 (0.11 %).
    let steal = one(&report, "vm.steal");
    assert_eq!(steal["severity"], "warn");
    let steal = audit_support::text(steal);
    assert!(
        steal.contains("5.22 s") && steal.contains("0.11 %"),
        "{steal}"
    );
    assert!(
        steal.contains("/proc/stat = cpu steal 522 of 488862 ticks (0.11 %) since boot; cpu0 269"),
        "{steal}"
    );
    // The older capture of the same kind of VM (no /proc/cpuinfo then): kvm-clock says KVM.
    let old = report_of(&linux_tree("vm-2cpu"));
    assert!(audit_support::text(one(&old, "vm.guest")).contains("virtual machine (KVM)"));
    assert!(
        with_id(&old, "vm.steal").is_empty(),
        "no /proc/stat captured"
    );
}

#[test]
fn bare_metal_has_no_virtual_machine_finding() {
    for tree in BARE_METAL {
        let report = report_of(&linux_tree(tree));
        assert_eq!(ids_starting(&report, "vm."), Vec::<String>::new(), "{tree}");
    }
    let ubuntu = audit(&[
        "--root",
        &audit_tree("ubuntu-8cpu"),
        "--cmdline",
        &fixture("ubuntu-default"),
        "--json",
    ])
    .json();
    assert_eq!(ids_starting(&ubuntu, "vm."), Vec::<String>::new());
}

#[test]
fn tsc_nowatchdog_is_recommended_only_where_the_watchdog_runs() {
    // The KVM guest: constant_tsc, nonstop_tsc, tsc_adjust, one package, Linux 6.18: the kernel
    // exempts the TSC, so there is nothing to add.
    let vm = report_of(&linux_tree("vm-kvm-2cpu"));
    let tsc = one(&vm, "cmdline.tsc");
    assert_eq!(tsc["severity"], "ok");
    assert!(tsc["remedy"].is_null());
    let text = audit_support::text(tsc);
    assert!(
        text.contains("runs no clocksource watchdog on the TSC"),
        "{text}"
    );
    assert!(
        text.contains("/proc/cpuinfo = flags: constant_tsc nonstop_tsc tsc_adjust; 1 package"),
        "{text}"
    );
    assert!(
        text.contains("/proc/sys/kernel/osrelease = 6.18.44"),
        "{text}"
    );
    // The Core 2 Duo: no nonstop_tsc, no tsc_adjust: the watchdog runs, tsc=nowatchdog helps.
    let dell = report_of(&linux_tree("dell-optiplex-755"));
    let tsc = one(&dell, "cmdline.tsc");
    assert_eq!(tsc["severity"], "info");
    let text = audit_support::text(tsc);
    assert!(
        text.contains("cross-checks the TSC every half second"),
        "{text}"
    );
    assert!(text.contains("lacks nonstop_tsc and tsc_adjust"), "{text}");
    assert!(
        tsc["remedy"]
            .as_str()
            .unwrap()
            .contains("add tsc=nowatchdog")
    );
    // A line given with --cmdline for the same machine: the same answer.
    let file = audit(&[
        "--root",
        &linux_tree("vm-kvm-2cpu"),
        "--cmdline",
        &fixture("ubuntu-default"),
        "--json",
    ])
    .json();
    assert_eq!(one(&file, "cmdline.tsc")["severity"], "ok");
    // Without /proc/cpuinfo (the older capture) the audit cannot tell, and says "may".
    let old = report_of(&linux_tree("vm-2cpu"));
    let tsc = one(&old, "cmdline.tsc");
    assert_eq!(tsc["severity"], "info");
    assert!(audit_support::text(tsc).contains("may cross-check"));
}

#[test]
fn hlt_in_a_guest_exits_to_the_host_and_is_not_called_shallow() {
    // No cpuidle driver in the guest: idle vCPUs execute HLT.
    let vm = report_of(&linux_tree("vm-kvm-2cpu"));
    let states = one(&vm, "cpuidle.states");
    assert_eq!(states["severity"], "warn");
    let text = audit_support::text(states);
    assert!(!text.contains("shallow state"), "{text}");
    assert!(
        text.contains(
            "HLT, which in a virtual machine is not a shallow idle state: it exits to the host"
        ),
        "{text}"
    );
    assert!(text.contains("halt_poll_ns"), "{text}");
    let remedy = states["remedy"].as_str().unwrap();
    assert!(
        remedy.contains("cpuidle_haltpoll.force=1") && remedy.contains("idle=poll"),
        "{remedy}"
    );
    assert!(
        text.contains("/sys/devices/system/cpu/cpuidle/current_driver = none"),
        "{text}"
    );
    // The older capture runs the cpuidle-haltpoll driver: the guest polls first, then halts.
    let old = report_of(&linux_tree("vm-2cpu"));
    let states = one(&old, "cpuidle.states");
    assert_eq!(states["severity"], "info");
    let text = audit_support::text(states);
    assert!(
        text.contains("first poll in the guest (cpuidle-haltpoll")
            && text.contains("exits to the host"),
        "{text}"
    );
    // Bare metal: HLT is the shallow state it is.
    for tree in BARE_METAL {
        let report = report_of(&linux_tree(tree));
        let text = audit_support::text(one(&report, "cpuidle.states"));
        assert!(
            text.contains("a shallow state") && !text.contains("exits to the host"),
            "{tree}: {text}"
        );
        let off = audit_support::text(one(&report, "cmdline.cpuidle.off"));
        assert!(off.contains("a shallow state"), "{tree}: {off}");
    }
    // The same idle parameters on the guest: idle=poll is the guest's remedy, cpuidle.off=1
    // leaves HLT, C1 is HLT.
    let line = TempFile::new(
        "guest-idle",
        "idle=poll cpuidle.off=1 processor.max_cstate=1\n",
    );
    let report = audit(&[
        "--root",
        &linux_tree("vm-kvm-2cpu"),
        "--cmdline",
        line.as_str(),
        "--json",
    ])
    .json();
    let idle = one(&report, "cmdline.idle");
    assert_eq!(idle["severity"], "ok");
    assert!(audit_support::text(idle).contains("never execute HLT"));
    let off = one(&report, "cmdline.cpuidle.off");
    assert_eq!(off["severity"], "info");
    assert!(audit_support::text(off).contains("exits to the host"));
    let c1 = audit_support::text(one(&report, "cmdline.processor.max_cstate"));
    assert!(
        c1.contains("is HLT: it exits to the host") && !c1.contains("about a microsecond"),
        "{c1}"
    );
}

/// A tree holding `dev/cpu_dma_latency` at 0 and the captured process `pid` of `vm-kvm-2cpu`,
/// with its `fd/3` link to `/dev/cpu_dma_latency` if `linked`.
fn dma_tree(pid: u32, linked: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let source = std::path::PathBuf::from(linux_tree("vm-kvm-2cpu"));
    for relative in [
        "proc/cmdline".to_owned(),
        "dev/cpu_dma_latency".to_owned(),
        format!("proc/{pid}/stat"),
        format!("proc/{pid}/status"),
    ] {
        let target = dir.path().join(&relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(source.join(&relative), target).unwrap();
    }
    if linked {
        let fd = dir.path().join(format!("proc/{pid}/fd"));
        std::fs::create_dir_all(&fd).unwrap();
        std::os::unix::fs::symlink("/dev/cpu_dma_latency", fd.join("3")).unwrap();
    }
    dir
}

#[test]
fn the_holders_of_cpu_dma_latency_are_named() {
    // Captured: cyclictest and the capture helper held it open at 0 µs.
    let vm = report_of(&linux_tree("vm-kvm-2cpu"));
    let dma = one(&vm, "cpuidle.dma_latency");
    assert_eq!(dma["severity"], "ok");
    let text = audit_support::text(dma);
    assert!(
        text.starts_with("cyclictest (PID 19413) and capture-714ed3b (PID 31236) hold /dev/cpu_dma_latency at 0 µs"),
        "{text}"
    );
    assert!(text.contains("only while they keep it open"), "{text}");
    assert!(
        text.contains("/proc/*/fd/* -> /dev/cpu_dma_latency = open in cyclictest (PID 19413) and capture-714ed3b (PID 31236)"),
        "{text}"
    );
    // Held by a measurement only: the limit ends with it.
    let tree = dma_tree(19413, true);
    let report = report_of(tree.path().to_str().unwrap());
    let dma = one(&report, "cpuidle.dma_latency");
    assert_eq!(dma["severity"], "info");
    let text = audit_support::text(dma);
    assert!(text.starts_with("cyclictest (PID 19413) holds"), "{text}");
    assert!(
        text.contains("only while it keeps it open") && text.contains("a measurement holds it"),
        "{text}"
    );
    assert!(
        dma["remedy"]
            .as_str()
            .unwrap()
            .contains("the real-time application should hold it itself")
    );
    // Held, but by no process found.
    let tree = dma_tree(19413, false);
    let report = report_of(tree.path().to_str().unwrap());
    let dma = one(&report, "cpuidle.dma_latency");
    assert_eq!(dma["severity"], "info");
    let text = audit_support::text(dma);
    assert!(text.contains("none was found holding it open"), "{text}");
    assert!(text.contains("= no process has it open"), "{text}");
}

#[test]
fn steal_time_is_rated_by_its_share() {
    let tree = |stat: &str| {
        let dir = tempfile::tempdir().unwrap();
        for (relative, text) in [
            (
                "proc/cpuinfo",
                "processor\t: 0\nflags\t\t: fpu tsc hypervisor\n",
            ),
            ("proc/stat", stat),
        ] {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    };
    for (stat, severity, words) in [
        (
            "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0 0 0\n",
            "ok",
            "No steal time since boot",
        ),
        (
            "cpu  100 0 100 799 0 0 0 1 0 0\ncpu0 100 0 100 799 0 0 0 1 0 0\n",
            "warn",
            "0.01 s of CPU time",
        ),
        (
            "cpu  100 0 100 750 0 0 0 50 0 0\ncpu0 100 0 100 750 0 0 0 50 0 0\n",
            "fail",
            "(steal time, 5.00 % of all CPU time",
        ),
    ] {
        let dir = tree(stat);
        let report = report_of(dir.path().to_str().unwrap());
        let steal = one(&report, "vm.steal");
        assert_eq!(steal["severity"], severity, "{stat}");
        assert!(
            audit_support::text(steal).contains(words),
            "{}",
            audit_support::text(steal)
        );
        // The VM finding carries the same figure.
        let guest = audit_support::text(one(&report, "vm.guest"));
        assert!(guest.contains("/proc/stat = cpu steal"), "{guest}");
        assert!(
            guest.contains("the hypervisor does not name itself"),
            "{guest}"
        );
    }
    // Not in the kernel's format: a finding, not a panic.
    let dir = tree("cpu 1 2\n");
    let report = report_of(dir.path().to_str().unwrap());
    let steal = one(&report, "vm.steal");
    assert_eq!(steal["severity"], "warn");
    assert!(audit_support::text(steal).contains("malformed"));
}

#[test]
fn only_reports_the_ids_asked_for_and_accounts_for_each() {
    // The findings of a captured machine, all of them and then three ids of them.
    let root = linux_tree("hp-t630");
    let all = report_of(&root);
    let asked = [
        "cmdline.irqaffinity",
        "cmdline.processor.max_cstate",
        "irq.on_isolated",
        "vm.no_such_check",
    ];
    let run = audit(&["--root", &root, "--only", &asked.join(","), "--json"]);
    let report = run.json();
    check_summary(&report, run.code);
    let picked: Vec<(String, String)> = pairs(&report);
    // In the full report's order, the same severities, and each id asked for once at least.
    let expected: Vec<(String, String)> = pairs(&all)
        .into_iter()
        .filter(|(id, _)| asked.contains(&id.as_str()))
        .chain([("vm.no_such_check".to_string(), "info".to_string())])
        .collect();
    assert_eq!(picked, expected);
    for id in asked {
        assert!(picked.iter().any(|(p, _)| p == id), "{id}: {picked:?}");
    }
    let unknown = findings(&report)
        .iter()
        .find(|f| f["id"] == "vm.no_such_check")
        .unwrap()
        .clone();
    assert!(
        unknown["title"]
            .as_str()
            .unwrap()
            .starts_with("nothing to judge"),
        "{unknown}"
    );
    // A malformed id is refused in one line, status 2, nothing printed on stdout.
    let bad = audit(&["--root", &root, "--only", "irq", "--json"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.is_empty());
    assert_eq!(bad.stderr.lines().count(), 1, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("'irq' is not a finding id"),
        "{}",
        bad.stderr
    );
}

/// `threads.kernel_unbound`'s remedy moves the running threads with taskset whatever the line,
/// and adds `nohz_full=` (what confines new kernel threads) only where the line lacks it.
#[test]
fn the_kernel_unbound_remedy_holds_with_nohz_full_and_with_isolcpus_alone() {
    let root = linux_tree("hp-t630");
    let remedy_of = |report: &Value| -> String {
        one(report, "threads.kernel_unbound")["remedy"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // The running line has nohz_full=3 already.
    let remedy = remedy_of(&audit(&["--root", &root, "--json"]).json());
    assert!(
        remedy.starts_with("move the running ones: taskset -pc 0-2 PID"),
        "{remedy}"
    );
    assert!(
        remedy.contains("nohz_full=3 is on the command line"),
        "{remedy}"
    );
    assert!(
        !remedy.contains("kthreadd first") && !remedy.contains("until nohz_full="),
        "{remedy}"
    );
    // isolcpus= alone: nohz_full= is what keeps new kernel threads off the isolated CPU.
    let line = TempFile::new("isolcpus-only", "isolcpus=managed_irq,domain,3\n");
    let report = audit(&["--root", &root, "--cmdline", line.as_str(), "--json"]).json();
    let remedy = remedy_of(&report);
    assert!(
        remedy.starts_with("move the running ones: taskset -pc 0-2 PID"),
        "{remedy}"
    );
    assert!(
        remedy.contains("until nohz_full=3 is on the kernel command line"),
        "{remedy}"
    );
}
