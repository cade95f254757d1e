//! rtlat invoked as `cyclictest` against the real cyclictest (rt-tests 2.40): the same options
//! give output of the same shape, line for line (numbers replaced by their printf width and
//! padding), and the same `--json` keys in the same order. Under the name `cyclictest` rtlat
//! adds nothing of its own; under `rtlat run` its additions are where cyclictest parsers skip
//! them.
//!
//! Needs the real cyclictest (`apt-get install rt-tests`): without it these tests fail.
//! Timing is noisy here (shared VM): nothing below asserts a latency value.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{
    Alias, Json, JsonExt, TempDir, compare_line_sets, compare_lines, json_text_at, measuring,
    real_cyclictest, rtlat_run, run,
};

const LIMIT: Duration = Duration::from_secs(20);

/// How two outputs are compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Compare {
    /// Same lines, each of the same shape.
    Lines,
    /// Same set of line shapes (line counts depend on timing: live refreshes, `-v` of two
    /// threads with different intervals).
    Shapes,
    /// Same set of line shapes once the cursor moves that start a refresh are removed (with
    /// `-M` there may be no refresh at all when the first maximum stays the largest).
    Screens,
}

/// `text` without the `ESC[nA` that start its refreshes.
fn without_cursor_up(text: &str) -> String {
    text.split('\n')
        .map(|line| match line.strip_prefix("\x1b[") {
            Some(rest) => match rest.find('A') {
                Some(at) if rest[..at].bytes().all(|b| b.is_ascii_digit()) => &rest[at + 1..],
                _ => line,
            },
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `args` with the real cyclictest and with rtlat as `cyclictest`, each in a folder of
/// its own (relative output paths land there), and compares exit status, stdout and stderr.
/// Returns the problems found (empty: compatible) and both stdouts.
fn compare(args: &[&str], how: Compare) -> (Vec<String>, String, String) {
    let real = real_cyclictest();
    let alias = Alias::new();
    let (real_dir, our_dir) = (TempDir::new("real"), TempDir::new("ours"));
    let r = run(&real, args, Some(real_dir.path()), LIMIT);
    let o = run(&alias.path(), args, Some(our_dir.path()), LIMIT);
    let what = format!("cyclictest {}", args.join(" "));
    let mut problems = Vec::new();
    if r.code() != o.code() {
        problems.push(format!(
            "{what}: exit status {} (cyclictest) vs {} (rtlat); rtlat stderr: {}",
            r.code(),
            o.code(),
            o.stderr
        ));
    }
    let check = |part: &str, a: &str, b: &str| match how {
        Compare::Lines => compare_lines(&format!("{what} [{part}]"), a, b),
        Compare::Shapes => compare_line_sets(&format!("{what} [{part}]"), a, b),
        Compare::Screens => compare_line_sets(
            &format!("{what} [{part}]"),
            &without_cursor_up(a),
            &without_cursor_up(b),
        ),
    };
    if let Err(e) = check("stdout", &r.stdout, &o.stdout) {
        problems.push(e);
    }
    // Thread number, priority and interval are not timing: the same, exactly.
    let (rp, op) = (
        priorities_and_intervals(&r.stdout),
        priorities_and_intervals(&o.stdout),
    );
    if rp != op {
        problems.push(format!(
            "{what}: thread, priority and interval differ\n  cyclictest: {rp:?}\n  rtlat:      {op:?}"
        ));
    }
    // stderr is compared line by line in every mode: it holds warnings, not samples.
    if let Err(e) = compare_lines(&format!("{what} [stderr]"), &r.stderr, &o.stderr) {
        problems.push(e);
    }
    (problems, r.stdout, o.stdout)
}

/// The distinct `T:NN`, `P:NN` and `I:N` fields of the `T:` lines.
fn priorities_and_intervals(stdout: &str) -> std::collections::BTreeSet<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let at = l.find("T:")?;
            let l = &l[at..];
            let thread = l.get(..4)?;
            let rest = &l[l.find(") P:")? + 2..];
            let end = rest.find(" C:")?;
            Some(format!("{thread} {}", &rest[..end]))
        })
        .collect()
}

/// The `C:` count of thread `n`'s `T:` line.
fn cycles_of_thread(stdout: &str, n: usize) -> Option<u64> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("T:{n:2} (")))?;
    line.split("C:")
        .nth(1)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn assert_no_problems(problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "rtlat as cyclictest differs from cyclictest:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_real_cyclictest_is_installed() {
    // Fails with the install command on a machine without rt-tests.
    let real = real_cyclictest();
    let help = run(&real, &["--help"], None, LIMIT);
    assert!(
        help.stdout.contains("cyclictest V 2.") || help.stderr.contains("cyclictest V 2."),
        "{} is not rt-tests' cyclictest 2.x:\n{}{}",
        real.display(),
        help.stdout,
        help.stderr
    );
}

