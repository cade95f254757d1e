//! How a run of `rtlat run` is controlled from outside: SIGUSR1 prints the current status and
//! the run goes on; SIGINT and SIGTERM end it cleanly, with the full summary and a complete
//! `--json` file; `--fail-above` turns the worst latency into the exit status.

use crate::common;

use std::time::Duration;

use common::{Json, JsonExt, TempDir, measuring, rtlat, rtlat_run, same_shape};

const T_LINE: &str =
    "T: 0 (12345) P:80 I:1000 C:   1000 Min:     12 Act:   13 Avg:   14 Max:      28";
const MARKER: &str = "#---------------------------";

/// Parses `# Label: 00012 00034` into its numbers.
fn trailer_numbers(stdout: &str, label: &str) -> Vec<u64> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line in:\n{stdout}"));
    line[label.len()..]
        .split_whitespace()
        .map(|n| n.parse().unwrap_or_else(|_| panic!("{line:?}")))
        .collect()
}

fn signal_ends_the_run_cleanly(signal: i32) {
    let _serial = measuring();
    let dir = TempDir::new("signals");
    let json = dir.join("out.json");
    let json_arg = json.display().to_string();
    let args = [
        "run", "-t", "2", "-p", "80", "-i", "1000", "-q", "-h", "100", "--json", &json_arg,
    ];
    let mut child = common::spawn(&rtlat(), &args, None);
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        !child.has_exited(),
        "the run ended by itself: no loop count was given"
    );

    // SIGUSR1: the status block on stderr, and the run goes on.
    child.signal(libc::SIGUSR1);
    let block_end = format!("{MARKER}\n# cyclictest current status:\n");
    assert!(
        child.wait_for_stderr(&block_end, Duration::from_secs(2)),
        "no status block after SIGUSR1: {:?}",
        child.stderr_so_far()
    );
    let complete = |s: &str| s.matches(MARKER).count() >= 2;
    let until = std::time::Instant::now() + Duration::from_secs(2);
    while !complete(&child.stderr_so_far()) && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = child.stderr_so_far();
    let lines: Vec<&str> = status.lines().collect();
    assert_eq!(
        lines.len(),
        5,
        "marker, title, two T: lines, marker: {status:?}"
    );
    assert_eq!(lines[0], MARKER);
    assert_eq!(lines[1], "# cyclictest current status:");
    assert_eq!(lines[4], MARKER);
    for (i, line) in lines[2..4].iter().enumerate() {
        assert!(line.starts_with(&format!("T: {i} (")), "{line:?}");
        assert!(
            same_shape(line, T_LINE),
            "T: line of cyclictest's shape: {line:?}"
        );
        assert!(
            !line.contains("Overruns"),
            "the status block is cyclictest's: {line:?}"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(!child.has_exited(), "SIGUSR1 must not end the run");
    assert!(!json.exists(), "the JSON file is written at the end only");

    // SIGINT / SIGTERM: a clean end (10 s is a hang guard, not a figure: a stop signal is
    // acted on in milliseconds, measured by hand, see tests/stop_signals.rs).
    child.signal(signal);
    let (out, took) = child.finish_within(Duration::from_secs(10));
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(0),
        "exit after signal {signal}: {:?} after {took:?}; stderr: {}",
        out.status,
        out.stderr
    );
    assert!(
        out.stderr.starts_with(&status),
        "nothing else on stderr: {:?}",
        out.stderr
    );

    // The whole histogram and its trailer.
    let stdout = &out.stdout;
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "# /dev/cpu_dma_latency set to 0us");
    assert_eq!(lines[1], "# Histogram");
    for (bucket, line) in lines[2..102].iter().enumerate() {
        assert!(
            same_shape(line, "000012 000675\t000479") && line.starts_with(&format!("{bucket:06} ")),
            "bucket {bucket}: {line:?}"
        );
    }
    let trailer = [
        "# Total:",
        "# Min Latencies:",
        "# Avg Latencies:",
        "# Max Latencies:",
        "# Histogram Overflows:",
        "# Histogram Overflow at cycle number:",
        "# Thread 0:",
        "# Thread 1:",
    ];
    for (line, label) in lines[102..].iter().zip(trailer) {
        assert!(
            line.starts_with(label),
            "{line:?} should start with {label:?}"
        );
    }
    assert!(
        stdout.ends_with("\n\n"),
        "the histogram ends with a blank line"
    );
    let totals = trailer_numbers(stdout, "# Total:");
    let overflows = trailer_numbers(stdout, "# Histogram Overflows:");

    // A complete JSON file, counts matching the text, nothing else left in the folder.
    let text = std::fs::read_to_string(&json).expect("the --json file");
    serde_json::from_str::<serde_json::Value>(&text).expect("valid JSON");
    let doc = Json::parse(&text);
    assert_eq!(doc.at("num_threads").as_i64(), Some(2));
    assert_eq!(doc.at("return_code").as_i64(), Some(0));
    for n in 0..2 {
        let thread = doc.at("thread").at(&n.to_string());
        let cycles = thread.at("cycles").as_i64().unwrap();
        assert!(cycles > 0, "thread {n}: {cycles} cycles");
        assert_eq!(
            cycles as u64,
            totals[n] + overflows[n],
            "thread {n}: JSON cycles = histogram total + overflows"
        );
        let histogram_sum: i64 = match thread.at("histogram") {
            Json::Object(buckets) => buckets.iter().map(|(_, c)| c.as_i64().unwrap()).sum(),
            other => panic!("histogram: {other:?}"),
        };
        assert_eq!(
            histogram_sum as u64, totals[n],
            "thread {n}: JSON histogram sum"
        );
    }
    assert_eq!(dir.names(), ["out.json"], "no temporary file left");
}

