//! `--backend xenomai` for real: rtlat built with its `xenomai` feature against Xenomai
//! 3.3.1's Mercury core (Xenomai's APIs over Linux threads, which run on this kernel; built
//! from ../shared by `common::xenomai`) measures through Alchemy tasks and their periodic
//! timers, beside Xenomai's own `latency` with the same options; built against the Cobalt
//! core it links and refuses cleanly on this kernel, which has no Cobalt. A binary built
//! without the feature (the one the other tests run) refuses the option with the remedy.
//! Structure, counts and statuses only: latency values are printed for the record, never
//! compared (a loaded 2-core VM).
//!
//! What cannot run here: a Cobalt kernel (primary mode, mode switches, the real-time
//! figures Cobalt gives). Mercury is the closest real thing.

use crate::common;
use crate::latency::{block_order, kind, shape};

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use common::xenomai::{Core, real_latency, rtlat_on};
use common::{Outcome, TempDir, measuring, rtlat, run, spawn};
use serde_json::Value;

const LONG: Duration = Duration::from_secs(120);

/// `rtlat ARGS` with `binary`, to the end.
fn rtlat_with(binary: &Path, args: &[&str]) -> Outcome {
    let out = run(binary, args, None, LONG);
    out.code();
    out
}

/// Each line kind's set of shapes (values replaced by their printf shape).
fn shapes(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut shapes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text.lines() {
        shapes
            .entry(kind(line).to_string())
            .or_default()
            .insert(shape(line));
    }
    shapes
}

/// The `RTS|` line's min, avg and max (µs).
fn rts(text: &str) -> [f64; 3] {
    let line = text
        .lines()
        .find(|l| l.starts_with("RTS|"))
        .unwrap_or_else(|| panic!("no RTS| line in\n{text}"));
    let f: Vec<f64> = line
        .split('|')
        .skip(1)
        .take(3)
        .map(|v| v.trim().parse().unwrap())
        .collect();
    [f[0], f[1], f[2]]
}

#[test]
fn latency_on_xenomai_prints_xenomais_lines_beside_xenomais_own() {
    if !common::xenomai::here(
        common::xenomai::Core::Mercury,
        "--backend xenomai (tests/xenomai_backend.rs)",
    ) {
        return;
    }
    let ours_binary = rtlat_on(Core::Mercury);
    let _serial = measuring();
    let dir = TempDir::new("xenomai-latency");
    let (their_plot, our_plot) = (dir.join("theirs.plot"), dir.join("ours.plot"));
    let args = ["-T", "4", "-p", "1000", "-c", "0", "-g"];
    let mut theirs_args = args.to_vec();
    theirs_args.push(their_plot.to_str().unwrap());
    let theirs = run(&real_latency(), &theirs_args, None, LONG);
    let mut with_backend = vec!["latency", "--backend", "xenomai"];
    with_backend.extend(args);
    with_backend.push(our_plot.to_str().unwrap());
    let ours = rtlat_with(&ours_binary, &with_backend);
    assert_eq!(theirs.code(), 0, "{}", theirs.stderr);
    assert_eq!(ours.code(), 0, "{}", ours.stderr);
    // The same blocks in the same order, each line of a kind Xenomai prints with a shape
    // Xenomai's lines of that kind have (widths, decimals, separators).
    assert_eq!(block_order(&ours.stdout), block_order(&theirs.stdout));
    let theirs_shapes = shapes(&theirs.stdout);
    for (kind, ours) in shapes(&ours.stdout) {
        let known = theirs_shapes.get(&kind);
        for s in &ours {
            // The header names the test's period and priority the same way; a value whose
            // width differs (e.g. a 4-digit maximum) is still Xenomai's printf shape.
            assert!(
                known.is_some_and(|k| k.contains(s)) || kind == "RTD|" || kind == "RTS|",
                "{kind} {s}: not among Xenomai's {known:?}"
            );
        }
    }
    for line in ours.stdout.lines().filter(|l| kind(l) == "RTD|") {
        assert_eq!(line.split('|').count(), 8, "{line}");
    }
    // The gnuplot header has Xenomai's keys, naming rtlat's Xenomai backend and its core.
    let (their_plot, our_plot) = (
        std::fs::read_to_string(their_plot).unwrap(),
        std::fs::read_to_string(our_plot).unwrap(),
    );
    let keys = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("# ") && l.contains(": "))
            .map(|l| l.split(": ").next().unwrap().to_string())
            .collect()
    };
    assert_eq!(keys(&our_plot), keys(&their_plot), "{our_plot}");
    assert!(
        our_plot
            .lines()
            .any(|l| l.starts_with("# Xenomai version: rtlat/xenomai v")
                && l.contains("(Xenomai 3, mercury core")),
        "{our_plot}"
    );
    assert!(
        our_plot.contains("# Build args: --backend=xenomai "),
        "{our_plot}"
    );
    let (t, o) = (rts(&theirs.stdout), rts(&ours.stdout));
    eprintln!(
        "RTS| min/avg/max µs: Xenomai latency {t:?}, rtlat --backend xenomai {o:?} (ratios {:.2} {:.2} {:.2})",
        o[0] / t[0],
        o[1] / t[1],
        o[2] / t[2]
    );
}