#[test]
fn quiet_summaries_have_cyclictests_shape() {
    let _serial = measuring();
    let mut problems = Vec::new();
    for args in [
        &["-t", "2", "-p", "80", "-i", "1000", "-l", "200", "-q"][..],
        &["-q", "-N", "-p", "80", "-l", "200"],
        &["-q", "-N", "-t", "2", "-p", "80", "-l", "100"],
        &["-q", "-S", "-p", "80", "-i", "500", "-l", "200", "-m"],
    ] {
        let (p, real, ours) = compare(args, Compare::Lines);
        problems.extend(p);
        // -l N: the first thread does exactly N cycles, in both.
        let loops = args[args.iter().position(|a| *a == "-l").unwrap() + 1];
        for (who, out) in [("cyclictest", &real), ("rtlat", &ours)] {
            if cycles_of_thread(out, 0) != loops.parse::<u64>().ok() {
                problems.push(format!(
                    "{}: {who}: thread 0 did not do -l {loops} cycles:\n{out}",
                    args.join(" ")
                ));
            }
        }
    }
    assert_no_problems(problems);
}

#[test]
fn histograms_have_cyclictests_shape() {
    let _serial = measuring();
    let mut problems = Vec::new();
    for args in [
        &[
            "-m", "-S", "-p", "80", "-i", "500", "-l", "400", "-q", "-h", "50",
        ][..],
        &[
            "-m", "-S", "-p", "80", "-i", "500", "-l", "400", "-q", "-H", "50",
        ],
        &["-q", "-N", "-p", "80", "-l", "100", "-h", "100"],
        &["-q", "-t", "1", "-p", "80", "-l", "100", "-H", "30"],
    ] {
        problems.extend(compare(args, Compare::Lines).0);
    }
    // Live lines then the histogram: the refresh count is timing.
    problems.extend(compare(&["-p", "80", "-l", "100", "-h", "20"], Compare::Shapes).0);
    assert_no_problems(problems);
}

