//! The cyclictest front at run time, side by side with the real cyclictest (issue 11):
//!
//! - a reader that goes away (`-v | head -3`, live mode into `head -c 100`, any command whose
//!   standard output is a closed pipe) ends the process by SIGPIPE as it ends cyclictest:
//!   no panic, nothing on stderr, and (unlike cyclictest) what the run set up is undone first;
//! - `-D` counts from the start of the measurement, after `--secaligned`'s wait;
//! - SIGUSR2 fills `/dev/shm/cyclictest<pid>` under both names, which rt-tests'
//!   `get_cyclictest_snapshot` finds, signals and prints as it does cyclictest's;
//! - `--tracemark -b` says where it found tracefs, as cyclictest does.
//!
//! No test asserts a latency or a duration: counts, exit statuses and what the files hold.

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{Alias, Json, JsonExt, TempDir, measuring, real_cyclictest, rtlat};

/// How long a process may take to end once its reader has gone, before the test calls it a
/// hang (the runs below would otherwise go on for many minutes).
const HANG_GUARD: Duration = Duration::from_secs(60);

/// Waits for `child` to exit, killing it after [`HANG_GUARD`]; `None` if it had to be killed.
fn wait(child: &mut Child) -> Option<ExitStatus> {
    let until = Instant::now() + HANG_GUARD;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    text
}

/// `/dev/shm/cyclictest<pid>`: the status file of process `pid`.
fn snapshot_path(pid: u32) -> PathBuf {
    PathBuf::from(format!("/dev/shm/cyclictest{pid}"))
}

/// The three programs compared: the real cyclictest, rtlat as `cyclictest`, `rtlat run`.
fn programs(alias: &Alias) -> Vec<(&'static str, PathBuf, Vec<&'static str>)> {
    vec![
        ("cyclictest", real_cyclictest(), vec![]),
        ("rtlat as cyclictest", alias.path(), vec![]),
        ("rtlat run", rtlat(), vec!["run"]),
    ]
}

/// Runs `program prefix args`, reads standard output with `read` until it returns, then
/// closes the pipe as `head` does; the exit status and stderr. The real cyclictest killed by
/// SIGPIPE leaves its status file behind: it is removed here (and reported).
fn reader_goes_away(
    program: &Path,
    prefix: &[&str],
    args: &[&str],
    read: impl FnOnce(&mut BufReader<std::process::ChildStdout>),
) -> (Option<ExitStatus>, String, bool) {
    let mut child = Command::new(program)
        .args(prefix)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let mut out = BufReader::new(child.stdout.take().expect("piped stdout"));
    read(&mut out);
    drop(out);
    let status = wait(&mut child);
    let left = snapshot_path(child.id());
    let file_left = left.exists();
    let _ = std::fs::remove_file(&left);
    (status, stderr_of(&mut child), file_left)
}

/// Issue 11: `-v | head -3` made rtlat panic (exit 101, "failed printing to stdout: Broken
/// pipe"); live mode into `head -c 100` kept it running to the end. cyclictest dies of
/// SIGPIPE at once, silently; so does rtlat now, under both names, having removed its status
/// file (cyclictest leaves it in /dev/shm).
#[test]
fn a_reader_gone_ends_the_run_by_sigpipe_like_cyclictest() {
    let _serial = measuring();
    let alias = Alias::new();
    // A million cycles of 1 ms: a run that is not ended by its reader hits the hang guard.
    let long = ["-l", "1000000", "-i", "1000"];
    for (name, program, prefix) in programs(&alias) {
        let verbose: Vec<&str> = ["-v"].iter().chain(&long).copied().collect();
        let three_lines = |out: &mut BufReader<std::process::ChildStdout>| {
            for _ in 0..3 {
                let mut line = String::new();
                out.read_line(&mut line).expect("a line of -v output");
            }
        };
        let hundred_bytes = |out: &mut BufReader<std::process::ChildStdout>| {
            let mut bytes = [0u8; 100];
            out.read_exact(&mut bytes)
                .expect("100 bytes of live output");
        };
        for (what, status, stderr, file_left) in [
            {
                let (s, e, f) = reader_goes_away(&program, &prefix, &verbose, three_lines);
                ("-v | head -3", s, e, f)
            },
            {
                let (s, e, f) = reader_goes_away(&program, &prefix, &long, hundred_bytes);
                ("live | head -c 100", s, e, f)
            },
        ] {
            let status = status.unwrap_or_else(|| {
                panic!("{name} {what}: still running {HANG_GUARD:?} after its reader went away")
            });
            assert_eq!(
                status.signal(),
                Some(libc::SIGPIPE),
                "{name} {what}: ended with {status:?}, not by SIGPIPE; stderr: {stderr}"
            );
            assert_eq!(stderr, "", "{name} {what}: nothing on stderr");
            if name != "cyclictest" {
                assert!(
                    !file_left,
                    "{name} {what}: /dev/shm status file left behind"
                );
            }
        }
    }
}

