//! `rtlat servo`: LinuxCNC's latency-test without HAL, through the binary: the table, the
//! verdict, the JSON, the live redraw, bad input.

mod common;

use std::time::Duration;

use common::{TempDir, measuring};
use serde_json::Value;

fn servo(args: &[&str]) -> common::Outcome {
    common::rtlat_command("servo", args, None, Duration::from_secs(60))
}

#[test]
fn quiet_run_prints_the_table_and_linuxcncs_verdict_and_writes_json() {
    let _guard = measuring();
    let dir = TempDir::new("servo");
    let json = dir.join("servo.json");
    let out = servo(&["-D", "2", "-q", "--json", json.to_str().unwrap()]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    assert!(lines[0].contains("Max Interval (ns)") && lines[0].contains("Max Jitter (ns)"));
    assert!(
        lines[1].starts_with("Servo thread (1.0ms):"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("Base thread (25.0us):"),
        "{}",
        lines[2]
    );
    assert!(lines[3].starts_with("Verdict: max jitter "), "{}", lines[3]);
    assert_eq!(lines[1].len(), lines[0].len(), "columns line up");
    assert_eq!(lines[2].len(), lines[0].len(), "columns line up");

    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["unit"], "ns");
    let mut worst = 0;
    for (name, period) in [("base", 25_000u64), ("servo", 1_000_000)] {
        let t = &doc["threads"][name];
        assert_eq!(t["period_ns"], period);
        assert!(t["ticks"].as_u64().unwrap() > 100, "{t}");
        let (min, max) = (
            t["min_interval"].as_u64().unwrap(),
            t["max_interval"].as_u64().unwrap(),
        );
        let jitter = t["max_jitter"].as_u64().unwrap();
        assert_eq!(
            jitter,
            max.saturating_sub(period).max(period.saturating_sub(min)),
            "LinuxCNC's max jitter"
        );
        assert_eq!(t["allocations_while_measuring"], 0, "{name}");
        // The table shows the same figures.
        let row = lines
            .iter()
            .find(|l| l.to_lowercase().starts_with(name))
            .unwrap();
        let cells: Vec<&str> = row.split("):").nth(1).unwrap().split_whitespace().collect();
        assert_eq!(cells[0], max.to_string());
        assert_eq!(cells[1], jitter.to_string());
        worst = worst.max(jitter);
    }
    assert_eq!(doc["threads"]["base"]["priority"], 98);
    assert_eq!(doc["threads"]["servo"]["priority"], 97);
    let verdict = &doc["verdict"];
    assert_eq!(verdict["max_jitter"], worst);
    let expected = if worst < 20_000 {
        "good"
    } else if worst < 100_000 {
        "limited"
    } else if worst <= 1_000_000 {
        "no_software_stepping"
    } else {
        "unusable"
    };
    assert_eq!(verdict["rating"], expected);
    assert!(lines[3].contains(&format!("max jitter {worst} ns")));
    assert!(lines[3].ends_with(verdict["text"].as_str().unwrap()));
}

#[test]
fn live_mode_redraws_the_table_in_place() {
    let _guard = measuring();
    let out = servo(&[
        "-D", "1", "--base", "100us", "--servo", "2ms", "--json", "-",
    ]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("Base thread (100.0us):"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Servo thread (2.0ms):"));
    assert!(
        out.stdout.matches("\x1b[3A").count() >= 2,
        "redrawn: {}",
        out.stdout
    );
    assert!(out.stdout.contains("Verdict: "));
    // --json - puts the document after the text.
    let doc_at = out.stdout.find("\n{").unwrap() + 1;
    let doc: Value = serde_json::from_str(&out.stdout[doc_at..]).unwrap();
    assert_eq!(doc["threads"]["base"]["period_ns"], 100_000);
}

#[test]
fn bad_input_is_refused_with_one_line_naming_the_option() {
    for (args, needle) in [
        (&["--base", "0"][..], "--base"),
        (&["--base", "500ns"], "1 µs to 1 s"),
        (&["--servo", "2s"], "--servo"),
        (&["--servo", "1.5"], "--servo"),
        (&["--base", "1ms", "--servo", "500us"], "shorter"),
        (&["-D", "0"], "-D/--duration"),
        (&["-D", "10x"], "-D/--duration"),
        (&["--cpu", "x"], "--cpu"),
        (&["--cpu", "4096"], "--cpu"),
        (&["--json"], "needs a value"),
        (&["--json", "/nonexistent-dir/x.json"], "--json"),
        (&["--frobnicate"], "unknown option"),
        (&["25us"], "unexpected argument"),
    ] {
        let out = servo(args);
        assert_eq!(out.code(), 2, "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.starts_with("rtlat servo: ") && out.stderr.contains(needle),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn help_gives_the_verdict_thresholds() {
    let out = servo(&["--help"]);
    assert_eq!(out.code(), 0);
    for text in [
        "--base",
        "--servo",
        "--duration",
        "--quiet",
        "--cpu",
        "--json",
        "20 µs",
        "100 µs",
        "1 ms",
    ] {
        assert!(out.stdout.contains(text), "{text}: {}", out.stdout);
    }
}
