//! `rtlat audit --suggest --isolate CPUS` through the binary: the exact line for a fixture,
//! the GRUB line, refusals, and the round trip (the suggested line, audited with `--cmdline`,
//! has no command-line finding worse than info).

use crate::audit_support;

use audit_support::{TempFile, audit, audit_tree, findings, fixture, linux_tree};
use rtlat_system::cmdline::KernelCmdline;
use serde_json::Value;

fn suggest_json(root: &str, cmdline: Option<&str>, isolate: &str) -> Value {
    let mut args = vec!["--root", root, "--suggest", "--isolate", isolate, "--json"];
    if let Some(file) = cmdline {
        args.extend(["--cmdline", file]);
    }
    let run = audit(&args);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    run.json()
}

#[test]
fn the_line_for_ubuntu_isolcpus_0_4() {
    let s = suggest_json(
        &audit_tree("ubuntu-8cpu"),
        Some(&fixture("ubuntu-isolcpus-0-4")),
        "2-7",
    );
    assert_eq!(
        s["cmdline"],
        "BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic root=UUID=3b1f7c2e-9a0d-4c55-8e61-0f2d7a9c4b11 ro quiet splash \
         isolcpus=managed_irq,domain,2-7 vt.handoff=7 nohz_full=2-7 rcu_nocbs=2-7 rcu_nocb_poll irqaffinity=0-1 skew_tick=1"
    );
    assert_eq!(
        s["grub_line"],
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=managed_irq,domain,2-7 nohz_full=2-7 rcu_nocbs=2-7 \
         rcu_nocb_poll irqaffinity=0-1 skew_tick=1\""
    );
    assert_eq!(s["isolate"], "2-7");
    assert_eq!(s["housekeeping"], "0-1");
    assert_eq!(s["changes"][0]["action"], "changed");
    assert_eq!(
        s["changes"][0]["param"],
        "isolcpus=0,1,2,3,4 → isolcpus=managed_irq,domain,2-7"
    );
    assert_eq!(s["notes"].as_array().unwrap().len(), 0);
    let apply: Vec<&str> = s["apply"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(apply.iter().any(|a| a.contains("sudo update-grub")));
    assert!(
        apply
            .iter()
            .any(|a| a.contains("grub2-mkconfig -o /boot/grub2/grub.cfg"))
    );

    // The text form holds the same lines.
    let run = audit(&[
        "--root",
        &audit_tree("ubuntu-8cpu"),
        "--cmdline",
        &fixture("ubuntu-isolcpus-0-4"),
        "--suggest",
        "--isolate",
        "2-7",
    ]);
    assert_eq!(run.code, 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].starts_with("Kernel command line isolating CPUs 2-7 (housekeeping CPUs 0-1)"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[2].trim(), s["cmdline"].as_str().unwrap());
    assert!(
        run.stdout
            .contains(&format!("  {}\n", s["grub_line"].as_str().unwrap()))
    );
    assert!(run.stdout.contains("nothing was changed"));
}

#[test]
fn isolating_cpu_0_is_allowed_with_a_note_but_not_every_cpu() {
    let s = suggest_json(
        &audit_tree("ubuntu-8cpu"),
        Some(&fixture("ubuntu-isolcpus-0-4")),
        "0-4",
    );
    let notes = s["notes"].as_array().unwrap();
    assert!(
        notes[0].as_str().unwrap().starts_with("CPU 0 is isolated"),
        "{notes:?}"
    );
    assert!(s["cmdline"].as_str().unwrap().contains("irqaffinity=5-7"));

    let run = audit(&[
        "--root",
        &linux_tree("vm-2cpu"),
        "--suggest",
        "--isolate",
        "0-1",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1);
    assert!(
        run.stderr.contains("leaves no housekeeping CPU") && run.stderr.contains("--isolate 1"),
        "{}",
        run.stderr
    );
}

#[test]
fn misspellings_duplicates_and_conflicts_are_fixed() {
    let s = suggest_json(&linux_tree("hp-t630"), None, "3");
    let line = s["cmdline"].as_str().unwrap();
    assert_eq!(
        line,
        "selinux=0 idle=poll transparent_hugepage=never audit=0 nmi_watchdog=0 clocksource=tsc cpuidle.off=1 skew_tick=1 \
         processor.max_cstate=0 intel_idle.max_cstate=0 nohz=on nohz_full=3 isolcpus=managed_irq,domain,3 rcu_nocb_poll \
         acpi_irq_nobalance intel_pstate=disable nosoftlockup tsc=nowatchdog rcu_nocbs=3 irqaffinity=0-2"
    );
    let parsed = KernelCmdline::parse(line);
    assert!(
        parsed.repeated_names().is_empty(),
        "{:?}",
        parsed.repeated_names()
    );
    assert!(!parsed.contains("rcunocbs"));
    let actions: Vec<&str> = s["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "removed",
            "deduplicated",
            "deduplicated",
            "deduplicated",
            "changed",
            "added",
            "added",
            "changed"
        ]
    );
    assert!(
        s["apply"][3]
            .as_str()
            .unwrap()
            .contains("--remove-args=\"rcunocbs\"")
    );
}

/// The suggested line, audited with `--cmdline` on the same root, has no command-line or
/// CPU-set finding worse than info; and it parses back to the same parameters, with each
/// isolation parameter once.
#[test]
fn suggestions_round_trip() {
    let cases = [
        (linux_tree("hp-t630"), Some(fixture("hp-t630")), "3"),
        (linux_tree("hp-t630"), None, "2-3"),
        (
            linux_tree("dell-optiplex-755"),
            Some(fixture("dell-optiplex-755")),
            "1",
        ),
        (linux_tree("vm-2cpu"), None, "1"),
        (
            linux_tree("vm-2cpu"),
            Some(fixture("ubuntu-isolcpus-0-4")),
            "1",
        ),
        (
            audit_tree("ubuntu-8cpu"),
            Some(fixture("ubuntu-default")),
            "4-7",
        ),
        (
            audit_tree("ubuntu-8cpu"),
            Some(fixture("ubuntu-isolcpus-0-4")),
            "1-4",
        ),
        (
            audit_tree("ubuntu-8cpu"),
            Some(fixture("ubuntu-isolcpus-0-4")),
            "3,5,7",
        ),
    ];
    for (root, cmdline, isolate) in &cases {
        let s = suggest_json(root, cmdline.as_deref(), isolate);
        let line = s["cmdline"].as_str().unwrap();
        let parsed = KernelCmdline::parse(line);
        assert_eq!(parsed.to_string(), line, "the line is in the kernel's form");
        assert!(parsed.warnings().is_empty());
        for name in [
            "isolcpus",
            "nohz_full",
            "rcu_nocbs",
            "rcu_nocb_poll",
            "irqaffinity",
            "skew_tick",
        ] {
            assert_eq!(parsed.all(name).count(), 1, "{name} in {line}");
        }
        assert_eq!(
            parsed.value("isolcpus"),
            Some(format!("managed_irq,domain,{}", s["isolate"].as_str().unwrap()).as_str())
        );
        assert_eq!(parsed.value("irqaffinity"), s["housekeeping"].as_str());

        // The GRUB value is the line without what GRUB adds.
        let grub = KernelCmdline::parse(s["grub_cmdline_linux_default"].as_str().unwrap());
        let without: Vec<_> = parsed
            .params()
            .iter()
            .filter(|p| {
                !["BOOT_IMAGE", "root", "ro", "vt.handoff"]
                    .iter()
                    .any(|n| p.is_named(n))
            })
            .cloned()
            .collect();
        assert_eq!(grub.params(), without.as_slice());

        let file = TempFile::new("round-trip", &format!("{line}\n"));
        let run = audit(&["--root", root, "--cmdline", file.as_str(), "--json"]);
        let report = run.json();
        for finding in findings(&report) {
            let id = finding["id"].as_str().unwrap();
            let severity = finding["severity"].as_str().unwrap();
            if id.starts_with("cmdline.") || id.starts_with("cpus.") {
                assert!(
                    severity == "ok" || severity == "info",
                    "{root} {cmdline:?} --isolate {isolate}: {id} is {severity}: {}\nline: {line}",
                    finding["title"]
                );
            }
        }
    }
}

#[test]
fn a_grub_file_gives_a_grub_line_and_says_what_grub_adds() {
    let grub = TempFile::new(
        "grub",
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\nGRUB_CMDLINE_LINUX=\"console=ttyS0\"\n",
    );
    let s = suggest_json(&audit_tree("ubuntu-8cpu"), Some(grub.as_str()), "6-7");
    assert_eq!(
        s["grub_line"],
        "GRUB_CMDLINE_LINUX_DEFAULT=\"console=ttyS0 quiet splash isolcpus=managed_irq,domain,6-7 nohz_full=6-7 \
         rcu_nocbs=6-7 rcu_nocb_poll irqaffinity=0-5 skew_tick=1\""
    );
    let notes = s["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("comes from a GRUB configuration")
    );
}

/// `--profile-out FILE`: the suggestion as a tuning profile, whose command line is the
/// parameters the suggestion sets, and which `rtlat verify` reads against the same machine:
/// every parameter the machine's line already has is clean, the others drift.
#[test]
fn the_suggestion_as_a_profile_that_verify_reads() {
    let root = linux_tree("hp-t630");
    let dir = std::env::temp_dir().join(format!("rtlat-it-profile-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tune.toml");
    let run = audit(&[
        "--root",
        &root,
        "--suggest",
        "--isolate",
        "3",
        "--json",
        "--profile-out",
        path.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    let suggestion = run.json();
    let text = std::fs::read_to_string(&path).unwrap();
    let profile = rtlat_system::profile::Profile::parse(&text).unwrap();
    // Each parameter the profile names is on the suggested line, and the real-time ones are
    // among them.
    let line: Vec<&str> = suggestion["cmdline"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .collect();
    let params = profile.kernel.unwrap().cmdline;
    for p in &params {
        assert!(line.contains(&p.as_str()), "{p} not on {line:?}");
    }
    for name in ["isolcpus=", "nohz_full=", "rcu_nocbs="] {
        assert!(
            params.iter().any(|p| p.starts_with(name)),
            "{name}: {params:?}"
        );
    }
    assert_eq!(profile.irq.unwrap().away_from, "3");
    let verify = std::process::Command::new(env!("CARGO_BIN_EXE_rtlat"))
        .args(["verify", path.to_str().unwrap(), "--root", &root, "--json"])
        .output()
        .unwrap();
    assert_eq!(
        verify.status.code(),
        Some(1),
        "the tree is not tuned as suggested"
    );
    let report: Value = serde_json::from_slice(&verify.stdout).unwrap();
    let nohz = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "cmdline.nohz_full")
        .unwrap();
    assert_eq!(
        nohz["drift"], false,
        "the tree's line has nohz_full=3: {nohz}"
    );
    // Without --suggest it is refused.
    let refused = audit(&["--root", &root, "--profile-out", path.to_str().unwrap()]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("--profile-out goes with --suggest"),
        "{refused:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