#[test]
fn histfile_has_cyclictests_shape() {
    let _serial = measuring();
    let real = real_cyclictest();
    let alias = Alias::new();
    let dir = TempDir::new("histfile");
    let args = |file: &str| {
        [
            "-q",
            "-t",
            "2",
            "-p",
            "80",
            "-l",
            "100",
            "-h",
            "25",
            "--histfile",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([file.to_string()])
        .collect::<Vec<_>>()
    };
    let (ra, oa) = (args("real.hist"), args("ours.hist"));
    let r = run(
        &real,
        &ra.iter().map(String::as_str).collect::<Vec<_>>(),
        Some(dir.path()),
        LIMIT,
    );
    let o = run(
        &alias.path(),
        &oa.iter().map(String::as_str).collect::<Vec<_>>(),
        Some(dir.path()),
        LIMIT,
    );
    assert_eq!((r.code(), o.code()), (0, 0), "{}\n{}", r.stderr, o.stderr);
    compare_lines("--histfile stdout", &r.stdout, &o.stdout).unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    compare_lines(
        "--histfile contents",
        &read("real.hist"),
        &read("ours.hist"),
    )
    .unwrap();
    assert!(read("ours.hist").starts_with("# Histogram\n"));
    assert_eq!(
        dir.names(),
        ["ours.hist", "real.hist"],
        "no temporary file left"
    );
}

#[test]
fn verbose_samples_have_cyclictests_shape() {
    let _serial = measuring();
    let mut problems = compare(&["-l", "50", "-p", "80", "-v"], Compare::Lines).0;
    // Two threads with different intervals: how many samples the second prints is timing.
    problems.extend(compare(&["-t", "2", "-l", "50", "-p", "80", "-v"], Compare::Shapes).0);
    assert_no_problems(problems);
}

#[test]
fn breaktrace_has_cyclictests_shape() {
    let _serial = measuring();
    let mut problems = Vec::new();
    // Every wake-up on this machine is later than 1 µs: the first sample breaks the run.
    for args in [
        &["-q", "-b", "1", "-p", "80"][..],
        &["-q", "-b", "1", "-p", "80", "-t", "2"],
        &["-q", "-b", "1", "-N", "-p", "80"],
        &["-q", "-b", "1", "-p", "80", "-h", "10"],
        // No break: cyclictest still prints the thread ids.
        &["-q", "-b", "3600000", "-p", "80", "-l", "50"],
    ] {
        problems.extend(compare(args, Compare::Lines).0);
    }
    assert_no_problems(problems);
}

#[test]
fn live_mode_has_cyclictests_shape() {
    let _serial = measuring();
    let mut problems = Vec::new();
    for (args, threads) in [
        (&["-p", "80", "-l", "100", "-t", "1"][..], 1),
        (&["-p", "80", "-l", "100", "-t", "2"], 2),
        (&["-l", "50", "--policy", "batch"], 1),
        (&["-l", "50", "-N", "-p", "80"], 1),
    ] {
        let (p, real, ours) = compare(args, Compare::Shapes);
        problems.extend(p);
        // The block is the header line, a blank line and one line per thread.
        let up = format!("\x1b[{}A", threads + 2);
        for (who, out) in [("cyclictest", &real), ("rtlat", &ours)] {
            if !out.contains(&up) {
                problems.push(format!(
                    "{}: {who} never moved the cursor up ({up:?})",
                    args.join(" ")
                ));
            }
        }
        // The first screen is the same, line for line (the thread id may still be 0).
        let head = |s: &str| {
            s.split('\n')
                .take(3 + threads)
                .collect::<Vec<_>>()
                .join("\n")
        };
        if let Err(e) = compare_lines("first screen", &head(&real), &head(&ours)) {
            problems.push(e);
        }
        // Both end on a complete line.
        if !ours.ends_with('\n') || !real.ends_with('\n') {
            problems.push(format!(
                "{}: last bytes differ: cyclictest {:?}, rtlat {:?}",
                args.join(" "),
                &real[real.len().saturating_sub(12)..],
                &ours[ours.len().saturating_sub(12)..]
            ));
        }
    }
    assert_no_problems(problems);
}

#[test]
fn refresh_on_max_ends_like_cyclictest() {
    let _serial = measuring();
    let (mut problems, real, ours) = compare(
        &["-M", "-p", "80", "-l", "200", "-i", "1000"],
        Compare::Screens,
    );
    // cyclictest -M ends by moving the cursor down over the block: `ESC[3B` after the last
    // line, preceded by `ESC[3A` when it waited for a new maximum after that line's refresh
    // (timing decides which). Nothing else follows the last newline.
    let tail = |s: &str| s.rsplit('\n').next().unwrap_or_default().to_string();
    let endings = ["\x1b[3A\x1b[3B", "\x1b[3B"];
    for (who, out) in [("cyclictest", &real), ("rtlat", &ours)] {
        if !endings.contains(&tail(out).as_str()) {
            problems.push(format!(
                "-M: {who} ends with {:?} after the last newline, expected one of {endings:?}",
                tail(out)
            ));
        }
    }
    assert_no_problems(problems);
}

#[test]
fn pm_qos_warnings_match_cyclictest() {
    let _serial = measuring();
    let mut problems = Vec::new();
    for args in [
        &["-q", "-l", "20", "-p", "80", "--laptop"][..],
        &["-q", "-l", "20", "-p", "80", "--default-system"],
        &["-q", "-l", "20", "-p", "80", "--latency", "5"],
    ] {
        problems.extend(compare(args, Compare::Lines).0);
    }
    assert_no_problems(problems);
}

#[test]
fn default_priority_notices_match_cyclictest() {
    // Without -p, a real-time policy or --priospread gets priority threads + 1; cyclictest
    // says so on stderr in its own words.
    let _serial = measuring();
    let mut problems = Vec::new();
    for args in [
        &["-q", "-l", "20", "--policy", "fifo", "-t", "2"][..],
        &["-q", "-l", "20", "--policy", "rr"],
        &["-q", "-l", "20", "--priospread", "-t", "2"],
    ] {
        problems.extend(compare(args, Compare::Lines).0);
    }
    assert_no_problems(problems);
}

#[test]
fn sigusr1_status_block_has_cyclictests_shape() {
    let _serial = measuring();
    let real = real_cyclictest();
    let alias = Alias::new();
    let args = ["-q", "-t", "2", "-p", "80", "-i", "1000"];
    let mut outputs = Vec::new();
    for program in [real.as_path(), alias.path().as_path()] {
        let child = common::spawn(program, &args, None);
        std::thread::sleep(Duration::from_millis(500));
        child.signal(libc::SIGUSR1);
        let marker = "# cyclictest current status:\n";
        assert!(
            child.wait_for_stderr(marker, Duration::from_secs(3)),
            "{}: no status block after SIGUSR1: {:?}",
            program.display(),
            child.stderr_so_far()
        );
        // Let the block complete, then end the run.
        child.wait_for_stderr(
            "#---------------------------\n# cyclictest current status:\nT: 0",
            Duration::from_secs(1),
        );
        std::thread::sleep(Duration::from_millis(200));
        child.signal(libc::SIGINT);
        let (out, _) = child.finish_within(Duration::from_secs(3));
        assert_eq!(out.code(), 0, "{}: {}", program.display(), out.stderr);
        outputs.push(out);
    }
    compare_lines("SIGUSR1 [stderr]", &outputs[0].stderr, &outputs[1].stderr).unwrap();
    compare_lines("SIGUSR1 [stdout]", &outputs[0].stdout, &outputs[1].stdout).unwrap();
}

#[test]
fn sigusr2_does_not_end_the_run() {
    // cyclictest answers SIGUSR2 by writing its status to /dev/shm/cyclictest<pid>
    // (rt-tests' get_cyclictest_snapshot sends it); the run goes on.
    let _serial = measuring();
    let alias = Alias::new();
    let child = common::spawn(&alias.path(), &["-q", "-p", "80", "-i", "1000"], None);
    std::thread::sleep(Duration::from_millis(500));
    child.signal(libc::SIGUSR2);
    std::thread::sleep(Duration::from_millis(300));
    child.signal(libc::SIGINT);
    let (out, _) = child.finish_within(Duration::from_secs(3));
    assert_eq!(
        out.status.and_then(|s| s.code()),
        Some(0),
        "rtlat as cyclictest did not survive SIGUSR2 ({:?}); stdout: {:?}",
        out.status,
        out.stdout
    );
    assert!(out.stdout.contains("T: 0 ("), "{}", out.stdout);
}

// ---------------------------------------------------------------------------------------------
// JSON

/// Checks that `ours` has `reference`'s keys in `reference`'s order at every level, plus only
/// `"rtlat"` objects at the top and in each thread; values of the same kind. Histogram
/// buckets are data, so their keys are checked for form, not compared.
fn compare_json(path: &str, reference: &Json, ours: &Json, problems: &mut Vec<String>) {
    if reference.kind() != ours.kind() {
        // cyclictest writes avg with two decimals: 14.00 is a float in both.
        problems.push(format!(
            "{path}: cyclictest has a {}, rtlat a {}",
            reference.kind(),
            ours.kind()
        ));
        return;
    }
    let (Json::Object(_), Json::Object(_)) = (reference, ours) else {
        return;
    };
    let rtlat_allowed =
        path.is_empty() || (path.starts_with("/thread/") && path.matches('/').count() == 2);
    let mut our_keys: Vec<&str> = ours.keys();
    if rtlat_allowed {
        match our_keys.iter().position(|k| *k == "rtlat") {
            Some(at) => {
                if at + 1 != our_keys.len() {
                    problems.push(format!(
                        "{path}: \"rtlat\" is not the last key: {our_keys:?}"
                    ));
                }
                our_keys.remove(at);
            }
            None => problems.push(format!("{path}: no \"rtlat\" object")),
        }
    }
    if path.ends_with("/histogram") {
        for (key, value) in match ours {
            Json::Object(f) => f.iter(),
            _ => unreachable!(),
        } {
            if key.parse::<u64>().is_err() || value.as_i64().is_none_or(|c| c <= 0) {
                problems.push(format!("{path}: bucket {key:?}: {value:?}"));
            }
        }
        let buckets: Vec<u64> = our_keys.iter().filter_map(|k| k.parse().ok()).collect();
        if !buckets.windows(2).all(|w| w[0] < w[1]) {
            problems.push(format!(
                "{path}: buckets not in ascending order: {buckets:?}"
            ));
        }
        return;
    }
    let ref_keys = reference.keys();
    let same_keys = if path == "/thread" {
        // Thread numbers: as many as cyclictest's, "0", "1", ...
        our_keys.len() == ref_keys.len()
    } else {
        our_keys == ref_keys
    };
    if !same_keys {
        problems.push(format!(
            "{path}: keys differ\n  cyclictest: {ref_keys:?}\n  rtlat:      {our_keys:?}"
        ));
        return;
    }
    let expected_threads: Vec<String> = (0..our_keys.len()).map(|i| i.to_string()).collect();
    if path == "/thread" && our_keys != expected_threads {
        problems.push(format!("{path}: thread keys {our_keys:?}"));
    }
    for (r, o) in ref_keys.iter().zip(&our_keys) {
        let next = format!("{path}/{o}");
        compare_json(&next, reference.at(r), ours.at(o), problems);
    }
}

/// rtlat's own objects: per thread and for the run.
fn check_rtlat_objects(doc: &Json, problems: &mut Vec<String>) {
    let run = doc.at("rtlat");
    for key in ["unit", "overruns", "config"] {
        if run.get(key).is_none() {
            problems.push(format!("/rtlat: no {key:?} in {:?}", run.keys()));
        }
    }
    if run.get("config").map(Json::kind) != Some("object") {
        problems.push("/rtlat/config is not an object".into());
    }
    for (n, thread) in match doc.at("thread") {
        Json::Object(f) => f.iter(),
        _ => panic!("thread is not an object"),
    } {
        let extra = thread.at("rtlat");
        for key in ["unit", "overruns", "percentiles", "max_cycle", "histogram"] {
            if extra.get(key).is_none() {
                problems.push(format!(
                    "/thread/{n}/rtlat: no {key:?} in {:?}",
                    extra.keys()
                ));
            }
        }
        if extra.get("unit").and_then(Json::as_str) != Some("ns") {
            problems.push(format!("/thread/{n}/rtlat/unit: {:?}", extra.get("unit")));
        }
        if extra.get("overruns").and_then(Json::as_i64).is_none() {
            problems.push(format!(
                "/thread/{n}/rtlat/overruns: {:?}",
                extra.get("overruns")
            ));
        }
        let percentiles = extra.get("percentiles").map(Json::keys).unwrap_or_default();
        if percentiles != ["p50", "p90", "p99", "p99.9", "p99.99"] {
            problems.push(format!(
                "/thread/{n}/rtlat/percentiles: keys {percentiles:?}"
            ));
        }
        let cycles = thread.at("cycles").as_i64().unwrap_or(0);
        let max_cycle = extra.get("max_cycle").and_then(Json::as_i64);
        if cycles > 0 && max_cycle.is_none_or(|c| c < 0 || c >= cycles) {
            problems.push(format!(
                "/thread/{n}/rtlat/max_cycle: {max_cycle:?} with {cycles} cycles"
            ));
        }
    }
}

const JSON_ARGS: [&str; 12] = [
    "-q",
    "-t",
    "2",
    "-p",
    "80",
    "-i",
    "1000",
    "-l",
    "100",
    "-h",
    "20",
    "--json=out.json",
];

/// Runs `program JSON_ARGS` in a fresh folder; returns the document's text, stdout, and
/// the folder's names after the run.
fn json_run(program: &Path, args: &[&str]) -> (String, String, Vec<String>) {
    let dir = TempDir::new("json");
    let out = run(program, args, Some(dir.path()), LIMIT);
    assert_eq!(out.code(), 0, "{}: {}", program.display(), out.stderr);
    let text = std::fs::read_to_string(dir.join("out.json"))
        .unwrap_or_else(|e| panic!("{}: no out.json: {e}", program.display()));
    (text, out.stdout, dir.names())
}

#[test]
fn json_keys_match_cyclictest_and_the_fixture() {
    let _serial = measuring();
    let alias = Alias::new();
    let (ours_text, ours_stdout, names) = json_run(&alias.path(), &JSON_ARGS);
    assert_eq!(
        names,
        ["out.json"],
        "written atomically: no temporary file left"
    );
    serde_json::from_str::<serde_json::Value>(&ours_text)
        .unwrap_or_else(|e| panic!("rtlat's --json is not valid JSON: {e}\n{ours_text}"));
    let ours = Json::parse(&ours_text);

    let (real_text, real_stdout, _) = json_run(&real_cyclictest(), &JSON_ARGS);
    let real = Json::parse(&real_text);
    compare_lines("--json stdout", &real_stdout, &ours_stdout).unwrap();

    let fixture = Json::parse(include_str!("data/cyclictest-2thr-hist.json"));
    let mut problems = Vec::new();
    compare_json("", &real, &ours, &mut problems);
    let mut against_fixture = Vec::new();
    compare_json("", &fixture, &ours, &mut against_fixture);
    problems.extend(
        against_fixture
            .into_iter()
            .map(|p| format!("(fixture) {p}")),
    );
    // Without a histogram, in ns (-N): cyclictest writes an empty histogram object.
    let (ns_text, _, _) = json_run(
        &alias.path(),
        &[
            "-q",
            "-t",
            "2",
            "-p",
            "80",
            "-i",
            "500",
            "-l",
            "100",
            "-N",
            "--json=out.json",
        ],
    );
    let ns_fixture = Json::parse(include_str!("data/cyclictest-2thr-ns.json"));
    let ns = Json::parse(&ns_text);
    let mut against_ns_fixture = Vec::new();
    compare_json("", &ns_fixture, &ns, &mut against_ns_fixture);
    problems.extend(
        against_ns_fixture
            .into_iter()
            .map(|p| format!("(-N fixture) {p}")),
    );
    if ns.at("resolution_in_ns").as_i64() != Some(1) {
        problems.push("-N: resolution_in_ns is not 1".into());
    }
    for n in ["0", "1"] {
        if ns.at("thread").at(n).at("histogram") != &Json::Object(Default::default()) {
            problems.push(format!("-N without -h: thread {n} histogram is not empty"));
        }
    }
    if !ns_text.contains("\"histogram\": {      },") {
        problems.push("an empty histogram is not written as cyclictest writes it: {      }".into());
    }
    for key in ["cmdline:", "rt_test_version:"] {
        if ours.get(key).and_then(Json::as_str).is_none() {
            problems.push(format!("no string {key:?} key"));
        }
    }
    check_rtlat_objects(&ours, &mut problems);
    assert_no_problems(problems);
}

#[test]
fn json_values_match_cyclictest() {
    let _serial = measuring();
    let alias = Alias::new();
    let real_program = real_cyclictest();
    let mut problems = Vec::new();
    for args in [
        &JSON_ARGS[..],
        &["-q", "-S", "-p", "80", "-l", "50", "--json=out.json"],
        &["-q", "-N", "-p", "80", "-l", "50", "--json=out.json"],
    ] {
        let (real_text, _, _) = json_run(&real_program, args);
        let (ours_text, _, _) = json_run(&alias.path(), args);
        let (real, ours) = (Json::parse(&real_text), Json::parse(&ours_text));
        let what = args.join(" ");
        for key in [
            "file_version",
            "rt_test_version:",
            "return_code",
            "sysinfo",
            "num_threads",
            "resolution_in_ns",
        ] {
            if real.get(key) != ours.get(key) {
                problems.push(format!(
                    "{what}: {key}: cyclictest {:?}, rtlat {:?}",
                    real.get(key),
                    ours.get(key)
                ));
            }
        }
        for (program, doc) in [(&real_program, &real), (&alias.path(), &ours)] {
            let expected = std::iter::once(program.display().to_string())
                .chain(args.iter().map(|s| s.to_string()))
                .collect::<Vec<_>>()
                .join(" ");
            let got = doc.at("cmdline:").as_str().unwrap_or_default();
            if got != expected {
                problems.push(format!(
                    "{what}: \"cmdline:\" is {got:?}, expected {expected:?}"
                ));
            }
        }
        let threads = real.at("num_threads").as_i64().unwrap_or(0);
        for n in 0..threads {
            let n = n.to_string();
            for key in ["cpu", "node"] {
                let (r, o) = (
                    real.at("thread").at(&n).get(key),
                    ours.at("thread").at(&n).get(key),
                );
                if r != o {
                    problems.push(format!(
                        "{what}: thread {n} {key}: cyclictest {r:?}, rtlat {o:?}"
                    ));
                }
            }
            let avg = json_text_at(&ours_text, &["thread", &n, "avg"]);
            if let Some(text) = avg
                && text.split_once('.').is_none_or(|(_, d)| d.len() != 2)
            {
                problems.push(format!(
                    "{what}: avg {text} is not written with two decimals"
                ));
            }
        }
    }
    assert_no_problems(problems);
}

#[test]
fn json_times_are_local_like_cyclictests() {
    // cyclictest formats start_time/end_time with localtime() and %z.
    let _serial = measuring();
    let alias = Alias::new();
    let mut zones = Vec::new();
    for program in [real_cyclictest(), alias.path()] {
        let dir = TempDir::new("tz");
        let out = std::process::Command::new(&program)
            .args(["-q", "-l", "5", "-p", "80", "--json=out.json"])
            .current_dir(dir.path())
            .env("TZ", "XYZ-3")
            .output()
            .unwrap();
        assert!(out.status.success());
        let doc = Json::parse(&std::fs::read_to_string(dir.join("out.json")).unwrap());
        let start = doc.at("start_time").as_str().unwrap().to_string();
        zones.push(start.rsplit(' ').next().unwrap().to_string());
    }
    assert_eq!(zones[0], "+0300", "TZ=XYZ-3 is UTC+3");
    assert_eq!(
        zones[0], zones[1],
        "start_time zone: cyclictest {}, rtlat {}",
        zones[0], zones[1]
    );
}

#[test]
fn json_dash_writes_the_document_to_stdout() {
    // cyclictest's --json=- writes the JSON document to stdout (before the -q summary).
    let _serial = measuring();
    let alias = Alias::new();
    let args = ["-q", "-l", "20", "-p", "80", "--json=-"];
    let real = run(&real_cyclictest(), &args, None, LIMIT);
    let ours = run(&alias.path(), &args, None, LIMIT);
    assert_eq!(real.code(), 0);
    assert_eq!(
        ours.code(),
        0,
        "rtlat refuses --json=- (cyclictest: JSON on stdout): {}",
        ours.stderr
    );
    let outside_json = |s: &str| {
        let start = s.find("\n{\n").map_or(0, |i| i + 1);
        let end = s.find("\n}\n").map_or(s.len(), |i| i + 3);
        serde_json::from_str::<serde_json::Value>(&s[start..end]).expect("JSON on stdout");
        format!("{}{}", &s[..start], &s[end..])
    };
    compare_lines(
        "--json=- outside the document",
        &outside_json(&real.stdout),
        &outside_json(&ours.stdout),
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------------
// rtlat's additions: absent as cyclictest, present as rtlat run.

#[test]
fn as_cyclictest_rtlat_adds_nothing_and_as_rtlat_run_it_adds_after_cyclictests_fields() {
    let _serial = measuring();
    let alias = Alias::new();
    let cases: [&[&str]; 3] = [
        &["-q", "-t", "2", "-p", "80", "-l", "50"],
        &["-q", "-t", "2", "-p", "80", "-l", "50", "-h", "20"],
        &["-p", "80", "-l", "50"],
    ];
    for args in cases {
        let as_cyclictest = run(&alias.path(), args, None, LIMIT);
        assert_eq!(as_cyclictest.code(), 0, "{}", as_cyclictest.stderr);
        for line in as_cyclictest.stdout.lines() {
            assert!(
                !line.contains("Overruns") && !line.contains("rtlat"),
                "cyclictest {}: rtlat's own output under the name cyclictest: {line:?}",
                args.join(" ")
            );
            if line.contains("T: ") {
                assert!(line.ends_with(|c: char| c.is_ascii_digit()), "{line:?}");
                let max = line.rsplit("Max:").next().unwrap();
                assert_eq!(max.len(), 8, "Max:%8ld is the last field: {line:?}");
            }
        }

        let as_rtlat = rtlat_run(args, None, LIMIT);
        assert_eq!(as_rtlat.code(), 0, "{}", as_rtlat.stderr);
        let t_lines: Vec<&str> = as_rtlat
            .stdout
            .lines()
            .filter(|l| l.contains("T: "))
            .collect();
        let histogram = args.contains(&"-h");
        if !histogram {
            assert!(!t_lines.is_empty(), "{}", as_rtlat.stdout);
        }
        for line in t_lines {
            let (head, tail) = line
                .split_once(" Overruns:")
                .unwrap_or_else(|| panic!("rtlat run: no Overruns after Max: {line:?}"));
            let cyclictest_part = head.rsplit("Max:").next().unwrap();
            assert_eq!(
                cyclictest_part.len(),
                8,
                "cyclictest's fields first: {line:?}"
            );
            assert!(tail.trim().parse::<u64>().is_ok(), "{line:?}");
        }
        if histogram {
            let lines: Vec<&str> = as_rtlat.stdout.lines().collect();
            let overflow_at = lines
                .iter()
                .position(|l| *l == "# Histogram Overflow at cycle number:")
                .expect("overflow section");
            let extra: Vec<&&str> = lines.iter().filter(|l| l.starts_with("# rtlat ")).collect();
            assert!(
                !extra.is_empty(),
                "rtlat run adds trailer lines:\n{}",
                as_rtlat.stdout
            );
            // They come after cyclictest's trailer (threads' overflow lines), all as `# ` lines.
            let first_extra = lines
                .iter()
                .position(|l| l.starts_with("# rtlat "))
                .unwrap();
            assert!(first_extra > overflow_at + 2, "{}", as_rtlat.stdout);
            for l in &lines[first_extra..] {
                assert!(l.is_empty() || l.starts_with("# "), "{l:?}");
            }
        }
    }
    // Same binary, same name check: a copy named cyclictest behaves like the symlink.
    let dir = TempDir::new("copy");
    let copy = dir.join("cyclictest");
    common::place_rtlat(&copy);
    let out = run(&copy, &["-q", "-l", "10", "-p", "80"], None, LIMIT);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(!out.stdout.contains("Overruns"), "{}", out.stdout);
}

#[test]
fn numbers_with_white_space_are_read_as_cyclictest_reads_them() {
    // Harnesses pass '-h 3500' as one word: getopt gives -h the value ' 3500', which
    // cyclictest reads with strtol/atoi (leading white space skipped).
    let _serial = measuring();
    let mut problems = Vec::new();
    for args in [
        &["-q", "-l 50", "-i 1000", "-p 80", "-h 40"][..],
        &["-q", "-l", " 50", "-i", " 1000", "-t", " 2", "-p", " 80"],
        &["-q", "-t 2", "-l 50", "-H 30", "-p +80", "-d 0"],
        &["-q", "-D 1", "-i 1000", "-b 1000000", "-p 80"],
    ] {
        problems.extend(compare(args, Compare::Lines).0);
    }
    assert_no_problems(problems);
}

#[test]
fn what_cyclictest_warns_about_it_warns_about_and_runs() {
    let _serial = measuring();
    let mut problems = Vec::new();
    for args in [
        &["-q", "-l", "50", "-i", "1000", "-S", "-t", "1", "-p", "80"][..],
        &["-q", "-l", "50", "-i", "1000", "-S", "-a", "0", "-p", "80"],
        &["-q", "-l", "50", "-i", "1000", "-p", "80", "--policy=batch"],
        &["-q", "-l", "50", "-i", "1000", "-p", "0"],
        &[
            "-q", "-l", "50", "-i", "1000", "-p", "80", "-h", "20", "-d", "100",
        ],
        &["-q", "-l", "50", "-i", "1000", "-p", "80", "-s", "-x"],
        &["-q", "-l", "50", "-i", "1000", "-p", "80", "-c", "1"],
    ] {
        problems.extend(compare(args, Compare::Lines).0);
    }
    assert_no_problems(problems);
    // cyclictest switches `--policy=other -p 80` to SCHED_FIFO without a word; rtlat runs the
    // same and says so.
    let args = ["-q", "-l", "50", "-i", "1000", "--policy=other", "-p", "80"];
    let alias = Alias::new();
    let real = run(&real_cyclictest(), &args, None, LIMIT);
    let ours = run(&alias.path(), &args, None, LIMIT);
    assert_eq!((real.code(), ours.code()), (0, 0), "{}", ours.stderr);
    assert_eq!(
        priorities_and_intervals(&real.stdout),
        priorities_and_intervals(&ours.stdout)
    );
    assert_eq!(
        ours.stderr,
        "policy and priority don't match: setting policy to SCHED_FIFO\n"
    );
}

/// `text` with the program name glibc's getopt puts first (argv[0]) replaced by `PROGRAM`.
fn with_program(text: &str, program: &Path) -> String {
    text.replace(&program.display().to_string(), "PROGRAM")
}

#[test]
fn unknown_options_and_bad_values_end_as_in_cyclictest() {
    let real = real_cyclictest();
    let alias = Alias::new();
    let beyond = (common::online_cpus().iter().max().unwrap() + 3).to_string();
    let mut problems = Vec::new();
    // (arguments, status, whether stderr is the same text)
    let rows: Vec<(Vec<&str>, i32, bool)> = vec![
        // getopt's complaints: glibc's line, the usage, status 0 (the obsolete -n included).
        (vec!["-n"], 0, true),
        (vec!["--nanosleep"], 0, true),
        (vec!["--frobnicate"], 0, true),
        (vec!["--frob=3"], 0, true),
        (vec!["-?"], 0, true),
        (vec!["-l"], 0, true),
        (vec!["--loops"], 0, true),
        (vec!["--pri=80"], 0, true),
        (vec!["--mlockall=1"], 0, true),
        // Values cyclictest cannot use: the usage, status 1 (rtlat adds its line on stderr).
        (vec!["-p", "100"], 1, false),
        (vec!["-p", "-1"], 1, false),
        (vec!["-h", "0"], 1, false),
        (vec!["-H", "-1"], 1, false),
        (vec!["-c", "-1"], 1, false),
        (vec!["-t0"], 1, false),
        (vec!["-A", "5", "--secaligned"], 1, false),
        (vec!["-a", &beyond], 1, false),
        // Fatal settings: the FATAL line, status 1.
        (vec!["-a", "0", "-S"], 1, true),
        (vec!["--smi"], 1, true),
        (vec!["--smi", "-a"], 1, true),
    ];
    for (args, status, same_stderr) in rows {
        // Short runs where cyclictest would run; the row's words last (a value left out).
        let mut all = vec!["-q", "-l", "20", "-i", "1000"];
        all.extend(args.iter().copied());
        let r = run(&real, &all, None, LIMIT);
        let o = run(&alias.path(), &all, None, LIMIT);
        let what = format!("cyclictest {}", all.join(" "));
        if (r.code(), o.code()) != (status, status) {
            problems.push(format!(
                "{what}: status {} (cyclictest) and {} (rtlat), expected {status}: {}",
                r.code(),
                o.code(),
                o.stderr
            ));
        }
        // The usage, or what cyclictest printed before it ended (`--smi` where it guesses
        // the CPU has an SMI counter: its /dev/cpu_dma_latency line), the same.
        let usage = r.stdout.contains("Usage:");
        let ours_usage = o.stdout.contains("Usage:");
        if usage != ours_usage
            || (usage && r.stdout.lines().count() < 10)
            || (!usage && r.stdout != o.stdout)
        {
            problems.push(format!(
                "{what}: stdout {:?} (cyclictest) vs {:?} (rtlat)",
                r.stdout, o.stdout
            ));
        }
        if same_stderr {
            let (rs, os) = (
                with_program(&r.stderr, &real),
                with_program(&o.stderr, &alias.path()),
            );
            if rs != os {
                problems.push(format!(
                    "{what}: stderr {rs:?} (cyclictest) vs {os:?} (rtlat)"
                ));
            }
        } else if o.stderr.lines().count() != 1 || !o.stderr.starts_with("cyclictest: ") {
            problems.push(format!("{what}: rtlat's line: {:?}", o.stderr));
        }
    }
    assert_no_problems(problems);
}

#[test]
fn fifo_hands_out_the_statistics_as_cyclictest_does() {
    let _serial = measuring();
    let alias = Alias::new();
    let dir = TempDir::new("fifo");
    let mut lines = Vec::new();
    for (who, program) in [("cyclictest", real_cyclictest()), ("rtlat", alias.path())] {
        let pipe = dir.join(&format!("{who}.fifo"));
        let pipe_text = pipe.display().to_string();
        let child = common::spawn(
            &program,
            &["-F", &pipe_text, "-t", "2", "-i", "1000", "-D", "3", "-q"],
            None,
        );
        // Read the pipe once it is there (a reader that never gets a writer is let go).
        let until = std::time::Instant::now() + LIMIT;
        while !pipe.exists() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(300));
        let read = common::run(Path::new("timeout"), &["5", "cat", &pipe_text], None, LIMIT);
        let out = child.finish(LIMIT);
        assert_eq!(out.code(), 0, "{who}: {}", out.stderr);
        // The writer opens the pipe, writes one line per thread and closes it, over and over
        // (a quarter of a second apart in cyclictest): a reader slower than that (a loaded
        // machine) reads several rounds before its end of file. Each round is the same block.
        let read_lines: Vec<&str> = read.stdout.lines().collect();
        assert!(
            !read_lines.is_empty() && read_lines.len().is_multiple_of(2),
            "{who}: whole rounds of 2 lines: {:?}",
            read.stdout
        );
        for round in read_lines.chunks(2) {
            assert!(
                round[0].starts_with("T: 0 ") && round[1].starts_with("T: 1 "),
                "{who}: each round is thread 0's line, then thread 1's: {:?}",
                read.stdout
            );
        }
        lines.push(format!("{}\n{}\n", read_lines[0], read_lines[1]));
        if who == "rtlat" {
            assert!(!pipe.exists(), "rtlat removes the pipe it made");
        }
    }
    assert_no_problems(
        compare_lines("cyclictest -F: the pipe's lines", &lines[0], &lines[1])
            .err()
            .into_iter()
            .collect(),
    );
}