/// The threads of `pid`: (name, policy, real-time priority).
fn threads_of(pid: i32) -> Vec<(String, i64, i64)> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|t| {
            let comm = std::fs::read_to_string(t.path().join("comm")).ok()?;
            let stat = std::fs::read_to_string(t.path().join("stat")).ok()?;
            // After the parenthesised name: field 3 is the state; rt_priority is field 40,
            // policy 41.
            let rest: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            Some((
                comm.trim().to_string(),
                rest.get(38)?.parse().ok()?,
                rest.get(37)?.parse().ok()?,
            ))
        })
        .collect()
}

#[test]
fn as_latency_the_sampling_thread_is_an_alchemy_task_and_ctrl_c_ends_the_run() {
    if !common::xenomai::here(
        common::xenomai::Core::Mercury,
        "--backend xenomai (tests/xenomai_backend.rs)",
    ) {
        return;
    }
    let binary = rtlat_on(Core::Mercury);
    let _serial = measuring();
    // Under the drop-in name `latency`, a binary built with Xenomai measures on it without
    // being asked, as the `latency` it stands in for.
    let dir = TempDir::new("xenomai-as-latency");
    let latency = dir.join("latency");
    std::os::unix::fs::symlink(&binary, &latency).unwrap();
    // A 1 s period: the task spends its time in rt_task_wait_period, where SIGINT must find
    // it and end the run at once, with the summary.
    let child = spawn(&latency, &["-p", "1000000", "-P", "77"], None);
    let until = Instant::now() + Duration::from_secs(30);
    let mut task = None;
    while task.is_none() && Instant::now() < until {
        task = threads_of(child.pid())
            .into_iter()
            .find(|(name, _, _)| name == "rtlat-0");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Xenomai names the thread after its task (rtlat-0), SCHED_FIFO (1) at -P.
    assert_eq!(
        task,
        Some(("rtlat-0".to_string(), 1, 77)),
        "{:?}",
        threads_of(child.pid())
    );
    assert!(
        child.wait_for_stdout("warming up", LONG),
        "{}",
        child.stderr_so_far()
    );
    std::thread::sleep(Duration::from_millis(300));
    child.signal(libc::SIGINT);
    let (out, after) = child.finish_within(Duration::from_secs(20));
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().filter(|l| l.starts_with("RTS|")).count(),
        1
    );
    // Well before the next release a second away would have ended the wait.
    eprintln!("ended {after:?} after SIGINT");
}

