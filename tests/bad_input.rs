//! Bad command lines through the binary: `rtlat run ...` (and rtlat as `cyclictest ...`) with
//! an invalid value exits with status 2 at once, prints exactly one line on stderr that names
//! the option, prints nothing on stdout, and loses nothing: an existing `--json` or
//! `--histfile` file is left as it was.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Alias, Outcome, TempDir, offline_cpu, rtlat, run};

/// A refused command line must be refused well within this.
const QUICK: Duration = Duration::from_secs(5);

/// One bad command line and what its error line must mention (any of `names`).
struct Row {
    args: Vec<String>,
    names: Vec<&'static str>,
    /// Further text the line must contain.
    also: Option<&'static str>,
}

fn row(args: &[&str], names: &[&'static str]) -> Row {
    Row {
        args: args.iter().map(|s| s.to_string()).collect(),
        names: names.to_vec(),
        also: None,
    }
}

/// Folders and files the runtime-checked rows point at.
struct Places {
    dir: TempDir,
    regular_file: PathBuf,
    offline: String,
}

impl Places {
    fn new() -> Places {
        let dir = TempDir::new("bad-input");
        let regular_file = dir.join("a-file");
        std::fs::write(&regular_file, b"x").unwrap();
        Places {
            regular_file,
            dir,
            offline: offline_cpu().to_string(),
        }
    }

    fn dir(&self) -> String {
        self.dir.path().display().to_string()
    }

    fn under_file(&self) -> String {
        self.regular_file.join("x.json").display().to_string()
    }
}

fn table(p: &Places) -> Vec<Row> {
    let interval = ["-i", "--interval"];
    let priority = ["-p", "--priority"];
    let histogram = ["-h", "--histogram"];
    let threads = ["-t", "--threads"];
    let loops = ["-l", "--loops"];
    let duration = ["-D", "--duration"];
    let json = ["--json"];
    let histfile = ["--histfile"];
    let affinity = ["-a", "--affinity"];
    let under_file = p.under_file();
    let dir = p.dir();
    let mut rows = vec![
        row(&["-i", "0"], &interval),
        row(&["-i", "1000x"], &interval),
        row(&["-i", "-1"], &interval),
        row(&["--interval=5x"], &interval),
        row(&["-i", "99999999999999999999"], &interval),
        row(&["-p", "100"], &priority),
        row(&["-p", "abc"], &priority),
        row(&["--policy", "foo"], &["--policy"]),
        row(&["--policy="], &["--policy"]),
        row(&["-h", "0"], &histogram),
        row(&["-h", "-1"], &histogram),
        row(&["-H", "1000001"], &["-H", "--histofall"]),
        row(&["-t", "0"], &threads),
        row(&["-t", "-1"], &threads),
        row(&["--threads=0"], &threads),
        row(&["-l", "-5"], &loops),
        row(&["-l", "1.5"], &loops),
        row(&["-l", "abc"], &loops),
        row(&["-D", "10x"], &duration),
        row(&["-D", "1.5m"], &duration),
        row(&["-D", "-1"], &duration),
        row(&["-d", "x"], &["-d", "--distance"]),
        row(&["-b", "0"], &["-b", "--breaktrace"]),
        row(&["--latency", "-1"], &["--latency"]),
        row(&["-c", "2"], &["-c", "--clock"]),
        row(&["-A", "-5"], &["-A", "--aligned"]),
        row(&["--spike", "0"], &["--spike"]),
        row(&["--spike", "5", "--spike-nodes", "0"], &["--spike-nodes"]),
        row(&["--bogus"], &["--bogus"]),
        row(&["-e"], &["-e"]),
        row(&["-i"], &interval),
        row(&["-q", "--json"], &json),
        row(&["--unit", "furlong"], &["--unit"]),
        row(&["--timer", "foo"], &["--timer"]),
        row(&["--fail-above", "x"], &["--fail-above"]),
        row(&["--load", " "], &["--load"]),
        row(&["--profile", "rpi4"], &["--profile"]),
        row(&["--profile"], &["--profile"]),
        row(&["--histfile", "h.txt"], &histfile),
        row(&["--tracemark"], &["--tracemark"]),
        row(&["-r", "-x"], &["-r", "-x"]),
        row(&["-o", "5"], &["-o", "--oscope"]),
        row(&["-a", "0-"], &affinity),
        // A word after an option whose value is optional was meant as its value.
        row(&["-a", "x"], &affinity),
        row(&["--secaligned", "x"], &["--secaligned"]),
        // Checked against the system, not just the words.
        row(&["-a", &p.offline], &affinity),
        row(&["-t", "2", "-a", &format!("0,{}", p.offline)], &affinity),
        row(&["--mainaffinity", &p.offline], &["--mainaffinity"]),
        row(&["--json", "/nonexistent-rtlat-dir/x.json"], &json),
        row(&["--json", &under_file], &json),
        row(&["--json", &dir], &json),
        row(
            &["-h", "10", "--histfile", "/nonexistent-rtlat-dir/h.txt"],
            &histfile,
        ),
        row(&["-h", "10", "--histfile", &under_file], &histfile),
        row(&["-h", "10", "--histfile", &dir], &histfile),
    ];
    // --timerlat: the plan is checked before the kernel is asked; on a kernel without the
    // tracer (the development machines') the run is refused naming what it lacks.
    let timerlat = ["--timerlat"];
    rows.push(row(
        &["--timerlat", "-t", "2", "-a", "0", "-l", "5"],
        &timerlat,
    ));
    rows.push(row(
        &["--timerlat", "-t", "2", "-d", "100", "-l", "5"],
        &timerlat,
    ));
    rows.push(row(&["--timerlat", "-i", "50", "-l", "5"], &timerlat));
    let tracers =
        std::fs::read_to_string("/sys/kernel/tracing/available_tracers").unwrap_or_default();
    if !tracers.split_whitespace().any(|t| t == "timerlat") {
        let mut absent = row(&["--timerlat", "-l", "5"], &timerlat);
        absent.also = Some("trace");
        rows.push(absent);
    }
    let mut smi = row(&["--smi"], &["--smi"]);
    smi.also = Some("not supported");
    rows.push(smi);
    // The generic-timer clock exists only on aarch64: elsewhere the line names the build's
    // architecture; on aarch64 (natively or under qemu) it refuses a timer other than abs.
    let cntvct = if cfg!(target_arch = "aarch64") {
        let mut row = row(&["-c", "cntvct", "--timer", "posix"], &["--clock"]);
        row.also = Some("absolute deadlines only");
        row
    } else {
        let mut row = row(&["--clock", "cntvct"], &["--clock"]);
        row.also = Some(std::env::consts::ARCH);
        row
    };
    rows.push(cntvct);
    rows
}

/// Checks one refused invocation; returns what is wrong with it.
fn check(who: &str, out: &Outcome, row: &Row, prefix: &str) -> Vec<String> {
    let what = format!("{who} {}", row.args.join(" "));
    let mut problems = Vec::new();
    if out.status.and_then(|s| s.code()) != Some(2) {
        problems.push(format!("{what}: exit status {:?}, expected 2", out.status));
    }
    if out.elapsed >= QUICK {
        problems.push(format!("{what}: took {:?}", out.elapsed));
    }
    if !out.stdout.is_empty() {
        problems.push(format!("{what}: wrote on stdout: {:?}", out.stdout));
    }
    let lines: Vec<&str> = out.stderr.lines().collect();
    if lines.len() != 1 || !out.stderr.ends_with('\n') {
        problems.push(format!(
            "{what}: expected one line on stderr, got {:?}",
            out.stderr
        ));
        return problems;
    }
    let line = lines[0];
    if !row.names.iter().any(|n| mentions(line, n)) {
        problems.push(format!(
            "{what}: the error does not name {:?}: {line:?}",
            row.names
        ));
    }
    if let Some(text) = row.also
        && !line.contains(text)
    {
        problems.push(format!("{what}: the error does not say {text:?}: {line:?}"));
    }
    if !line.starts_with(prefix) {
        problems.push(format!(
            "{what}: the error does not start with {prefix:?}: {line:?}"
        ));
    }
    problems
}

/// Whether `line` names `option` as a word (`-i` in `-i/--interval`, not in `-id`).
fn mentions(line: &str, option: &str) -> bool {
    line.match_indices(option).any(|(at, _)| {
        let after = line[at + option.len()..].chars().next();
        let before = line[..at].chars().next_back();
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

fn invoke(program: &Path, first: &[&str], args: &[String], cwd: &Path) -> Outcome {
    let mut all: Vec<&str> = first.to_vec();
    all.extend(args.iter().map(String::as_str));
    // Twice the limit before the kill, so that a slow refusal is reported as slow.
    run(program, &all, Some(cwd), QUICK * 2)
}

#[test]
fn bad_values_are_refused_quickly_with_one_line_naming_the_option() {
    let places = Places::new();
    let rows = table(&places);
    assert!(rows.len() >= 30, "{} rows", rows.len());
    let mut problems = Vec::new();
    for r in &rows {
        let out = invoke(&rtlat(), &["run"], &r.args, places.dir.path());
        problems.extend(check("rtlat run", &out, r, "rtlat run: "));
    }
    assert!(
        problems.is_empty(),
        "{} of {} rows:\n{}",
        problems.len(),
        rows.len(),
        problems.join("\n")
    );
    // Nothing was created by the refused runs.
    assert_eq!(places.dir.names(), ["a-file"]);
}

/// How rtlat as `cyclictest` must end a bad command line: as cyclictest 2.40 ends it
/// (checked side by side in tests/cyclictest_compat.rs), or with rtlat's own refusal where
/// cyclictest would silently run something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ends {
    /// rtlat's refusal: status 2, its one line, nothing on stdout.
    Refused,
    /// cyclictest's bad value: status 1, rtlat's one line naming it, the usage on stdout.
    Usage,
    /// cyclictest's getopt complaint: status 0, glibc's line, the usage on stdout.
    Getopt,
    /// cyclictest's `FATAL:` line: status 1, nothing on stdout.
    Fatal,
}

#[test]
fn bad_values_end_under_the_name_cyclictest_as_in_cyclictest() {
    let places = Places::new();
    let alias = Alias::new();
    let offline = places.offline.clone();
    let rows: Vec<(Row, Ends)> = vec![
        (row(&["-i", "0"], &["-i", "--interval"]), Ends::Refused),
        (row(&["-i", "1000x"], &["-i", "--interval"]), Ends::Refused),
        (row(&["-p", "100"], &["-p", "--priority"]), Ends::Usage),
        (row(&["-p", "-1"], &["-p", "--priority"]), Ends::Usage),
        (row(&["-h", "0"], &["-h", "--histogram"]), Ends::Usage),
        (row(&["-H", "-1"], &["-H", "--histofall"]), Ends::Usage),
        (row(&["-c", "-1"], &["-c", "--clock"]), Ends::Usage),
        (row(&["-t0"], &["-t", "--threads"]), Ends::Usage),
        (
            row(&["-A", "5", "--secaligned"], &["-A", "--aligned"]),
            Ends::Usage,
        ),
        (row(&["-a", &offline], &["-a", "--affinity"]), Ends::Usage),
        (row(&["-a", "0-"], &["-a", "--affinity"]), Ends::Usage),
        (row(&["--policy", "foo"], &["--policy"]), Ends::Refused),
        (row(&["-D", "10x"], &["-D", "--duration"]), Ends::Refused),
        (row(&["-t", "0"], &["-t", "--threads"]), Ends::Refused),
        (
            row(&["--json", "/nonexistent-rtlat-dir/x.json"], &["--json"]),
            Ends::Refused,
        ),
        (row(&["--bogus"], &["--bogus"]), Ends::Getopt),
        (row(&["-n"], &["-n"]), Ends::Getopt),
        (row(&["-l"], &["-l"]), Ends::Getopt),
        (row(&["--smi"], &["--smi"]), Ends::Fatal),
        (row(&["-a", "0", "-S"], &["-S"]), Ends::Fatal),
        // rtlat's own options do not exist under the name cyclictest.
        (
            row(&["--fail-above", "3"], &["--fail-above"]),
            Ends::Refused,
        ),
        (row(&["--unit", "ns"], &["--unit"]), Ends::Refused),
        (row(&["--load", "idle"], &["--load"]), Ends::Refused),
        (row(&["--timer", "abs"], &["--timer"]), Ends::Refused),
        (
            row(&["--profile", "bubblegum96"], &["--profile"]),
            Ends::Refused,
        ),
    ];
    let program = alias.path().display().to_string();
    let mut problems = Vec::new();
    for (r, ends) in &rows {
        let out = invoke(&alias.path(), &[], &r.args, places.dir.path());
        let what = format!("cyclictest {} ({ends:?})", r.args.join(" "));
        match ends {
            Ends::Refused => problems.extend(check("cyclictest", &out, r, "cyclictest: ")),
            Ends::Usage | Ends::Getopt | Ends::Fatal => {
                let want = if *ends == Ends::Getopt { 0 } else { 1 };
                if out.status.and_then(|s| s.code()) != Some(want) {
                    problems.push(format!("{what}: status {:?}, expected {want}", out.status));
                }
                let usage = out.stdout.starts_with("Usage: cyclictest");
                if usage == (*ends == Ends::Fatal) {
                    problems.push(format!("{what}: stdout {:?}", out.stdout));
                }
                // cyclictest's WARN lines may come before its FATAL one (`--smi` on a CPU it
                // guesses has an SMI counter whose /dev/cpu/N/msr cannot be opened).
                let lines: Vec<&str> = out
                    .stderr
                    .lines()
                    .skip_while(|l| *ends == Ends::Fatal && l.starts_with("WARN: "))
                    .collect();
                let prefix = match ends {
                    Ends::Usage => "cyclictest: ".to_string(),
                    Ends::Getopt => format!("{program}: "),
                    _ => "FATAL: ".to_string(),
                };
                if lines.len() != 1 || !lines[0].starts_with(&prefix) {
                    problems.push(format!("{what}: stderr {:?}", out.stderr));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(places.dir.names(), ["a-file"]);
}

#[test]
fn a_refused_run_loses_nothing() {
    let places = Places::new();
    let dir = &places.dir;
    let keep_json = dir.join("keep.json");
    let keep_hist = dir.join("keep.hist");
    let json_before = "{\"precious\": true}\n";
    let hist_before = "# Histogram\nprecious\n";
    std::fs::write(&keep_json, json_before).unwrap();
    std::fs::write(&keep_hist, hist_before).unwrap();
    let (json, hist) = (
        keep_json.display().to_string(),
        keep_hist.display().to_string(),
    );
    let offline = places.offline.clone();
    let bad: [&[&str]; 9] = [
        &["-i", "0"],
        &["-p", "100"],
        &["--policy", "foo"],
        &["-D", "10x"],
        &["--bogus"],
        &["-a", &offline],
        &["--smi"],
        &["-h", "10", "--histfile", "/nonexistent-rtlat-dir/h.txt"],
        &["-t", "0"],
    ];
    let alias = Alias::new();
    for args in bad {
        // Under the name cyclictest, cyclictest's statuses: 1 for its bad values and fatal
        // settings, 0 (with its usage) for an unknown option; nothing is lost all the same.
        let as_cyclictest = match args[0] {
            "-p" | "-a" | "--smi" => 1,
            "--bogus" => 0,
            _ => 2,
        };
        for (program, first, want) in [
            (rtlat(), &["run"][..], 2),
            (alias.path(), &[][..], as_cyclictest),
        ] {
            let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            all.extend(["-q", "--json", &json].map(String::from));
            if !args.contains(&"--histfile") {
                all.extend(["-h", "10", "--histfile", &hist].map(String::from));
            }
            let out = invoke(&program, first, &all, dir.path());
            assert_eq!(
                out.status.and_then(|s| s.code()),
                Some(want),
                "{} {}: {}",
                program.display(),
                all.join(" "),
                out.stderr
            );
            assert_eq!(
                std::fs::read_to_string(&keep_json).unwrap(),
                json_before,
                "--json file changed by the refused run {}",
                all.join(" ")
            );
            assert_eq!(
                std::fs::read_to_string(&keep_hist).unwrap(),
                hist_before,
                "--histfile file changed by the refused run {}",
                all.join(" ")
            );
        }
    }
    assert_eq!(
        dir.names(),
        ["a-file", "keep.hist", "keep.json"],
        "no temporary files"
    );
}

/// Runs `program` with `args` given as raw bytes; returns status, stdout and stderr.
fn run_bytes(program: &Path, args: &[&[u8]]) -> (Option<i32>, String, String) {
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(program)
        .args(args.iter().map(|a| std::ffi::OsStr::from_bytes(a)))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn arguments_that_are_not_utf8_are_refused_in_one_line() {
    let plot = rtlat().with_file_name("rtlat-plot");
    let cases: [(&Path, &[&[u8]], &str); 4] = [
        (&rtlat(), &[b"run", b"\xff"], "rtlat: argument 2 (\\xff)"),
        (&rtlat(), &[b"\xfe"], "rtlat: argument 1 (\\xfe)"),
        (
            &rtlat(),
            &[b"compare", b"a\xc3.json", b"b.json"],
            "rtlat: argument 2 (a\\xc3.json)",
        ),
        (
            &plot,
            &[b"x\xff", b"-o", b"o.svg"],
            "rtlat plot: argument 1",
        ),
    ];
    for (program, args, start) in cases {
        let (code, stdout, stderr) = run_bytes(program, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(start) && stderr.contains("is not UTF-8 text"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_plot_whose_rtlat_plot_dies_says_so() {
    // rtlat plot runs the rtlat-plot beside it. Killing a real rtlat-plot at the right moment
    // is a race; a stand-in that is killed by SIGKILL at once (as the OOM killer does) is not:
    // rtlat (hard-linked into a folder of its own) must name the signal and exit 4, not 2.
    let dir = TempDir::new("plot-killed");
    let binary = dir.join("rtlat");
    common::place_rtlat(&binary);
    let stand_in = dir.join("rtlat-plot");
    std::fs::write(&stand_in, "#!/bin/sh\nkill -KILL $$\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, stderr) = run_bytes(&binary, &[b"plot", b"a.json", b"-o", b"out.svg"]);
    assert_eq!(code, Some(4), "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("rtlat plot: ")
            && stderr.contains("was killed by signal 9 (SIGKILL: out of memory, or killed)")
            && stderr.contains("no plot was written"),
        "{stderr}"
    );
}

#[test]
fn a_tool_command_without_rtlat_tools_beside_rtlat_says_so() {
    // audit, threads, irq, cpufreq and compare run in the rtlat-tools beside rtlat: rtlat
    // placed alone says so in one line and exits 2, for each of them.
    let dir = TempDir::new("tools-missing");
    let binary = dir.join("rtlat");
    common::place_rtlat(&binary);
    for command in ["audit", "threads", "irq", "cpufreq", "compare"] {
        let (code, stdout, stderr) = run_bytes(&binary, &[command.as_bytes()]);
        assert_eq!(code, Some(2), "{command}: {stderr}");
        assert_eq!(stdout, "", "{command}");
        assert_eq!(
            stderr,
            format!(
                "rtlat {command}: the rtlat-tools binary is not beside rtlat; install both (cargo build builds both)\n"
            )
        );
    }
}

#[test]
fn a_tool_command_runs_in_rtlat_tools_with_the_same_arguments_and_status() {
    // rtlat execs the rtlat-tools beside it with its own argv (argv[0] included): a stand-in
    // that prints its arguments and exits 7 shows both, unchanged.
    let dir = TempDir::new("tools-exec");
    let binary = dir.join("rtlat");
    common::place_rtlat(&binary);
    let stand_in = dir.join("rtlat-tools");
    std::fs::write(&stand_in, "#!/bin/sh\necho \"$0|$*\"\nexit 7\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, stderr) = run_bytes(&binary, &[b"compare", b"a b.json", b"c.json"]);
    assert_eq!(code, Some(7), "{stderr}");
    assert_eq!(stderr, "");
    // A script's $0 is the script's path (the kernel runs the interpreter on it); the
    // arguments after the command are rtlat's, one by one.
    assert_eq!(
        stdout,
        format!("{}|compare a b.json c.json\n", stand_in.display())
    );
}

#[test]
fn a_profile_run_without_rtlat_tools_beside_rtlat_is_refused_before_anything_changes() {
    // `run --profile` reports its board's audit checks, which run in rtlat-tools: without it
    // the run does not start (one line, status 2), before any governor or memory lock.
    let dir = TempDir::new("profile-tools-missing");
    let binary = dir.join("rtlat");
    common::place_rtlat(&binary);
    let (code, stdout, stderr) = run_bytes(
        &binary,
        &[
            b"run",
            b"--profile",
            b"bubblegum96",
            b"-t",
            b"1",
            b"-a",
            b"0",
            b"-l",
            b"10",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "rtlat run: --profile bubblegum96: its audit checks run in rtlat-tools, which is not beside rtlat; install both (cargo build builds both)\n"
    );
}