/// Every command that prints, its standard output a pipe nobody reads: ended by SIGPIPE (the
/// shell's status 141), never a panic, nothing on stderr.
#[test]
fn every_printing_command_ends_by_sigpipe_on_a_closed_pipe() {
    let _serial = measuring();
    let alias = Alias::new();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cyclictest-2thr-hist.json");
    let fixture = fixture.to_str().unwrap();
    let rtlat = rtlat();
    let commands: Vec<(PathBuf, Vec<&str>)> = vec![
        (rtlat.clone(), vec!["--version"]),
        (rtlat.clone(), vec!["--help"]),
        (rtlat.clone(), vec!["run", "--help"]),
        (rtlat.clone(), vec!["run", "-q", "-l", "100", "-i", "1000"]),
        (rtlat.clone(), vec!["run", "-v", "-l", "100", "-i", "1000"]),
        (rtlat.clone(), vec!["latency", "--help"]),
        // Runs of 100 s, ended by their reader gone.
        (rtlat.clone(), vec!["latency", "-T", "100"]),
        (rtlat.clone(), vec!["servo", "--help"]),
        (rtlat.clone(), vec!["servo", "-D", "100"]),
        (rtlat.clone(), vec!["audit"]),
        (rtlat.clone(), vec!["threads"]),
        (rtlat.clone(), vec!["irq"]),
        (rtlat.clone(), vec!["compare", fixture, fixture]),
        (rtlat.clone(), vec!["plot", "--help"]),
        (alias.path(), vec!["--help"]),
        (alias.path(), vec!["-q", "-l", "100", "-i", "1000"]),
        // The reference: cyclictest dies the same way.
        (real_cyclictest(), vec!["--help"]),
        (real_cyclictest(), vec!["-q", "-l", "100", "-i", "1000"]),
    ];
    for (program, args) in commands {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut child = Command::new(&program)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stderr = stderr_of(&mut child);
        let status = wait(&mut child).expect("ends once its output has nowhere to go");
        let _ = std::fs::remove_file(snapshot_path(child.id()));
        let what = format!("{} {}", program.display(), args.join(" "));
        assert_eq!(
            status.signal(),
            Some(libc::SIGPIPE),
            "{what}: ended with {status:?}, not by SIGPIPE; stderr: {stderr}"
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{what}: {stderr}"
        );
    }
}

/// Any other failed write to standard output is said once, and the status is 4 (output lost),
/// where `print!` used to panic (exit 101).
#[test]
fn a_full_standard_output_is_one_line_and_status_4() {
    let _serial = measuring();
    for args in [&["--help"][..], &["run", "-q", "-l", "10", "-i", "1000"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = Command::new(rtlat())
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{stderr}"
        );
    }
}

