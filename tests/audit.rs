//! `rtlat audit` through the binary on the captured and constructed machine trees, the four
//! real command lines, the JSON shape, the exit statuses, and the live machine.

mod audit_support;

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
            ("kernel.preempt_rt", "fail"),
            ("kernel.clocksource", "ok"),
            ("cmdline.unknown_param", "info"),
            ("cmdline.unknown_param", "info"),
            ("cmdline.unknown_param", "info"),
            ("cmdline.isolcpus", "info"),
            ("cmdline.tsc", "info"),
            ("cmdline.skew_tick", "info"),
            ("cpufreq.absent", "info"),
            ("cpuidle.states", "ok"),
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
    let report = audit(&["--root", &linux_tree("hp-t630"), "--json"]).json();
    let keys: Vec<&str> = report
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["root", "cmdline", "findings", "summary"]);
    assert_eq!(report["cmdline"]["source"], "/proc/cmdline");
    assert_eq!(report["cmdline"]["running"], true);
    for finding in findings(&report) {
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
}
