//! `rtlat run`'s per-second time series in its JSON (`thread.N.rtlat.seconds`): one entry per
//! second from the thread's start, every cycle in exactly one entry, the entries' extremes
//! and overruns adding up to the thread's, and still no allocation while measuring.

use crate::common;

use std::time::Duration;

use common::{TempDir, measuring, rtlat_run};
use serde_json::Value;

fn run_json(args: &[&str]) -> Value {
    let dir = TempDir::new("time-series");
    let json = dir.join("run.json");
    let json_arg = json.to_str().unwrap().to_string();
    let mut all = args.to_vec();
    all.extend_from_slice(&["-q", "--json", &json_arg]);
    let out = rtlat_run(&all, None, Duration::from_secs(60));
    assert_eq!(out.code(), 0, "{}", out.stderr);
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

/// Checks one thread's series against its totals; returns the number of entries.
fn check_thread(t: &Value) -> usize {
    let r = &t["rtlat"];
    let s = &r["seconds"];
    assert_eq!(
        s["period_s"], 1,
        "short runs keep one entry per second: {s}"
    );
    let entries = s["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    for (i, e) in entries.iter().enumerate() {
        let keys: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["t", "cycles", "min", "avg", "max", "overruns"]);
        assert_eq!(e["t"], i as u64, "contiguous seconds from the start");
        if e["cycles"].as_u64().unwrap() > 0 {
            let (min, avg, max) = (
                e["min"].as_i64().unwrap(),
                e["avg"].as_i64().unwrap(),
                e["max"].as_i64().unwrap(),
            );
            assert!(min <= avg && avg <= max, "{e}");
        }
    }
    let sum = |key: &str| -> u64 { entries.iter().map(|e| e[key].as_u64().unwrap()).sum() };
    assert_eq!(
        sum("cycles"),
        r["cycles"].as_u64().unwrap(),
        "every cycle once"
    );
    assert_eq!(sum("overruns"), r["overruns"].as_u64().unwrap());
    let min = entries.iter().filter_map(|e| e["min"].as_i64()).min();
    let max = entries.iter().filter_map(|e| e["max"].as_i64()).max();
    assert_eq!(
        min,
        r["min"].as_i64(),
        "the all-time minimum is a second's minimum"
    );
    assert_eq!(
        max,
        r["max"].as_i64(),
        "the all-time maximum is a second's maximum"
    );
    assert_eq!(
        r["allocations_while_measuring"], 0,
        "the windows allocate nothing"
    );
    entries.len()
}

#[test]
fn a_duration_run_has_one_entry_per_second_per_thread() {
    let _guard = measuring();
    let doc = run_json(&["-t", "2", "-p", "80", "-i", "1000", "-D", "3", "-m"]);
    for t in doc["thread"].as_object().unwrap().values() {
        let n = check_thread(t);
        // Three full seconds and the moment the run took to stop.
        assert!(
            (3..=4).contains(&n),
            "{n} entries: {}",
            t["rtlat"]["seconds"]
        );
        assert_eq!(t["rtlat"]["minor_page_faults_while_measuring"], 0);
    }
}

#[test]
fn a_loop_count_run_ends_with_a_partial_second() {
    let _guard = measuring();
    // 3000 cycles of 500 µs: one and a half seconds of deadlines. How the cycles fall into
    // seconds depends on the machine's load (a late wake-up lands in the next second, a stall
    // skips deadlines as overruns); what holds on any machine is counted in deadlines.
    let doc = run_json(&["-t", "1", "-p", "80", "-i", "500", "-l", "3000"]);
    let t = &doc["thread"]["0"];
    let n = check_thread(t);
    let entries = t["rtlat"]["seconds"]["entries"].as_array().unwrap();
    let deadlines = |e: &Value| e["cycles"].as_u64().unwrap() + e["overruns"].as_u64().unwrap();
    // The last deadline is at least 1.5 s after the start, so the run spans two seconds or more.
    assert!(n >= 2, "{n} entries: {}", t["rtlat"]["seconds"]);
    // A second holds at most the 2000 deadlines of 500 µs that fall in it.
    for e in entries {
        assert!(
            deadlines(e) <= 2000,
            "more deadlines than a second has: {e}"
        );
    }
    // The run ends part-way through its last second: 3000 cycles (and whatever overruns) do not
    // fill every second they span.
    let total: u64 = entries.iter().map(deadlines).sum();
    assert!(
        total < 2000 * n as u64,
        "{total} deadlines fill {n} whole seconds: the last one must be partial"
    );
}

#[test]
fn cyclictest_keys_are_untouched() {
    let _guard = measuring();
    let doc = run_json(&["-t", "1", "-p", "80", "-i", "1000", "-l", "500"]);
    let keys: Vec<&str> = doc["thread"]["0"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "histogram",
            "cycles",
            "min",
            "max",
            "avg",
            "cpu",
            "node",
            "rtlat"
        ],
        "the series lives inside rtlat's own object"
    );
}