/// The `-D` run of `args` as `rtlat run`, from its JSON: per thread (cycles, overruns).
fn cycles_and_overruns(args: &[&str]) -> Vec<(i64, i64)> {
    let dir = TempDir::new("duration");
    let json = dir.join("run.json");
    let mut all = vec!["-q", "--json", json.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = common::rtlat_run(&all, None, HANG_GUARD);
    assert_eq!(out.code(), 0, "{args:?}: {}", out.stderr);
    let doc = Json::parse(&std::fs::read_to_string(&json).unwrap());
    let threads = doc.at("thread");
    threads
        .keys()
        .iter()
        .map(|k| {
            let t = threads.at(k);
            (
                t.at("cycles").as_i64().unwrap(),
                t.at("rtlat").at("overruns").as_i64().unwrap(),
            )
        })
        .collect()
}

/// Issue 11: `-D` counted from before `--secaligned`'s wait (~1050 cycles in `--secaligned
/// -D 2`, where cyclictest measures ~1980) and overshot by the main thread's refresh (1008–1010
/// cycles at `-D 1`, where cyclictest does at most 1000). Now as in cyclictest: each thread
/// measures from its start (the full second with `--secaligned`) until its first wake-up at or
/// after start + D, that cycle included. So at most D/I cycles, and the cycles measured plus
/// the periods skipped (overruns) cover the whole duration — on a loaded machine too.
#[test]
fn duration_counts_from_the_start_of_the_measurement() {
    let _serial = measuring();
    for (args, periods) in [
        (&["-D", "1", "-i", "1000"][..], 1000),
        (&["--secaligned", "-D", "2", "-i", "1000"][..], 2000),
    ] {
        for (cycles, overruns) in cycles_and_overruns(args) {
            assert!(
                cycles <= periods,
                "{args:?}: {cycles} cycles, more than the {periods} periods of the duration"
            );
            assert!(
                cycles + overruns >= periods - 1,
                "{args:?}: {cycles} cycles and {overruns} periods skipped do not cover the {periods} periods of the duration"
            );
        }
    }
    // The real cyclictest never measures more than the duration's periods either.
    let dir = TempDir::new("duration-real");
    let json = dir.join("real.json");
    let out = common::run(
        &real_cyclictest(),
        &[
            "-q",
            "--secaligned",
            "-D",
            "2",
            "-i",
            "1000",
            "--json",
            json.to_str().unwrap(),
        ],
        None,
        HANG_GUARD,
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc = Json::parse(&std::fs::read_to_string(&json).unwrap());
    let cycles = doc.at("thread").at("0").at("cycles").as_i64().unwrap();
    assert!(
        cycles <= 2000,
        "cyclictest --secaligned -D 2: {cycles} cycles"
    );
}

/// Kills process `pid` when dropped unless disarmed: a failed assertion does not leave a run
/// of a million cycles behind.
struct KillOnDrop(Option<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            // SAFETY: kill(2) on our own child, not reaped yet (disarmed once it is).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let _ = std::fs::remove_file(snapshot_path(pid as u32));
        }
    }
}

