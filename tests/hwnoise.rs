//! `rtlat hwnoise` on this machine, as a user runs it. The development machines' kernel has
//! no hwlat tracer, so these run the poll method (and check that the tracer's absence is
//! said, and `--method hwlat` refused); the tracer itself runs on Debian's PREEMPT_RT kernels
//! under QEMU (tests/rt_guest).

use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::Value;

fn json_of(text: &str) -> Value {
    let start = text
        .find("{\n")
        .expect("a JSON document on standard output");
    serde_json::from_str(&text[start..]).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// hwlatdetect's lines as its third-party readers take them: the value after `label:`,
/// trimmed.
fn line_value<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find_map(|l| {
            Some(
                l.trim_start()
                    .strip_prefix(label)?
                    .strip_prefix(':')?
                    .trim(),
            )
        })
        .unwrap_or_else(|| panic!("no `{label}:` line in {text}"))
}

fn tracefs_offers_hwlat() -> bool {
    ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
        .iter()
        .any(|dir| {
            std::fs::read_to_string(format!("{dir}/available_tracers"))
                .is_ok_and(|t| t.split_whitespace().any(|t| t == "hwlat"))
        })
}

#[test]
fn the_poll_method_reports_per_cpu_figures_that_add_up() {
    let _one = measuring();
    let cpu = explained_cpu().to_string();
    let out = rtlat_command(
        "hwnoise",
        &[
            "--method",
            "poll",
            "--duration",
            "2",
            "--window",
            "100ms",
            "--width",
            "50ms",
            "--cpu-list",
            &cpu,
            "--json",
            "-",
        ],
        None,
        Duration::from_secs(60),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let text = &out.stdout;
    // hwlatdetect's parameter block and result lines.
    assert!(
        text.starts_with("rtlat hwnoise:  test duration 2 seconds\n"),
        "{text}"
    );
    assert!(text.contains("   detector: poll\n"), "{text}");
    assert_eq!(line_value(text, "Sample window"), "100000us");
    assert_eq!(line_value(text, "Sample width"), "50000us");
    assert_eq!(line_value(text, "Non-sampling period"), "50000us");
    let doc = json_of(text);
    let max_line = line_value(text, "Max Latency");
    match doc["max_latency_us"].as_u64() {
        None => assert_eq!(max_line, "Below threshold"),
        Some(us) => assert_eq!(max_line, format!("{us}us")),
    }
    assert_eq!(
        line_value(text, "Samples recorded"),
        doc["samples_recorded"].to_string()
    );
    assert_eq!(
        line_value(text, "Samples exceeding threshold"),
        doc["samples_exceeding"].to_string()
    );

    // The figures add up.
    assert_eq!(doc["method"], "poll");
    assert_eq!(doc["lower_bounds"], true);
    let per_cpu = doc["per_cpu"].as_array().unwrap();
    assert_eq!(per_cpu.len(), 1);
    let c = &per_cpu[0];
    assert_eq!(c["cpu"].to_string(), cpu);
    let n = |key: &str| c[key].as_u64().unwrap_or_else(|| panic!("{key}: {c}"));
    let (spikes, gaps, events) = (n("spikes"), n("gaps_above_threshold"), n("linux_events"));
    assert!(spikes <= gaps, "{c}");
    assert!(
        spikes >= gaps.saturating_sub(events),
        "each event explains one gap at most: {c}"
    );
    // 2 s of 100 ms windows: at most 20 widths (21 with rounding), each a sample at most.
    assert!(n("samples") <= 21, "{c}");
    assert!(n("samples") <= spikes);
    let sampled = c["sampled_s"].as_f64().unwrap();
    assert!(sampled > 0.0 && sampled <= 1.1, "{c}");
    assert_eq!(n("allocations"), 0, "the polling loop allocates nothing");
    match (c["max_us"].as_u64(), c["largest_gap_us"].as_u64()) {
        (Some(max), Some(largest)) => {
            assert!(max <= largest, "{c}");
            assert!(max > doc["threshold_us"].as_u64().unwrap(), "{c}");
            assert!(n("total_us") >= max);
        }
        (None, _) => assert_eq!(spikes, 0, "{c}"),
        (Some(_), None) => panic!("a spike without a gap: {c}"),
    }
    assert_eq!(doc["samples_exceeding"].as_u64().unwrap(), spikes);
    assert_eq!(doc["samples"].as_array().unwrap().len(), 0);
}

#[test]
fn a_thread_that_takes_the_cpu_from_the_loop_is_given_to_linux() {
    let _one = measuring();
    let cpu = explained_cpu();
    let spin = Duration::from_millis(40);
    let mut hog = Hog::new(cpu, 50, spin);
    // The loop below the hog (FIFO 1): the hog preempts it, a context switch the loop counts.
    let running = spawn(
        &rtlat(),
        &[
            "hwnoise",
            "--method",
            "poll",
            "--priority",
            "1",
            "--duration",
            "3",
            "--window",
            "1s",
            "--width",
            "900ms",
            "--cpu-list",
            &cpu.to_string(),
            "--json",
            "-",
        ],
        None,
    );
    // Released while the polling thread is in a width: running, with 200 ms of CPU time
    // already spent (its set-up and the looks around a width take far less; only polling
    // burns that much), which is inside the first 900 ms width.
    let until = Instant::now() + Duration::from_secs(30);
    let ticks = |stat: &str| -> Option<(char, u64)> {
        let rest = stat.rsplit_once(") ")?.1;
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let state = fields.first()?.chars().next()?;
        // utime and stime: fields 14 and 15 of stat, 11 and 12 after the name.
        let cpu = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some((state, cpu))
    };
    let ticks_per_s = 100;
    let polling = loop {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", running.pid()))
            .map(|d| d.flatten().collect::<Vec<_>>())
            .unwrap_or_default();
        let in_width = tasks.iter().any(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim() == "rtlat-hwnoise-0")
                && std::fs::read_to_string(t.path().join("stat"))
                    .ok()
                    .and_then(|s| ticks(&s))
                    .is_some_and(|(state, cpu)| state == 'R' && cpu >= ticks_per_s / 5)
        });
        if in_width || Instant::now() > until {
            break in_width;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(polling, "the polling thread polls");
    hog.release();
    let out = running.finish(Duration::from_secs(60));
    drop(hog);
    assert_eq!(out.code(), 0, "{}\n{}", out.stdout, out.stderr);
    let doc = json_of(&out.stdout);
    let c = &doc["per_cpu"][0];
    let largest = c["largest_gap_us"].as_u64().unwrap();
    assert!(
        largest >= spin.as_micros() as u64 / 2,
        "the hog's {spin:?} is a gap: {c}"
    );
    assert!(c["linux_events"].as_u64().unwrap() >= 1, "{c}");
    // The hog's gap is Linux's: none left over is as long.
    assert!(
        c["max_us"].as_u64().is_none_or(|max| max < largest),
        "the hog's gap was not given to Linux: {c}"
    );
}

#[test]
fn the_tracers_absence_is_said_and_method_hwlat_refused_where_it_is_absent() {
    if tracefs_offers_hwlat() {
        // A kernel with the tracer: --method auto would use it; this machine's kernel is
        // not such a kernel, tests/rt_guest runs those.
        let help = run(
            &rtlat(),
            &["hwnoise", "--help"],
            None,
            Duration::from_secs(30),
        );
        assert_eq!(help.code(), 0);
        return;
    }
    let _one = measuring();
    let cpu = explained_cpu().to_string();
    let out = rtlat_command(
        "hwnoise",
        &[
            "--duration",
            "1",
            "--window",
            "20ms",
            "--width",
            "10ms",
            "--cpu-list",
            &cpu,
            "--json",
            "-",
        ],
        None,
        Duration::from_secs(60),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("   detector: poll (no tracer: "),
        "{}",
        out.stdout
    );
    let doc = json_of(&out.stdout);
    let why = doc["method_reason"].as_str().unwrap();
    assert!(why.contains("hwlat") || why.contains("tracefs"), "{why}");
    let refused = run(
        &rtlat(),
        &["hwnoise", "--method", "hwlat", "--duration", "1"],
        None,
        Duration::from_secs(30),
    );
    refused.assert_refused(&["--method", "hwlat"], "--method poll");
    assert!(refused.stdout.is_empty(), "{}", refused.stdout);
}

#[test]
fn bad_input_is_refused_in_one_line_with_status_2() {
    for (args, says) in [
        (vec!["--threshold", "1.5us"], "whole µs"),
        (vec!["--window", "2h"], "1 hour"),
        (vec!["--method", "tsc"], "auto, hwlat or poll"),
        (
            vec!["--cpu-list", "100000", "--method", "poll"],
            "--cpu-list",
        ),
        (vec!["--json", "/nonexistent-dir/x.json"], "--json"),
        (vec!["--report", "/nonexistent-dir/r.txt"], "--report"),
        (vec!["--watch"], "--watch"),
        (vec!["--frobnicate"], "frobnicate"),
    ] {
        let mut all = vec!["hwnoise"];
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
        &["hwnoise", "--help"],
        None,
        Duration::from_secs(30),
    );
    assert_eq!(help.code(), 0);
    assert!(help.stdout.contains("mean time between spikes"));
}
