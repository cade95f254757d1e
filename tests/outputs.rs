//! Every file rtlat writes results to (`run --json`/`--histfile`, also as `cyclictest`,
//! `servo --json`, `latency -g`, `plot -o`): a symlink planted by another user is never
//! followed, devices and FIFOs are written to and not replaced, a replaced file keeps its
//! mode and owner, whatever can be checked is checked before the run (exit 2, nothing
//! measured), every output is attempted, and a result that could not be written exits 4
//! (1 when over `--fail-above`, which a write failure never hides).

use crate::common;

use std::fs;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Alias, Json, JsonExt, TempDir, as_nobody, measuring, rtlat, rtlat_command, spawn};

/// A short run: 100 cycles of 1 ms, only the summary printed.
const SHORT: [&str; 5] = ["-q", "-l", "100", "-i", "1000"];
const NOBODY: u32 = 65534;
const TIMEOUT: Duration = Duration::from_secs(120);

fn text(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn run(args: &[&str]) -> common::Outcome {
    let mut all = SHORT.to_vec();
    all.extend_from_slice(args);
    common::rtlat_run(&all, None, TIMEOUT)
}

/// A character device node `name` in `dir`, a copy of /dev/null (minor 3) or /dev/full
/// (minor 7): the tests never touch the real ones.
fn device(dir: &TempDir, name: &str, minor: u32) -> PathBuf {
    let path = dir.join(name);
    let ok = Command::new("mknod")
        .arg(&path)
        .args(["c", "1", &minor.to_string()])
        .status()
        .expect("mknod (coreutils)")
        .success();
    assert!(ok, "mknod {}", path.display());
    fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    path
}

fn is_char_device(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

/// The JSON document in `path` (panics if it is not one).
fn json_in(path: &Path) -> Json {
    Json::parse(&fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// A symlink at `at` to `to`, owned by user nobody (as nobody would have planted it).
fn plant(to: &Path, at: &Path) {
    std::os::unix::fs::symlink(to, at).unwrap();
    std::os::unix::fs::lchown(at, Some(NOBODY), Some(NOBODY)).unwrap();
}

/// A file only root can read and write, in a folder of root's, with `secret` in it.
fn root_only_file() -> (TempDir, PathBuf) {
    let dir = TempDir::new("root-only");
    let secret = dir.join("root-only-file");
    fs::write(&secret, "secret").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    (dir, secret)
}

/// A folder user nobody owns and can write.
fn nobodys_folder(tag: &str) -> TempDir {
    let dir = TempDir::new(tag);
    std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    dir
}

/// Issue 10, item 2: nobody planted `.out.json.rtlat-PID.tmp -> /root-only-file` for every
/// PID, and root's `--json DIR/out.json` wrote its JSON into that file.
#[test]
fn symlinks_planted_at_temporary_names_are_never_followed() {
    let _m = measuring();
    let (_secret_dir, secret) = root_only_file();
    let dir = nobodys_folder("planted");
    let out = dir.join("out.json");
    for pid in 300..2300 {
        plant(&secret, &dir.join(&format!(".out.json.rtlat-{pid}.tmp")));
    }
    let mut args = SHORT.to_vec();
    args.extend(["--json", text(&out)]);
    let running = spawn(
        &rtlat(),
        &["run"].iter().chain(&args).copied().collect::<Vec<_>>(),
        None,
    );
    // The name the run's own temporary file had, planted before the run ends.
    let own = dir.join(&format!(".out.json.rtlat-{}.tmp", running.pid()));
    if fs::symlink_metadata(&own).is_err() {
        plant(&secret, &own);
    }
    let outcome = running.finish(TIMEOUT);
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    assert_eq!(fs::read_to_string(&secret).unwrap(), "secret");
    let meta = fs::symlink_metadata(&out).unwrap();
    assert!(meta.file_type().is_file(), "out.json is a regular file");
    assert_eq!(meta.uid(), 0, "owned by root, who wrote it");
    json_in(&out);
    // Nothing left behind but the planted symlinks.
    for name in dir.names() {
        let meta = fs::symlink_metadata(dir.join(&name)).unwrap();
        assert!(
            name == "out.json" || (meta.file_type().is_symlink() && meta.uid() == NOBODY),
            "{name} left behind"
        );
    }
}

/// A symlink another user planted at the output's own name is refused before the run: that
/// user chooses where it points.
#[test]
fn an_output_that_is_another_users_symlink_is_refused() {
    let _m = measuring();
    let (_secret_dir, secret) = root_only_file();
    let dir = nobodys_folder("their-link");
    let out = dir.join("out.json");
    plant(&secret, &out);
    let outcome = run(&["--json", text(&out)]);
    outcome.assert_refused(&"--json nobody's symlink", "owned by uid 65534");
    assert!(
        outcome.stdout.is_empty(),
        "nothing measured: {}",
        outcome.stdout
    );
    assert_eq!(fs::read_to_string(&secret).unwrap(), "secret");
    assert!(fs::symlink_metadata(&out).unwrap().file_type().is_symlink());
}

/// Issue 10, item 3: `--json /dev/null` turned the device node into a regular file.
#[test]
fn devices_are_written_to_and_stay_devices() {
    let _m = measuring();
    let dir = TempDir::new("devices");
    let null = device(&dir, "null", 3);
    let good = dir.join("good.json");
    let outcome = run(&["-h", "10", "--histfile", text(&null), "--json", text(&good)]);
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    assert!(is_char_device(&null), "still a device");
    json_in(&good);
    assert_eq!(dir.names(), ["good.json", "null"]);
}

/// Issue 10, items 3, 7 and 8: `/dev/full` as `--histfile` is a write error, named in one
/// line; `--json` is still written; the status is 4.
#[test]
fn a_result_that_cannot_be_written_exits_4_and_the_others_are_written() {
    let _m = measuring();
    let dir = TempDir::new("full");
    let full = device(&dir, "full", 7);
    let good = dir.join("good.json");
    let outcome = run(&["-h", "10", "--histfile", text(&full), "--json", text(&good)]);
    assert_eq!(outcome.code(), 4, "{}", outcome.stderr);
    assert_eq!(outcome.stderr.lines().count(), 1, "{}", outcome.stderr);
    assert!(outcome.stderr.contains("--histfile"), "{}", outcome.stderr);
    assert!(outcome.stderr.contains(text(&full)), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("No space left"),
        "{}",
        outcome.stderr
    );
    json_in(&good);
    assert!(is_char_device(&full));

    // The other way round, and under the name cyclictest.
    let hist = dir.join("hist.txt");
    let alias = Alias::new();
    let mut args = SHORT.to_vec();
    args.extend(["-h", "10", "--histfile", text(&hist), "--json", text(&full)]);
    let outcome = common::run(&alias.path(), &args, None, TIMEOUT);
    assert_eq!(outcome.code(), 4, "{}", outcome.stderr);
    assert_eq!(outcome.stderr.lines().count(), 1, "{}", outcome.stderr);
    assert!(
        outcome.stderr.starts_with("cyclictest: "),
        "{}",
        outcome.stderr
    );
    assert!(outcome.stderr.contains(text(&full)), "{}", outcome.stderr);
    assert!(fs::read_to_string(&hist).unwrap().contains("# Histogram"));
}

/// Issue 10, item 8: a write failure hid `--fail-above`'s 1 (it exited 2).
#[test]
fn a_write_failure_never_hides_the_threshold_verdict() {
    let _m = measuring();
    let dir = TempDir::new("verdict");
    let full = device(&dir, "full", 7);
    // Every latency is above 0 µs.
    let outcome = run(&["--fail-above", "0", "--json", text(&full)]);
    assert_eq!(outcome.code(), 1, "{}", outcome.stderr);
    assert!(outcome.stderr.contains(text(&full)), "{}", outcome.stderr);
    assert!(
        outcome.stderr.contains("--fail-above"),
        "{}",
        outcome.stderr
    );
}

/// Issue 10, item 3: a FIFO blocked the check before the run forever, and was then replaced
/// by a regular file. Now the run measures without a reader, and the JSON goes into the
/// FIFO once a reader opens it.
#[test]
fn a_fifo_is_written_to_and_does_not_block_the_check() {
    let _m = measuring();
    let dir = TempDir::new("fifo");
    let fifo = dir.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let hist = dir.join("hist.txt");
    let mut args = vec!["run"];
    args.extend(SHORT);
    args.extend(["-h", "10", "--histfile", text(&hist), "--json", text(&fifo)]);
    let running = spawn(&rtlat(), &args, None);
    // The histogram file is written after the run, before the JSON: the run got past its
    // checks and measured with no reader on the FIFO.
    let until = Instant::now() + TIMEOUT;
    while !hist.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    if !hist.exists() {
        let outcome = running.finish(Duration::ZERO);
        panic!("the run never got to its results (blocked on the FIFO?): {outcome:?}");
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let reader = fifo.clone();
    std::thread::spawn(move || sender.send(fs::read(reader)));
    let read = receiver.recv_timeout(TIMEOUT);
    let outcome = running.finish(TIMEOUT);
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    let json = read
        .expect("the FIFO got its writer")
        .expect("read the FIFO");
    Json::parse(&String::from_utf8(json).unwrap());
    assert!(
        fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "still a FIFO"
    );
    assert_eq!(dir.names(), ["fifo", "hist.txt"]);
}

/// `--json /dev/stdout`: the JSON on standard output; /dev/stdout stays a symlink.
#[test]
fn standard_output_by_name_is_written_to() {
    let _m = measuring();
    let before = fs::read_link("/dev/stdout").unwrap();
    let outcome = run(&["--json", "/dev/stdout"]);
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    let at = outcome.stdout.find('{').expect("JSON on stdout");
    Json::parse(&outcome.stdout[at..]);
    assert_eq!(fs::read_link("/dev/stdout").unwrap(), before);
}

/// Issue 10, item 3: a replaced file lost its mode and owner.
#[test]
fn a_replaced_output_keeps_its_mode_and_owner() {
    let _m = measuring();
    let dir = TempDir::new("keep");
    let out = dir.join("out.json");
    let hist = dir.join("hist.txt");
    for (path, mode) in [(&out, 0o600), (&hist, 0o640)] {
        fs::write(path, "old").unwrap();
        std::os::unix::fs::chown(path, Some(NOBODY), Some(NOBODY)).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }
    let outcome = run(&["-h", "10", "--histfile", text(&hist), "--json", text(&out)]);
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    for (path, mode) in [(&out, 0o600), (&hist, 0o640)] {
        let meta = fs::metadata(path).unwrap();
        assert_eq!(meta.mode() & 0o7777, mode, "{}", path.display());
        assert_eq!(
            (meta.uid(), meta.gid()),
            (NOBODY, NOBODY),
            "{}",
            path.display()
        );
        assert_ne!(fs::read_to_string(path).unwrap(), "old");
    }
    json_in(&out);
    assert_eq!(dir.names(), ["hist.txt", "out.json"]);
}

/// Issue 10, item 6: a writable file in a folder the user cannot write passed the check;
/// the run measured, then failed to write, and the results were lost.
#[test]
fn a_writable_file_in_an_unwritable_folder_is_refused_before_the_run() {
    let dir = TempDir::new("unwritable");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.join("out.json");
    fs::write(&out, "old").unwrap();
    std::os::unix::fs::chown(&out, Some(NOBODY), Some(NOBODY)).unwrap();
    let mut args = vec!["run"];
    args.extend(SHORT);
    args.extend(["--json", text(&out)]);
    let output = as_nobody(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(text(&out)), "{stderr}");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing measured");
    assert_eq!(fs::read_to_string(&out).unwrap(), "old");
    assert_eq!(dir.names(), ["out.json"]);
}

/// Issue 10, item 6: `/proc/version` passed the check; the run measured, then failed.
/// Files of the kernel's interface are refused before anything is measured, in every
/// command that writes results.
#[test]
fn kernel_files_are_refused_before_the_run() {
    let _m = measuring();
    let mut cases: Vec<(&str, Vec<&str>, &str)> = vec![
        ("run", vec!["--json", "/proc/version"], "procfs"),
        (
            "run",
            vec!["-h", "10", "--histfile", "/proc/version"],
            "procfs",
        ),
        ("run", vec!["--json", "/sys/kernel/rtlat.json"], "sysfs"),
        (
            "servo",
            vec!["-D", "1", "-q", "--json", "/proc/version"],
            "procfs",
        ),
        (
            "latency",
            vec!["-T", "1", "-q", "-g", "/proc/version"],
            "procfs",
        ),
    ];
    for (command, args, _) in cases.iter_mut() {
        if *command == "run" {
            let mut all = SHORT.to_vec();
            all.append(args);
            *args = all;
        }
    }
    for (command, args, fragment) in &cases {
        let outcome = rtlat_command(command, args, None, TIMEOUT);
        outcome.assert_refused(&(command, args), fragment);
        assert!(
            outcome.stdout.is_empty(),
            "{command} {args:?}: {}",
            outcome.stdout
        );
    }
    let plot = rtlat_command(
        "plot",
        &[&plot_input(), "-o", "/proc/rtlat.svg"],
        None,
        TIMEOUT,
    );
    plot.assert_refused(&"plot -o /proc/rtlat.svg", "procfs");
}

fn plot_input() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/plot/cyclictest-h400-2thr.txt")
        .display()
        .to_string()
}

/// Issue 10, item 8 for the other commands: a result they could not write exits 4, named
/// in one line.
#[test]
fn servo_latency_and_plot_exit_4_when_their_file_cannot_be_written() {
    let _m = measuring();
    let dir = TempDir::new("others");
    let full = device(&dir, "full", 7);
    let full_svg = device(&dir, "full.svg", 7);
    let null_svg = device(&dir, "null.svg", 3);
    for (command, args) in [
        ("servo", vec!["-D", "1", "-q", "--json", text(&full)]),
        ("latency", vec!["-T", "1", "-q", "-g", text(&full)]),
        ("plot", vec![plot_input().leak(), "-o", text(&full_svg)]),
    ] {
        let outcome = rtlat_command(command, &args, None, TIMEOUT);
        assert_eq!(outcome.code(), 4, "{command}: {}", outcome.stderr);
        // One line (latency -q also says, as Xenomai's does, that it runs quietly).
        let lines: Vec<&str> = outcome
            .stderr
            .lines()
            .filter(|l| l.contains("cannot write"))
            .collect();
        assert_eq!(lines.len(), 1, "{command}: {}", outcome.stderr);
        assert!(lines[0].contains(text(&dir.join(""))), "{}", outcome.stderr);
    }
    let outcome = rtlat_command(
        "plot",
        &[&plot_input(), "-o", text(&null_svg)],
        None,
        TIMEOUT,
    );
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    for device in [&full, &full_svg, &null_svg] {
        assert!(is_char_device(device), "{}", device.display());
    }
}

/// Issue 10, item 12: a run stopped by SIGTERM writes its results and leaves no temporary
/// file behind.
#[test]
fn a_stopped_run_writes_its_results_and_leaves_no_temporary_file() {
    let _m = measuring();
    let dir = TempDir::new("stopped");
    let out = dir.join("out.json");
    let hist = dir.join("hist.txt");
    let running = spawn(
        &rtlat(),
        &[
            "run",
            "-q",
            "-i",
            "1000",
            "-D",
            "600",
            "-h",
            "10",
            "--histfile",
            text(&hist),
            "--json",
            text(&out),
        ],
        None,
    );
    // Measuring once the measurement thread exists.
    let thread = format!("/proc/{}/task", running.pid());
    let until = Instant::now() + TIMEOUT;
    let measuring = || {
        fs::read_dir(&thread).is_ok_and(|tasks| {
            tasks.flatten().any(|t| {
                fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "rtlat-t0")
            })
        })
    };
    while !measuring() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    running.signal(libc::SIGTERM);
    let outcome = running.finish(TIMEOUT);
    assert_eq!(outcome.code(), 0, "{}", outcome.stderr);
    json_in(&out);
    assert_eq!(dir.names(), ["hist.txt", "out.json"]);
}

/// Issue 10, item 8: `--help` of every command that writes results shows the exit statuses.
#[test]
fn help_shows_the_exit_statuses() {
    for command in ["run", "servo", "latency", "plot"] {
        let outcome = rtlat_command(command, &["--help"], None, TIMEOUT);
        assert_eq!(outcome.code(), 0, "{command}");
        assert!(
            outcome.stdout.contains(rtlat::exit_status::HELP),
            "{command} --help:\n{}",
            outcome.stdout
        );
    }
}
