//! `rtlat noise`: oslat's busy-poll measurement, run as a user runs it, beside the real oslat
//! (rt-tests), with a SCHED_FIFO hog the gaps must show.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::Value;

/// oslat's block as a third-party parser reads it: each `label:` line's label and its
/// whitespace-separated values (the unit in parentheses left out), in order.
fn oslat_block(text: &str) -> Vec<(String, Vec<String>)> {
    let start = text
        .find("        Core:")
        .expect("oslat's block starts with Core:");
    text[start..]
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.trim() != "...")
        .map(|line| {
            let (label, values) = line.split_once(":\t").expect(line);
            let values = values
                .split_whitespace()
                .take_while(|v| !v.starts_with('('))
                .map(str::to_owned)
                .collect();
            (label.trim().to_owned(), values)
        })
        .collect()
}

fn real_oslat() -> PathBuf {
    let path = PathBuf::from("/usr/bin/oslat");
    assert!(
        path.is_file(),
        "the real oslat is not installed, so rtlat noise cannot be compared with it: run `apt-get install rt-tests`"
    );
    path
}

fn json_file(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_block_and_the_json_have_oslats_shape_beside_the_real_oslat() {
    let _one = measuring();
    let dir = TempDir::new("noise");
    let cpu = explained_cpu().to_string();
    let (ours_json, real_json) = (dir.join("ours.json"), dir.join("real.json"));
    let ours = rtlat_command(
        "noise",
        &[
            "-D",
            "1",
            "-c",
            &cpu,
            "-b",
            "16",
            "--json",
            ours_json.to_str().unwrap(),
        ],
        None,
        Duration::from_secs(60),
    );
    assert_eq!(ours.code(), 0, "{}", ours.stderr);
    let real = run(
        &real_oslat(),
        &[
            "-D",
            "1",
            "-c",
            &cpu,
            "-b",
            "16",
            &format!("--json={}", real_json.display()),
        ],
        None,
        Duration::from_secs(60),
    );
    assert_eq!(real.code(), 0, "{}", real.stderr);

    // The same rows, labels and columns, in the same order.
    let (ours_block, real_block) = (oslat_block(&ours.stdout), oslat_block(&real.stdout));
    let labels = |b: &[(String, Vec<String>)]| {
        b.iter()
            .map(|(l, v)| (l.clone(), v.len()))
            .collect::<Vec<_>>()
    };
    assert_eq!(labels(&ours_block), labels(&real_block), "{}", ours.stdout);
    assert_eq!(ours_block.len(), 2 + 16 + 5);
    assert!(ours.stdout.contains("    016 (us):\t "));
    assert!(
        ours.stdout
            .lines()
            .any(|l| l.ends_with("(including overflows)"))
    );

    // The same JSON keys, top level and per thread (rtlat's own object aside).
    let (ours_doc, real_doc) = (json_file(&ours_json), json_file(&real_json));
    let keys = |v: &Value| {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "rtlat")
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&ours_doc), keys(&real_doc));
    let (ours_thread, real_thread) = (&ours_doc["thread"]["0"], &real_doc["thread"]["0"]);
    assert_eq!(keys(ours_thread), keys(real_thread));
    assert_eq!(ours_thread["cpu"], real_thread["cpu"]);

    // The counts agree: the text's buckets, the JSON's, the exact gaps.
    let rtlat = &ours_thread["rtlat"];
    let gaps = rtlat["gaps"].as_u64().unwrap();
    let in_json: u64 = ours_thread["histogram"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(in_json, gaps);
    let in_text: u64 = ours_block
        .iter()
        .filter(|(l, _)| l.ends_with("(us)"))
        .map(|(_, v)| v[0].parse::<u64>().unwrap())
        .sum();
    assert_eq!(in_text, gaps);
    assert_eq!(
        rtlat["allocations"], 0,
        "the polling loop allocates nothing"
    );
    // oslat's µs are the gap's whole µs plus one.
    let max_ns = rtlat["max"].as_u64().unwrap();
    assert_eq!(ours_thread["max"].as_u64().unwrap(), max_ns / 1000 + 1);
    assert!(rtlat["min"].as_u64().unwrap() <= max_ns);
    assert!(rtlat["spikes"].as_u64().unwrap() <= gaps);
}

#[test]
fn a_fifo_hog_on_the_cpu_is_a_gap_at_least_as_long_as_it_spun() {
    let _one = measuring();
    let cpu = explained_cpu();
    let spin = Duration::from_millis(30);
    let mut hog = Hog::new(cpu, 50, spin);
    let dir = TempDir::new("noise-hog");
    let json = dir.join("hog.json");
    let limit = format!("{}us", spin.as_micros() / 2);
    let running = spawn(
        &rtlat(),
        &[
            "noise",
            "-D",
            "4",
            "-f",
            "1",
            "-c",
            &cpu.to_string(),
            "--fail-above",
            &limit,
            "--json",
            json.to_str().unwrap(),
        ],
        None,
    );
    // The polling thread exists and is SCHED_FIFO 1 from its first step: once it has been
    // there a moment, it polls, and the hog (FIFO 50, same CPU) takes the CPU from it.
    let until = Instant::now() + Duration::from_secs(30);
    let polling = loop {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", running.pid()))
            .map(|d| d.flatten().collect::<Vec<_>>())
            .unwrap_or_default();
        let named = tasks.iter().any(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim() == "rtlat-noise-0")
        });
        if named || Instant::now() > until {
            break named;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(polling, "the polling thread started");
    std::thread::sleep(Duration::from_millis(300));
    let spun = Instant::now();
    hog.release();
    std::thread::sleep(spin);
    let out = running.finish(Duration::from_secs(60));
    drop(hog);
    assert!(spun.elapsed() > spin);
    assert_eq!(
        out.code(),
        1,
        "over --fail-above: {}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stderr.contains("--fail-above"), "{}", out.stderr);
    let doc = json_file(&json);
    let max = doc["thread"]["0"]["rtlat"]["max"].as_u64().unwrap();
    assert!(
        max >= spin.as_nanos() as u64,
        "the hog's {spin:?} on the CPU is one gap: max {max} ns"
    );
    assert_eq!(doc["return_code"], 1);
    assert!(doc["thread"]["0"]["rtlat"]["spikes"].as_u64().unwrap() >= 1);
}

#[test]
fn bad_input_is_refused_in_one_line_with_status_2() {
    for (args, says) in [
        (vec!["-b", "2"], "from 4 to 1024"),
        (vec!["-c", "100000"], "-c/--cpu-list"),
        (vec!["-w", "memmove"], "the only workload"),
        (vec!["-T", "100"], "--fail-above"),
        (vec!["--json", "/nonexistent-dir/x.json"], "--json"),
        (vec!["--frobnicate"], "frobnicate"),
    ] {
        let mut all = vec!["noise"];
        all.extend(args.iter().copied());
        let out = run(&rtlat(), &all, None, Duration::from_secs(30));
        out.assert_refused(&args, says);
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing measured: {}",
            out.stdout
        );
    }
    let help = run(
        &rtlat(),
        &["noise", "--help"],
        None,
        Duration::from_secs(30),
    );
    assert_eq!(help.code(), 0);
    assert!(help.stdout.contains("--cpu-list"));
}