/// The run's JSON.
fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn run_on_xenomai_prints_the_same_lines_and_json() {
    if !common::xenomai::here(
        common::xenomai::Core::Mercury,
        "--backend xenomai (tests/xenomai_backend.rs)",
    ) {
        return;
    }
    let binary = rtlat_on(Core::Mercury);
    let _serial = measuring();
    let dir = TempDir::new("xenomai-run");
    let file = dir.join("run.json");
    let out = rtlat_with(
        &binary,
        &[
            "run",
            "--backend",
            "xenomai",
            "-t",
            "2",
            "-p",
            "80",
            "-i",
            "1000",
            "-l",
            "300",
            "-q",
            "--json",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    // cyclictest's T: lines, one per thread, the first with its 300 cycles.
    let t: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("T: "))
        .collect();
    assert_eq!(t.len(), 2, "{}", out.stdout);
    assert!(t[0].contains("C:    300"), "{}", t[0]);
    let linux = rtlat_with(
        &rtlat(),
        &["run", "-t", "2", "-p", "80", "-i", "1000", "-l", "50", "-q"],
    );
    let shape_of = |l: &str| {
        l.split_whitespace()
            .map(|w| {
                if w.bytes().any(|b| b.is_ascii_digit()) {
                    "9"
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let linux_t: Vec<String> = linux
        .stdout
        .lines()
        .filter(|l| l.starts_with("T: "))
        .map(shape_of)
        .collect();
    assert_eq!(t.iter().map(|l| shape_of(l)).collect::<Vec<_>>(), linux_t);
    let doc = json(&file);
    let config = &doc["rtlat"]["config"];
    assert_eq!(config["backend"], "xenomai");
    assert_eq!(config["xenomai_core"], "mercury");
    for index in ["0", "1"] {
        let thread = &doc["thread"][index];
        let extra = &thread["rtlat"];
        // Xenomai's own overrun count, beside rtlat's, from Xenomai's timer only.
        assert!(extra["xenomai_overruns"].is_u64(), "{extra}");
        assert!(extra["seconds"].is_object(), "{extra}");
        assert!(thread["cycles"].as_u64().unwrap() > 0, "{thread}");
    }
    // The Linux backend's JSON names its backend and has no Xenomai keys.
    let linux_file = dir.join("linux.json");
    rtlat_with(
        &rtlat(),
        &[
            "run",
            "-t",
            "1",
            "-l",
            "20",
            "-i",
            "1000",
            "-q",
            "--json",
            linux_file.to_str().unwrap(),
        ],
    );
    let doc = json(&linux_file);
    assert_eq!(doc["rtlat"]["config"]["backend"], "linux");
    assert!(doc["rtlat"]["config"].get("xenomai_core").is_none());
    assert!(
        doc["thread"]["0"]["rtlat"]
            .get("xenomai_overruns")
            .is_none()
    );
}

#[test]
fn a_period_too_short_for_the_machine_overruns_on_both_counts() {
    if !common::xenomai::here(
        common::xenomai::Core::Mercury,
        "--backend xenomai (tests/xenomai_backend.rs)",
    ) {
        return;
    }
    let binary = rtlat_on(Core::Mercury);
    let _serial = measuring();
    let dir = TempDir::new("xenomai-overruns");
    let file = dir.join("run.json");
    // 1 µs: every wake-up takes longer than that, so releases pass while the task runs.
    let out = rtlat_with(
        &binary,
        &[
            "run",
            "--backend",
            "xenomai",
            "-t",
            "1",
            "-p",
            "80",
            "-i",
            "1",
            "-l",
            "3000",
            "-q",
            "--json",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc = json(&file);
    let thread = &doc["thread"]["0"];
    let rtlat_count = thread["rtlat"]["overruns"].as_u64().unwrap();
    let xenomai_count = thread["rtlat"]["xenomai_overruns"].as_u64().unwrap();
    assert!(rtlat_count > 0, "{thread}");
    assert!(xenomai_count > 0, "{thread}");
    eprintln!("3000 cycles of 1 µs: rtlat counted {rtlat_count} overruns, Xenomai {xenomai_count}");
}

#[test]
fn built_against_cobalt_it_links_and_refuses_cleanly_without_the_core() {
    if !common::xenomai::here(
        common::xenomai::Core::Cobalt,
        "--backend xenomai (tests/xenomai_backend.rs)",
    ) {
        return;
    }
    let binary = rtlat_on(Core::Cobalt);
    let ldd = std::process::Command::new("ldd")
        .arg(&binary)
        .output()
        .unwrap();
    let ldd = String::from_utf8_lossy(&ldd.stdout);
    assert!(ldd.contains("libcobalt.so"), "{ldd}");
    assert!(ldd.contains("libalchemy.so"), "{ldd}");
    assert!(!ldd.contains("not found"), "{ldd}");
    let _serial = measuring();
    for args in [
        &["latency", "--backend", "xenomai", "-T", "1"][..],
        &["run", "--backend", "xenomai", "-l", "10"][..],
    ] {
        let out = rtlat_with(&binary, args);
        out.assert_refused(
            &args,
            "--backend xenomai: Cobalt core not enabled in this kernel",
        );
        assert_eq!(out.stdout, "", "{args:?}");
    }
    // The Linux backend of the same binary measures as usual.
    let out = rtlat_with(&binary, &["run", "-t", "1", "-l", "50", "-i", "1000", "-q"]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().filter(|l| l.starts_with("T: ")).count(),
        1
    );
}

#[test]
fn without_the_feature_xenomai_is_refused_with_the_remedy() {
    let remedy = "--backend xenomai: this rtlat was built without Xenomai; build it with the xenomai feature against a Xenomai 3 install: XENO_CONFIG=/usr/xenomai/bin/xeno-config cargo build --release --features xenomai";
    for (args, name) in [
        (
            &["latency", "--backend", "xenomai", "-T", "1"][..],
            "rtlat latency",
        ),
        (
            &["run", "--backend", "xenomai", "-l", "10"][..],
            "rtlat run",
        ),
    ] {
        let out = run(&rtlat(), args, None, LONG);
        assert_eq!(out.code(), 2, "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr, format!("{name}: {remedy}\n"));
        assert_eq!(out.stdout, "", "{args:?}");
    }
    // What the option cannot go with is refused as typed, whatever the build.
    for (args, fragment) in [
        (
            &["run", "--backend", "xenomai", "-r"][..],
            "--backend xenomai",
        ),
        (
            &["run", "--backend", "xenomai", "--timer", "posix"][..],
            "--timer posix",
        ),
        (
            &["run", "--backend", "xenomai", "-c", "1"][..],
            "-c/--clock",
        ),
        (
            &["run", "--backend", "xenomai", "--policy", "rr"][..],
            "--policy rr",
        ),
        (
            &["run", "--backend", "cobalt"][..],
            "expected one of linux, xenomai",
        ),
        (
            &["latency", "--backend", "rt"][..],
            "expected one of linux, xenomai",
        ),
    ] {
        run(&rtlat(), args, None, LONG).assert_refused(&args, fragment);
    }
    // Under the name cyclictest it is rtlat's own option, refused by name.
    let alias = common::Alias::new();
    run(&alias.path(), &["--backend", "xenomai"], None, LONG)
        .assert_refused(&"cyclictest --backend", "--backend is an rtlat option");
}
