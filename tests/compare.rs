//! `rtlat compare` through the binary: the tables and verdicts on real files (the same
//! cyclictest run as JSON and as -h text compares to zero change; two real rtlat runs), the
//! verdict line's exact format, `--json`, and exit status 2 with one line naming the file for
//! missing, unknown and malformed files or too few of them.

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use common::{Outcome, TempDir, rtlat, run};

const QUICK: Duration = Duration::from_secs(20);

fn peers() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/peers")
}

/// `rtlat compare ARGS` in tests/data/peers.
fn compare(args: &[&str]) -> Outcome {
    common::rtlat_command("compare", args, Some(&peers()), QUICK)
}

fn json(out: &Outcome) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// The metrics of a series in `compare --json` output, by name.
fn metric<'a>(doc: &'a serde_json::Value, series: usize, name: &str) -> &'a Vec<serde_json::Value> {
    doc["series"][series]["metrics"][name]
        .as_array()
        .unwrap_or_else(|| panic!("no {name} in series {series}"))
}

#[test]
fn same_cyclictest_run_as_text_and_json_compares_to_no_change() {
    let out = compare(&["cyclictest-h200-q.txt", "cyclictest-2thr-hist.json"]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("B cyclictest-2thr-hist.json: worst case 380.0 µs → 380.0 µs (±0.0 %)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("T0") && out.stdout.contains("T1"));

    let out = compare(&[
        "cyclictest-h200-q.txt",
        "cyclictest-2thr-hist.json",
        "--json",
    ]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc = json(&out);
    assert_eq!(doc["matched_by"], "label");
    assert_eq!(doc["files"][0]["format"], "cyclictest-hist");
    assert_eq!(doc["files"][1]["format"], "cyclictest-json");
    for series in 0..2 {
        for name in ["cycles", "min", "p50", "p99", "p99.9", "max"] {
            let cells = metric(&doc, series, name);
            assert_eq!(cells[1]["change"], 0, "T{series} {name}: {cells:?}");
            assert_eq!(cells[1]["change_percent"], 0.0, "T{series} {name}");
        }
        // The text format's average is whole µs: less than 1 µs apart.
        let avg = metric(&doc, series, "avg");
        assert!(avg[1]["change"].as_f64().unwrap().abs() < 1000.0);
        // cyclictest cannot count overruns: said, not invented.
        let overruns = metric(&doc, series, "overruns");
        assert!(
            overruns[1]["missing"]
                .as_str()
                .unwrap()
                .contains("cyclictest")
        );
    }
    assert_eq!(doc["verdicts"][0]["change_percent"], 0.0);
    assert_eq!(
        doc["verdicts"][0]["text"],
        "worst case 380.0 µs → 380.0 µs (±0.0 %)"
    );
}

#[test]
fn two_real_rtlat_runs() {
    let out = compare(&["rtlat-2thr-h200.json", "rtlat-2thr-i1000.json"]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    // 259973 ns and 429258 ns worst cases.
    assert!(
        out.stdout
            .contains("B rtlat-2thr-i1000.json: worst case 260.0 µs → 429.3 µs (+65.1 %)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("log-linear buckets, within 0.78 %"));

    let doc = json(&compare(&[
        "rtlat-2thr-h200.json",
        "rtlat-2thr-i1000.json",
        "--json",
    ]));
    assert_eq!(metric(&doc, 0, "cycles")[0]["value"], 3000);
    assert_eq!(metric(&doc, 0, "cycles")[1]["value"], 2000);
    assert_eq!(metric(&doc, 0, "cycles")[1]["change"], -1000);
    assert_eq!(metric(&doc, 0, "overruns")[0]["value"], 0);
    // rtlat's own p99 (written in the file) is what compare reports.
    let p99 = &metric(&doc, 0, "p99")[0];
    assert_eq!(p99["value_ns"], 47_871);
    let bucket = p99["bucket_ns"].as_array().unwrap();
    assert!(bucket[0].as_i64().unwrap() <= 47_871 && 47_871 <= bucket[1].as_i64().unwrap());
}

#[test]
fn the_same_rtlat_run_as_json_and_histogram_text() {
    let doc = json(&compare(&[
        "rtlat-2thr-h200.json",
        "rtlat-2thr-h200.txt",
        "--json",
    ]));
    for series in 0..2 {
        assert_eq!(metric(&doc, series, "cycles")[1]["change"], 0);
        assert_eq!(metric(&doc, series, "overruns")[1]["change"], 0);
        // ns against whole µs: within one µs.
        for name in ["min", "max", "p50", "p99"] {
            let change = metric(&doc, series, name)[1]["change"].as_f64().unwrap();
            assert!(change.abs() <= 1000.0, "T{series} {name}: {change}");
        }
    }
}

#[test]
fn verdict_line_format() {
    let dir = TempDir::new("compare-verdict");
    let xenomai = |max: &str| {
        format!(
            "RTT|  00:00:01  (periodic user-mode task, 100 us period, priority 99)\n\
             RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst\n\
             RTD|      1.000|      2.000|{max:>11}|       0|     0|      1.000|{max:>11}\n\
             RTS|      1.000|      2.000|{max:>11}|       0|     0|    00:00:01/00:00:01\n"
        )
    };
    std::fs::write(dir.join("before.txt"), xenomai("4070.000")).unwrap();
    std::fs::write(dir.join("after.txt"), xenomai("457.500")).unwrap();
    let out = run(
        &rtlat(),
        &["compare", "before.txt", "after.txt"],
        Some(dir.path()),
        QUICK,
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let line = out.stdout.lines().last().unwrap();
    assert_eq!(
        line,
        "B after.txt: worst case 4070.0 µs → 457.5 µs (\u{2212}88.8 %)"
    );
    // No histogram in Xenomai output without -h: percentiles say so.
    assert!(
        out.stdout.contains("n/a (no histogram in before.txt)"),
        "{}",
        out.stdout
    );
}

#[test]
fn no_histogram_is_said_not_invented() {
    let out = compare(&["cyclictest-2thr-hist.json", "cyclictest-2thr-ns.json"]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let p99 = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("p99 "))
        .unwrap();
    assert!(
        p99.contains("n/a (no histogram in cyclictest-2thr-ns.json)"),
        "{p99}"
    );
    let doc = json(&compare(&[
        "cyclictest-2thr-hist.json",
        "cyclictest-2thr-ns.json",
        "--json",
    ]));
    assert!(metric(&doc, 0, "p50")[1].get("value_ns").is_none());
}

#[test]
fn overflows_are_reported_as_bounds() {
    let dir = TempDir::new("compare-bound");
    // 90 samples in 5 buckets, 10 beyond the 5 µs histogram: p99 is among the overflows.
    let text = "# Histogram\n000000 000000\n000001 000030\n000002 000030\n000003 000020\n\
                000004 000010\n# Total: 000000090\n# Min Latencies: 00001\n\
                # Avg Latencies: 00003\n# Max Latencies: 00042\n# Histogram Overflows: 00010\n\
                # Histogram Overflow at cycle number:\n# Thread 0: 00001 # 00009 others\n";
    std::fs::write(dir.join("a.txt"), text).unwrap();
    std::fs::write(dir.join("b.txt"), text).unwrap();
    let out = run(
        &rtlat(),
        &["compare", "a.txt", "b.txt"],
        Some(dir.path()),
        QUICK,
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let p99 = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("p99 "))
        .unwrap();
    assert!(p99.contains(">= 5.0 µs"), "{p99}");
    let p50 = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("p50 "))
        .unwrap();
    assert!(p50.contains("2.5 µs"), "{p50}");
}

#[test]
fn different_labels_are_compared_in_order_and_said_so() {
    let out = compare(&["jitterdebugger-results.json", "cyclictest-h400-2thr.txt"]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("series compared in order"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("CPU0 / T0"));
    let doc = json(&compare(&[
        "jitterdebugger-results.json",
        "cyclictest-h400-2thr.txt",
        "--json",
    ]));
    assert_eq!(doc["matched_by"], "order");
}

#[test]
fn xenomai_output_and_gnuplot_file_of_one_run_agree() {
    let doc = json(&compare(&[
        "xenomai-latency-hs.txt",
        "xenomai-latency-gnuplot.txt",
        "--json",
    ]));
    for name in [
        "cycles", "min", "avg", "p50", "p99", "p99.9", "max", "overruns",
    ] {
        assert_eq!(metric(&doc, 0, name)[1]["change"], 0, "{name}");
    }
    assert_eq!(metric(&doc, 0, "cycles")[0]["value"], 7987);
}

/// Exit status 2 and exactly one line on stderr, naming the file and what was wrong.
fn refused(out: &Outcome, needles: &[&str]) {
    assert_eq!(
        out.code(),
        2,
        "stdout: {}\nstderr: {}",
        out.stdout,
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    for n in needles {
        assert!(out.stderr.contains(n), "{n:?} not in {}", out.stderr);
    }
}

#[test]
fn bad_files_exit_2_naming_the_file() {
    let dir = TempDir::new("compare-bad");
    std::fs::write(dir.join("b.txt"), "hello\nworld\n").unwrap();
    std::fs::write(dir.join("empty.txt"), "").unwrap();
    std::fs::write(dir.join("binary.dat"), [0u8, 159, 146, 150, 255]).unwrap();
    std::fs::write(
        dir.join("broken.json"),
        "{\n  \"thread\": {\n    \"0\": [1,\n}\n",
    )
    .unwrap();
    let cut = std::fs::read_to_string(peers().join("cyclictest-h400-2thr.txt")).unwrap();
    let cut: String = cut.lines().take(50).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("cut.txt"), cut).unwrap();
    let good = peers().join("cyclictest-2thr-hist.json");
    let good = good.to_str().unwrap();
    let in_dir = |args: &[&str]| common::rtlat_command("compare", args, Some(dir.path()), QUICK);

    let out = in_dir(&[good, "b.txt"]);
    refused(&out, &[]);
    assert_eq!(
        out.stderr.trim_end(),
        "rtlat compare: b.txt: not a latency result: expected rtlat/cyclictest JSON, \
         cyclictest -h histogram, jitterdebugger results.json or Xenomai latency output \
         (first line: \"hello\")"
    );
    refused(
        &in_dir(&["nope.json", good]),
        &["rtlat compare: nope.json: no such file"],
    );
    refused(&in_dir(&[good, "empty.txt"]), &["empty.txt", "empty"]);
    refused(
        &in_dir(&[good, "binary.dat"]),
        &["binary.dat", "binary content"],
    );
    refused(
        &in_dir(&["broken.json", good]),
        &["broken.json", "invalid JSON at line 4"],
    );
    refused(&in_dir(&[good, "cut.txt"]), &["cut.txt", "Min Latencies"]);
    std::fs::copy(
        peers().join("cyclictest-verbose.txt"),
        dir.join("verbose.txt"),
    )
    .unwrap();
    refused(
        &in_dir(&[good, "verbose.txt"]),
        &["verbose.txt", "not a latency result", "cyclictest -v"],
    );
}

#[test]
fn inputs_are_bounded_and_refused_naming_the_limit() {
    let dir = TempDir::new("compare-bounds");
    let good = peers().join("cyclictest-2thr-hist.json");
    let good = good.to_str().unwrap();
    // An endless device: refused at its first bytes, not read until memory runs out.
    refused(
        &compare(&["/dev/zero", good]),
        &["/dev/zero", "binary content"],
    );
    // A file beyond the bound (sparse: no disk used) is refused before it is read.
    let huge = dir.join("huge.txt");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((256 << 20) + 1)
        .unwrap();
    refused(
        &compare(&[good, huge.to_str().unwrap()]),
        &[
            "huge.txt",
            "larger than 256 MiB, the most rtlat reads of such a file",
        ],
    );
    refused(&compare(&[good, "/"]), &["/:", "directory"]);
}

#[test]
fn a_wide_cyclictest_histogram_is_streamed_with_its_rows_read() {
    // 200 000 rows (-h 200000), two threads, a count in three of them: read line by line,
    // the same figures as the text parsed whole.
    let dir = TempDir::new("compare-wide");
    let mut text = String::from("# Histogram\n");
    for bucket in 0..200_000u32 {
        let count = match bucket {
            7 => 5,
            8 => 3,
            199_998 => 1,
            _ => 0,
        };
        text.push_str(&format!("{bucket:06} {count:06}\t{count:06}\n"));
    }
    text.push_str(
        "# Total: 000000009 000000009\n# Min Latencies: 00007 00007\n\
         # Avg Latencies: 00007 00007\n# Max Latencies: 199998 199998\n\
         # Histogram Overflows: 00000 00000\n# Histogram Overflow at cycle number:\n\
         # Thread 0:\n# Thread 1:\n",
    );
    std::fs::write(dir.join("wide.txt"), &text).unwrap();
    let from_file = rtlat_formats::read_file(&dir.join("wide.txt")).unwrap();
    let from_text = rtlat_formats::parse(&text).unwrap();
    assert_eq!(from_file.series, from_text.series);
    assert_eq!(from_file.series.len(), 2);
    assert_eq!(from_file.series[0].max, Some(199_998_000));
    let buckets = from_file.series[0].histogram.as_ref().unwrap();
    assert_eq!(buckets.count(), 9);
    assert_eq!(buckets.buckets().len(), 3);
}

#[test]
fn too_few_files_or_unknown_options_exit_2() {
    refused(&compare(&[]), &["at least two"]);
    refused(
        &compare(&["cyclictest-2thr-hist.json"]),
        &["at least two", "got 1"],
    );
    refused(
        &compare(&[
            "cyclictest-2thr-hist.json",
            "cyclictest-h200-q.txt",
            "--frobnicate",
        ]),
        &["unknown option '--frobnicate'"],
    );
    let help = compare(&["--help"]);
    assert_eq!(help.code(), 0);
    assert!(help.stdout.contains("Usage: rtlat compare"));
    assert!(
        help.stdout
            .contains("Files from rtlat run --explain also get their explained spikes"),
        "{}",
        help.stdout
    );
}

/// rtlat-2thr-h200.json with what `rtlat run --explain` adds to its thread 0: seven spikes
/// (in the order they happened) above a p99.9 threshold, the maximum among them.
fn with_spikes() -> serde_json::Value {
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(peers().join("rtlat-2thr-h200.json")).unwrap())
            .unwrap();
    let causes = |texts: &[&str]| -> serde_json::Value {
        texts
            .iter()
            .map(|t| serde_json::json!({"text": t, "audit": null, "score": 1000}))
            .collect()
    };
    let max_causes = serde_json::json!([
        {"text": "IRQ 24 (enp1s0) fired 3× on CPU 0: move it with rtlat irq --away-from 0",
         "audit": "irq-affinity", "score": 90000},
        {"text": "ksoftirqd/0 (SCHED_OTHER) ran 120 µs on CPU 0", "audit": null, "score": 80000},
        {"text": "CPU 0 left idle state C6 (exit latency 133 µs): limit C-states",
         "audit": "idle-states", "score": 70000},
    ]);
    let rtlat = &mut doc["thread"]["0"]["rtlat"];
    rtlat["explain"] = serde_json::json!({
        "threshold_ns": 177151, "threshold_from": "p99.9", "above_threshold": 9,
        "left_off": 2, "unseen": 1, "sampler_period_ns": 1000000, "sampler_cpus": [1],
        "tracer": "absent: no osnoise tracer in this kernel"
    });
    rtlat["spikes"] = serde_json::json!([
        {"cycle": 120, "latency": 180000, "t": 0.12, "cpu": 0, "max": false,
         "causes": causes(&["timer softirq on CPU 0"])},
        {"cycle": 400, "latency": 190000, "t": 0.4, "cpu": 0, "max": false, "causes": []},
        {"cycle": 700, "latency": 200000, "t": 0.7, "cpu": 0, "max": false,
         "causes": causes(&["r1", "r2", "r3", "r4"])},
        {"cycle": 1000, "latency": 259973, "t": 1.0, "cpu": 0, "max": true,
         "causes": max_causes},
        {"cycle": 1500, "latency": 185000, "t": 1.5, "cpu": null, "max": false, "causes": [],
         "unexplained": "the evidence was no longer kept"},
        {"cycle": 2000, "latency": 178000, "t": 2.0, "cpu": 0, "max": false,
         "causes": causes(&["x"])},
        {"cycle": 2500, "latency": 177500, "t": 2.5, "cpu": 0, "max": false,
         "causes": causes(&["y"])},
    ]);
    doc
}

/// `rtlat compare a.json b.json [--json]` in a folder of its own where b.json is `b`.
fn compare_with(tag: &str, b: &str, args: &[&str]) -> Outcome {
    let dir = TempDir::new(tag);
    std::fs::copy(peers().join("rtlat-2thr-h200.json"), dir.join("a.json")).unwrap();
    std::fs::write(dir.join("b.json"), b).unwrap();
    let mut all = vec!["a.json", "b.json"];
    all.extend_from_slice(args);
    common::rtlat_command("compare", &all, Some(dir.path()), QUICK)
}

#[test]
fn explained_spikes_follow_the_tables_worst_first_with_ranked_causes() {
    let plain = std::fs::read_to_string(peers().join("rtlat-2thr-h200.json")).unwrap();
    let before = compare_with("compare-plain", &plain, &[]);
    assert_eq!(before.code(), 0, "{}", before.stderr);
    assert!(!before.stdout.contains("Spikes"), "{}", before.stdout);
    let spiky = with_spikes().to_string();
    let after = compare_with("compare-spikes", &spiky, &[]);
    assert_eq!(after.code(), 0, "{}", after.stderr);
    // The tables and verdicts as they were, then the spikes: per file and thread the count
    // above the threshold and its origin, the worst five (of seven), each with its first
    // three causes, "no cause found" for [] and the reason where there is no verdict.
    let section = after
        .stdout
        .strip_prefix(before.stdout.as_str())
        .unwrap_or_else(|| panic!("the tables changed:\n{}", after.stdout));
    assert_eq!(
        section,
        "
Spikes explained (rtlat run --explain), the worst 5 per thread first
B b.json
  T0: 9 latencies above 177.2 µs (threshold: the thread's p99.9); 2 not kept, 1 not seen by the explainer
    260.0 µs at 1.000 s on CPU 0, cycle 1000 (max)
      1. IRQ 24 (enp1s0) fired 3× on CPU 0: move it with rtlat irq --away-from 0 [audit: irq-affinity]
      2. ksoftirqd/0 (SCHED_OTHER) ran 120 µs on CPU 0
      3. CPU 0 left idle state C6 (exit latency 133 µs): limit C-states [audit: idle-states]
    200.0 µs at 0.700 s on CPU 0, cycle 700
      1. r1
      2. r2
      3. r3
      … 1 more cause
    190.0 µs at 0.400 s on CPU 0, cycle 400
      no cause found
    185.0 µs at 1.500 s on CPU unknown, cycle 1500
      no verdict: the evidence was no longer kept
    180.0 µs at 0.120 s on CPU 0, cycle 120
      1. timer softirq on CPU 0
    … 2 more spikes (rtlat compare --json lists them all)
"
    );

    // --json: the same document plus the spikes of the file that has them, all of them.
    let plain_doc = json(&compare_with("compare-plain-json", &plain, &["--json"]));
    let mut doc = json(&compare_with("compare-spikes-json", &spiky, &["--json"]));
    assert!(doc["files"][0].get("explained").is_none());
    let explained = doc["files"][1]
        .as_object_mut()
        .unwrap()
        .remove("explained")
        .unwrap();
    assert_eq!(doc, plain_doc, "nothing else changes");
    assert_eq!(explained.as_array().unwrap().len(), 1, "T1 has no spikes");
    assert_eq!(explained[0]["series"], "T0");
    assert_eq!(explained[0]["explain"]["threshold_ns"], 177151);
    assert_eq!(explained[0]["explain"]["threshold_from"], "p99.9");
    assert_eq!(explained[0]["explain"]["above_threshold"], 9);
    let spikes = explained[0]["spikes"].as_array().unwrap();
    assert_eq!(spikes.len(), 7, "in the order they happened");
    assert_eq!(spikes[3]["latency_ns"], 259973);
    assert_eq!(spikes[3]["t_s"], 1.0);
    assert_eq!(spikes[3]["max"], true);
    assert_eq!(spikes[3]["causes"][0]["audit"], "irq-affinity");
    assert_eq!(spikes[1]["causes"], serde_json::json!([]));
    assert_eq!(spikes[4]["cpu"], serde_json::Value::Null);
    assert_eq!(spikes[4]["unexplained"], "the evidence was no longer kept");
}

#[test]
fn malformed_spikes_refuse_the_file_naming_the_key() {
    let mut doc = with_spikes();
    doc["thread"]["0"]["rtlat"]["spikes"][2]["causes"] = serde_json::json!("IRQ");
    let out = compare_with("compare-bad-spikes", &doc.to_string(), &[]);
    refused(&out, &[]);
    assert_eq!(
        out.stderr.trim_end(),
        "rtlat compare: b.json: key \"thread.0.rtlat.spikes[2].causes\": expected an array, \
         found a string (\"IRQ\")"
    );
    let mut doc = with_spikes();
    doc["thread"]["0"]["rtlat"]["spikes"] = serde_json::json!({"latency": 5});
    refused(
        &compare_with("compare-bad-spikes-2", &doc.to_string(), &[]),
        &["b.json", "thread.0.rtlat.spikes", "expected an array"],
    );
}

/// Two real runs whose tuning differs (the CPU and priority measured, the load beside):
/// each file carries the machine's provenance, and the verdict lists what changed beside
/// the worst case's change, in the text and in `--json`.
#[test]
fn two_runs_carry_their_tuning_and_compare_says_what_changed() {
    let _serial = common::measuring();
    let dir = TempDir::new("provenance");
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (file, cpu, priority, load) in [(&a, "0", "80", None), (&b, "1", "95", Some("make -j2"))] {
        let mut args = vec![
            "-t", "1", "-a", cpu, "-p", priority, "-i", "1000", "-l", "200", "-q", "--json",
        ];
        args.push(file.to_str().unwrap());
        if let Some(load) = load {
            args.extend(["--load", load]);
        }
        let out = common::rtlat_run(&args, None, QUICK);
        assert_eq!(out.code(), 0, "{}", out.stderr);
    }
    // The provenance as the machine shows it: the running kernel, the measured CPU's IRQs.
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    let provenance = &doc["rtlat"]["provenance"];
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(provenance["kernel_release"], release.trim());
    assert_eq!(provenance["load"], "make -j2");
    let cmdline = std::fs::read_to_string("/proc/cmdline").unwrap();
    assert_eq!(provenance["kernel_cmdline"], cmdline.trim());
    for (irq, affinity) in provenance["irqs_on_measured_cpus"].as_object().unwrap() {
        let list = rtlat_linux::cpuset::CpuSet::parse(affinity.as_str().unwrap()).unwrap();
        assert!(list.contains(1), "IRQ {irq}: {affinity}");
    }
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = common::rtlat_command("compare", &[a, b], None, QUICK);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let verdict = out
        .stdout
        .lines()
        .skip_while(|l| !(l.starts_with("B ") && l.contains(": worst case")))
        .collect::<Vec<_>>();
    assert!(verdict[0].ends_with(", with:"), "{}", out.stdout);
    assert!(
        verdict.contains(&"    load: none → make -j2"),
        "{}",
        out.stdout
    );
    assert!(
        verdict
            .iter()
            .any(|l| l.starts_with("    config.threads: ") && l.contains("\"priority\":95")),
        "{}",
        out.stdout
    );
    let doc = json(&common::rtlat_command(
        "compare",
        &[a, b, "--json"],
        None,
        QUICK,
    ));
    let changes = doc["verdicts"][0]["tuning_changes"].as_array().unwrap();
    let load = changes.iter().find(|c| c["key"] == "load").unwrap();
    assert_eq!(
        (&load["from"], &load["to"]),
        (&serde_json::Value::Null, &serde_json::json!("make -j2"))
    );
    // The same file twice: nothing changed, nothing said.
    let out = common::rtlat_command("compare", &[a, a], None, QUICK);
    assert!(!out.stdout.contains(", with:"), "{}", out.stdout);
}
