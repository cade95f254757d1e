//! The measurement threads' promises, checked on real runs through the binary: no allocation
//! and no page fault while measuring (rtlat counts both per thread and writes them into its
//! JSON), every cycle accounted for, and the figures consistent with each other.

use std::process::Command;

fn run_json(tag: &str, extra: &[&str]) -> serde_json::Value {
    let dir = std::env::temp_dir().join(format!("rtlat-mt-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("run.json");
    let mut args = vec![
        "run", "-t", "2", "-p", "80", "-i", "500", "-l", "2000", "-q", "-h", "200",
    ];
    args.extend_from_slice(extra);
    let json_arg = json.to_str().unwrap().to_string();
    args.extend_from_slice(&["--json", &json_arg]);
    let out = Command::new(env!("CARGO_BIN_EXE_rtlat"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rtlat {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    doc
}

fn threads(doc: &serde_json::Value) -> Vec<&serde_json::Value> {
    doc["thread"].as_object().unwrap().values().collect()
}

#[test]
fn measuring_allocates_nothing_and_takes_no_page_fault() {
    let doc = run_json("mlock", &["-m"]);
    for t in threads(&doc) {
        let r = &t["rtlat"];
        assert!(t["cycles"].as_u64().unwrap() > 100, "{t}");
        assert_eq!(
            r["allocations_while_measuring"], 0,
            "allocations in the loop: {r}"
        );
        assert_eq!(
            r["minor_page_faults_while_measuring"], 0,
            "page faults in the loop: {r}"
        );
    }
}

#[test]
fn without_mlockall_the_loop_still_allocates_nothing() {
    let doc = run_json("plain", &[]);
    for t in threads(&doc) {
        assert_eq!(t["rtlat"]["allocations_while_measuring"], 0);
    }
}

#[test]
fn every_cycle_is_in_the_histograms_and_the_figures_agree() {
    let doc = run_json("ns", &["-N"]);
    for t in threads(&doc) {
        let r = &t["rtlat"];
        let cycles = t["cycles"].as_u64().unwrap();
        assert_eq!(r["cycles"], cycles);
        // The log-linear histogram holds every cycle.
        let in_log: u64 = r["histogram"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(in_log, cycles);
        // cyclictest's -h histogram (ns buckets with -N) plus its overflows hold every cycle.
        let in_linear: u64 = t["histogram"]
            .as_object()
            .unwrap()
            .values()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert!(in_linear <= cycles);
        // min ≤ p50 ≤ p99 ≤ max, in ns (-N).
        let (min, max) = (t["min"].as_i64().unwrap(), t["max"].as_i64().unwrap());
        let p50 = r["percentiles"]["p50"].as_i64().unwrap();
        let p99 = r["percentiles"]["p99"].as_i64().unwrap();
        assert!(
            min <= p50 && p50 <= p99 && p99 <= max,
            "{min} {p50} {p99} {max}"
        );
        assert_eq!(
            r["min"].as_i64().unwrap(),
            min,
            "-N: cyclictest's fields are ns too"
        );
        assert_eq!(r["max_cycle"].as_u64().map(|c| c < cycles), Some(true));
    }
}