#[test]
fn sigusr1_reports_and_sigint_ends_the_run_cleanly() {
    signal_ends_the_run_cleanly(libc::SIGINT);
}

#[test]
fn sigusr1_reports_and_sigterm_ends_the_run_cleanly() {
    signal_ends_the_run_cleanly(libc::SIGTERM);
}

/// A hang-up (the ssh session of a long board run dropped) ends the run as SIGTERM does, so
/// whatever the run changed (governor, frequency, cpu_dma_latency) is restored.
#[test]
fn sigusr1_reports_and_sighup_ends_the_run_cleanly() {
    signal_ends_the_run_cleanly(libc::SIGHUP);
}

/// Runs `--fail-above LIMIT` and checks the exit status against the maximum in the JSON.
fn fail_above(limit_us: u64) -> i32 {
    let dir = TempDir::new("fail-above");
    let json = dir.join("out.json").display().to_string();
    let limit = limit_us.to_string();
    let out = rtlat_run(
        &[
            "-t",
            "1",
            "-p",
            "80",
            "-i",
            "1000",
            "-l",
            "100",
            "-q",
            "--fail-above",
            &limit,
            "--json",
            &json,
        ],
        None,
        Duration::from_secs(20),
    );
    let code = out.code();
    let doc = Json::parse(&std::fs::read_to_string(&json).expect("the --json file"));
    let thread = doc.at("thread").at("0");
    let max_ns = thread
        .at("rtlat")
        .at("max")
        .as_i64()
        .expect("rtlat max, ns");
    let max_us = thread.at("max").as_i64().expect("max, µs");
    assert_eq!(
        max_us,
        max_ns / 1000,
        "cyclictest's max is the ns max truncated"
    );
    let expected = i32::from(max_ns > limit_us as i64 * 1000);
    assert_eq!(
        code, expected,
        "--fail-above {limit_us}: max {max_ns} ns, exit {code}; stderr: {}",
        out.stderr
    );
    assert_eq!(doc.at("return_code").as_i64(), Some(i64::from(code)));
    // The summary is printed either way.
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.starts_with("T: 0 ("))
            .count(),
        1
    );
    if code == 1 {
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{:?}", out.stderr);
        assert!(lines[0].contains("--fail-above"), "{:?}", lines[0]);
    } else {
        assert!(out.stderr.is_empty(), "{:?}", out.stderr);
    }
    code
}

#[test]
fn fail_above_sets_the_exit_status_from_the_worst_latency() {
    let _serial = measuring();
    // No wake-up on a VM is within 1 µs of its deadline, but the JSON decides.
    let code = fail_above(1);
    if code == 0 {
        eprintln!("note: the maximum stayed within 1 µs");
    }
    assert_eq!(fail_above(3_600_000_000), 0, "nothing is an hour late");
}

/// The members of process group `group` that are running (zombies aside: an orphan's waits
/// for whoever reaps it).
fn group_members(group: i32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // Fields 3 (state) and 5 (pgrp), after the parenthesised comm.
            let mut fields = stat
                .rsplit_once(')')
                .map_or("", |(_, r)| r)
                .split_whitespace();
            let state = fields.next();
            let pgrp = fields.nth(1).and_then(|g| g.parse::<i32>().ok());
            state != Some("Z") && pgrp == Some(group)
        })
        .count()
}

/// `--load stress-ng`: rtlat's built-in load runs beside the run (stress-ng's workers in a
/// process group of their own, said on stdout), is recorded in the JSON's provenance as the
/// command it ran, and is gone once the run ends. CI installs stress-ng.
#[test]
fn the_built_in_load_runs_beside_the_run_and_ends_with_it() {
    let _serial = measuring();
    let path = std::env::var_os("PATH").unwrap_or_default();
    if !std::env::split_paths(&path).any(|d| d.join("stress-ng").is_file()) {
        eprintln!("NOT RUN: stress-ng is not installed (apt-get install stress-ng)");
        return;
    }
    let dir = TempDir::new("load");
    let json = dir.join("load.json");
    let json_arg = json.display().to_string();
    let args = [
        "run",
        "-t",
        "1",
        "-p",
        "80",
        "-i",
        "1000",
        "-D",
        "3",
        "-q",
        "--load",
        "stress-ng",
        "--json",
        &json_arg,
    ];
    let child = common::spawn(&rtlat(), &args, None);
    // The group, from the line rtlat prints as it starts the load.
    let started = std::time::Instant::now();
    let mut group = None;
    while group.is_none() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
        group = child
            .stdout_so_far()
            .lines()
            .find_map(|l| l.split("(process group ").nth(1))
            .and_then(|rest| rest.split(')').next())
            .and_then(|pid| pid.parse::<i32>().ok());
    }
    let group = group.expect("no `# load:` line naming the process group");
    // stress-ng's workers beside the measuring thread.
    while group_members(group) < 2 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        group_members(group) >= 2,
        "stress-ng's workers did not start"
    );
    let out = child.finish(Duration::from_secs(30));
    assert_eq!(out.code(), 0, "{}", out.stderr);
    // The leader is reaped when rtlat returns; a worker's own child, orphaned as the group
    // ends, may still be on its way out (bounded: it got the same SIGTERM).
    let ended = std::time::Instant::now();
    while group_members(group) > 0 && ended.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(group_members(group), 0, "stress-ng outlived the run");
    let doc = Json::parse(&std::fs::read_to_string(&json).unwrap());
    let load = doc
        .at("rtlat")
        .at("provenance")
        .at("load")
        .as_str()
        .unwrap();
    assert!(
        load.starts_with("stress-ng --cpu 0 ") && load.ends_with("--timeout 13s"),
        "{load}"
    );
}