/// `get_cyclictest_snapshot` (rt-tests) with its arguments; its standard output.
fn get_cyclictest_snapshot(args: &[&str]) -> String {
    let out = Command::new("get_cyclictest_snapshot")
        .args(args)
        .output()
        .expect("get_cyclictest_snapshot (rt-tests) is installed");
    assert!(
        out.status.success(),
        "get_cyclictest_snapshot {args:?}: {out:?}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `get_cyclictest_snapshot -p` printed, as a parser of it reads it: the `T:` lines'
/// thread numbers, thread ids, priorities and intervals; and the text without the NUL bytes
/// cyclictest leaves before its second and later snapshots.
fn parse_snapshot(text: &str) -> (Vec<(u64, u64, u64, u64)>, String) {
    let t_line = regex::Regex::new(r"^T:\s*(\d+)\s+\(\s*(\d+)\)\s+P:\s*(\d+)\s+I:(\d+)\s+C:\s*\d+\s+Min:\s*\d+\s+Act:\s*\d+\s+Avg:\s*\d+\s+Max:\s*\d+$").unwrap();
    let threads = text
        .lines()
        .filter_map(|l| t_line.captures(l))
        .map(|c| {
            let n = |i: usize| c[i].parse::<u64>().unwrap();
            (n(1), n(2), n(3), n(4))
        })
        .collect();
    (threads, text.replace('\0', ""))
}

/// Waits until `path` holds a complete status block other than `before` (a new snapshot).
fn wait_for_block(path: &Path, before: &[u8]) {
    let until = Instant::now() + HANG_GUARD;
    loop {
        let bytes = std::fs::read(path).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        if bytes != before
            && text.contains("# cyclictest current status:")
            && text.ends_with("#---------------------------\n")
        {
            return;
        }
        assert!(
            Instant::now() < until,
            "no snapshot in {}: {text:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Issue 11: `rtlat run` wrote no `/dev/shm` snapshot on SIGUSR2, so `get_cyclictest_snapshot`
/// found nothing, and the file rtlat as cyclictest made started empty where cyclictest's
/// starts as 30 NUL bytes. Now the real tool, run against cyclictest, rtlat as cyclictest and
/// `rtlat run`, lists, signals and prints the same: the file exists from the start with 30
/// NUL bytes, a snapshot is cyclictest's status block (one `T:` line per thread, with the
/// process's own thread ids), and the file is gone when the run ends.
#[test]
fn get_cyclictest_snapshot_reads_rtlat_as_it_reads_cyclictest() {
    let _serial = measuring();
    let alias = Alias::new();
    let mut parsed = Vec::new();
    for (name, program, prefix) in programs(&alias) {
        let mut args = prefix.clone();
        args.extend_from_slice(&["-q", "-t", "2", "-i", "1000", "-l", "1000000"]);
        let child = common::spawn(&program, &args, None);
        let pid = child.pid() as u32;
        let mut guard = KillOnDrop(Some(child.pid()));
        let path = snapshot_path(pid);
        let until = Instant::now() + HANG_GUARD;
        while std::fs::metadata(&path).map_or(true, |m| m.len() != 30) {
            assert!(
                Instant::now() < until,
                "{name}: no {} of 30 bytes",
                path.display()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            vec![0u8; 30],
            "{name}: the file starts as cyclictest's"
        );
        let listed = get_cyclictest_snapshot(&["-l"]);
        assert!(
            listed.lines().any(|l| l == pid.to_string()),
            "{name}: get_cyclictest_snapshot -l lists {listed:?}, not {pid}"
        );
        // Snapshots until the threads run (their ids are in the block).
        let until = Instant::now() + HANG_GUARD;
        let (threads, text) = loop {
            let before = std::fs::read(&path).unwrap_or_default();
            get_cyclictest_snapshot(&["-s", &pid.to_string()]);
            wait_for_block(&path, &before);
            let printed = get_cyclictest_snapshot(&["-p", &pid.to_string()]);
            let (threads, text) = parse_snapshot(&printed);
            assert_eq!(threads.len(), 2, "{name}: {printed:?}");
            if threads.iter().all(|t| t.1 > 0) {
                break (threads, text);
            }
            assert!(
                Instant::now() < until,
                "{name}: threads not started: {printed:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        for (i, (index, tid, _, _)) in threads.iter().enumerate() {
            assert_eq!(*index, i as u64, "{name}: {text:?}");
            assert!(
                Path::new(&format!("/proc/{pid}/task/{tid}")).exists(),
                "{name}: thread id {tid} is not a thread of {pid}"
            );
        }
        child.signal(libc::SIGINT);
        let out = child.finish(HANG_GUARD);
        guard.0 = None;
        assert_eq!(out.code(), 0, "{name}: {}", out.stderr);
        assert!(!path.exists(), "{name}: {} left behind", path.display());
        let fields: Vec<(u64, u64)> = threads
            .iter()
            .map(|&(i, _, p, iv)| (i * 1000 + p, iv))
            .collect();
        parsed.push((name, fields, text));
    }
    let (reference, fields, text) = &parsed[0];
    for (name, other_fields, other_text) in &parsed[1..] {
        assert_eq!(other_fields, fields, "{name} against {reference}");
        common::compare_lines(
            &format!("get_cyclictest_snapshot -p of {name}"),
            text,
            other_text,
        )
        .unwrap();
    }
}

/// Issue 11: `--tracemark` printed no `INFO: debugfs mountpoint: …` line. With `-b`,
/// cyclictest says on stderr where it found tracefs; rtlat finds it in the same place and
/// says the same. debugfs is mounted for the test if it is not (cyclictest would mount it
/// itself, rtlat does not), and unmounted again after.
#[test]
fn tracemark_says_where_it_found_tracefs_as_cyclictest_does() {
    let _serial = measuring();
    let debug_tracing = Path::new("/sys/kernel/debug/tracing");
    let mounted_here = !debug_tracing.join("trace_marker").exists()
        && Command::new("mount")
            .args(["-t", "debugfs", "debugfs", "/sys/kernel/debug"])
            .status()
            .is_ok_and(|s| s.success());
    if !debug_tracing.join("trace_marker").exists() {
        println!("NOTE: debugfs/tracefs cannot be mounted here; --tracemark not compared");
        return;
    }
    let alias = Alias::new();
    let args = [
        "--tracemark",
        "-b",
        "1000000",
        "-l",
        "20",
        "-i",
        "1000",
        "-q",
    ];
    let real = common::run(&real_cyclictest(), &args, None, HANG_GUARD);
    let ours = common::run(&alias.path(), &args, None, HANG_GUARD);
    let mut run_args = vec!["run"];
    run_args.extend_from_slice(&args);
    let run = common::run(&rtlat(), &run_args, None, HANG_GUARD);
    if mounted_here {
        let _ = Command::new("umount")
            .arg("/sys/kernel/debug/tracing")
            .status();
        let _ = Command::new("umount").arg("/sys/kernel/debug").status();
    }
    let info = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("INFO:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(real.code(), 0, "{}", real.stderr);
    assert_eq!(
        info(&real.stderr),
        vec!["INFO: debugfs mountpoint: /sys/kernel/debug/tracing/".to_string()]
    );
    for (name, out) in [("rtlat as cyclictest", &ours), ("rtlat run", &run)] {
        assert_eq!(out.code(), 0, "{name}: {}", out.stderr);
        assert_eq!(
            info(&out.stderr),
            info(&real.stderr),
            "{name}: {}",
            out.stderr
        );
    }
}
