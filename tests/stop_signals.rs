//! Stop signals are acted on whatever the run is waiting for (issue 10, items 5 and 12):
//! SIGINT, SIGTERM and SIGHUP end `rtlat run` with an interval of an hour, or a
//! `--secaligned` start more than a day away, as soon as they come — the summary of the
//! cycles measured (none), exit status 0 — where the run used to wait for its next wake-up;
//! `rtlat latency` and `rtlat servo` (periods of up to a second) end the same way. A signal
//! that arrives before the command has installed its handlers is answered too, never kills it.
//!
//! No test asserts how fast: each waits until the measurement thread is asleep in its timer
//! (read in `/proc/PID/task/TID/syscall`), sends the signal, and gives the
//! process a generous hang guard to exit in the documented way. The time from signal to exit
//! is measured by hand (README of issue 10's report), not here.

use crate::common;

use std::time::{Duration, Instant};

use common::{Json, JsonExt, Outcome, Running, TempDir, measuring, rtlat, spawn, spawn_with};

/// How long a signalled process may take to exit before the test calls it a hang.
const HANG_GUARD: Duration = Duration::from_secs(5);
/// How long a process may take to reach its measurement sleep.
const START: Duration = Duration::from_secs(20);
const HOUR_US: &str = "3600000000";

/// Waits until a thread of `pid` named `name` is blocked in its timer's wait
/// (`clock_nanosleep`, `nanosleep`, `rt_sigtimedwait` for `-x`, `read` of a timerfd): its
/// measurement sleep; false after [`START`].
fn wait_until_asleep(pid: i32, name: &str) -> bool {
    let until = Instant::now() + START;
    let waits = [
        libc::SYS_clock_nanosleep,
        libc::SYS_nanosleep,
        libc::SYS_rt_sigtimedwait,
        libc::SYS_read,
    ];
    let sleeping = |syscall: &str| {
        let number = syscall.split(' ').next().unwrap_or("");
        waits.iter().any(|w| w.to_string() == number)
    };
    while Instant::now() < until {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten();
        for task in tasks.flatten() {
            let dir = task.path();
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            if read("comm").trim_end() == name && sleeping(&read("syscall")) {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Starts `rtlat ARGS`, waits for thread `thread` to sleep, sends `signal`; the outcome.
fn signalled(args: &[&str], thread: &str, signal: i32) -> Outcome {
    let child = spawn(&rtlat(), args, None);
    assert!(
        wait_until_asleep(child.pid(), thread),
        "{args:?}: {thread} never slept: {}",
        child.stderr_so_far()
    );
    child.signal(signal);
    let (out, took) = child.finish_within(HANG_GUARD);
    assert!(
        out.status.is_some(),
        "{args:?}: still running {took:?} after signal {signal} (a hang)"
    );
    out
}

/// The end of a run stopped before its first wake-up: status 0, one summary line per thread
/// with no cycle, as cyclictest prints it.
fn assert_summary_without_cycles(what: &str, out: &Outcome, threads: usize) {
    assert_eq!(out.code(), 0, "{what}: {}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("T:")).collect();
    assert_eq!(lines.len(), threads, "{what}: {}", out.stdout);
    for line in lines {
        assert!(
            line.contains(" C:      0 Min:1000000 Act:    0 Avg:    0 Max:       0"),
            "{what}: {line}"
        );
    }
}

const STOP_SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

#[test]
fn a_stop_signal_ends_an_hour_long_interval_at_once() {
    let _serial = measuring();
    for signal in STOP_SIGNALS {
        let dir = TempDir::new("stop-hour");
        let json = dir.join("out.json");
        let json_arg = json.to_str().unwrap();
        for timer in [
            None,
            Some("-x"),
            Some("-r"),
            Some("-s"),
            Some("--timer=timerfd"),
        ] {
            let mut args = vec!["run", "-t", "1", "-i", HOUR_US, "-q", "--json", json_arg];
            args.extend(timer);
            let out = signalled(&args, "rtlat-t0", signal);
            let what = format!("{args:?} signal {signal}");
            assert_summary_without_cycles(&what, &out, 1);
            let doc = Json::parse(&std::fs::read_to_string(&json).expect("the --json file"));
            assert_eq!(doc.at("thread").at("0").at("cycles").as_i64(), Some(0));
            assert_eq!(dir.names(), ["out.json"], "{what}: nothing else left");
        }
    }
}

#[test]
fn a_stop_signal_ends_the_wait_for_a_distant_secaligned_start() {
    let _serial = measuring();
    for signal in STOP_SIGNALS {
        let args = [
            "run",
            "-t",
            "2",
            "-p",
            "80",
            "-i",
            "1000",
            "--secaligned=99999999",
            "-q",
        ];
        let out = signalled(&args, "rtlat-t1", signal);
        assert_summary_without_cycles(&format!("signal {signal}"), &out, 2);
    }
}

#[test]
fn latency_and_servo_end_on_a_stop_signal_with_their_longest_period() {
    let _serial = measuring();
    for signal in STOP_SIGNALS {
        let out = signalled(
            &["latency", "-p", "1000000", "-T", "3600"],
            "rtlat-latency",
            signal,
        );
        assert_eq!(out.code(), 0, "latency, signal {signal}: {}", out.stderr);
        assert!(
            out.stdout.lines().last().unwrap_or("").starts_with("RTS|"),
            "latency, signal {signal}: {}",
            out.stdout
        );

        let out = signalled(
            &["servo", "--base", "500ms", "--servo", "1s", "-q"],
            "rtlat-servo",
            signal,
        );
        assert_eq!(out.code(), 0, "servo, signal {signal}: {}", out.stderr);
        assert!(
            out.stdout
                .lines()
                .last()
                .unwrap_or("")
                .starts_with("Verdict: "),
            "servo, signal {signal}: {}",
            out.stdout
        );
    }
}

/// In the child before exec: the run's signals blocked, so one sent right after the spawn
/// is still pending when rtlat starts — as if it came before rtlat's handlers.
fn block_run_signals() -> std::io::Result<()> {
    // SAFETY: sigemptyset, sigaddset and sigprocmask on a local set are async-signal-safe.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signo in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGUSR1,
            libc::SIGUSR2,
        ] {
            libc::sigaddset(&mut set, signo);
        }
        if libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Starts `rtlat ARGS` with `signal` already on its way (pending from the first
/// instruction) and waits for the end within the hang guard.
fn signalled_at_start(args: &[&str], signal: i32) -> Outcome {
    let child: Running = spawn_with(&rtlat(), args, None, Some(block_run_signals));
    child.signal(signal);
    let (out, took) = child.finish_within(START);
    assert!(
        out.status.is_some(),
        "{args:?}: still running {took:?} after signal {signal} (a hang)"
    );
    out
}

/// Issue 10, item 12: SIGUSR1, SIGUSR2 and SIGHUP in the first milliseconds killed the run
/// with no output (its handlers came after option parsing and the machine's checks). Each
/// measuring command now installs them first: a stop signal before the measurement ends
/// the run cleanly (nothing measured, everything restored, status 0, the usual summary);
/// SIGUSR1 and SIGUSR2 are answered and the run goes on to its end.
#[test]
fn signals_before_the_handlers_are_answered_never_fatal() {
    let _serial = measuring();
    for _ in 0..3 {
        for signal in STOP_SIGNALS {
            let out = signalled_at_start(&["run", "-t", "1", "-i", HOUR_US, "-q"], signal);
            assert_summary_without_cycles(&format!("run, signal {signal}"), &out, 1);

            let out = signalled_at_start(&["latency", "-T", "3600"], signal);
            assert_eq!(out.code(), 0, "latency, signal {signal}: {}", out.stderr);
            assert!(out.stdout.contains("\nRTS|"), "{}", out.stdout);

            let out = signalled_at_start(&["servo", "-q"], signal);
            assert_eq!(out.code(), 0, "servo, signal {signal}: {}", out.stderr);
            assert!(out.stdout.contains("\nVerdict: "), "{}", out.stdout);
        }
        // SIGUSR1: the status block, and the run goes on to its loop count.
        let out = signalled_at_start(
            &["run", "-t", "1", "-i", "1000", "-l", "100", "-q"],
            libc::SIGUSR1,
        );
        assert_eq!(out.code(), 0, "{}", out.stderr);
        assert!(
            out.stderr.contains("# cyclictest current status:\nT: 0 "),
            "{}",
            out.stderr
        );
        assert!(out.stdout.contains(" C:    100 "), "{}", out.stdout);
        // SIGUSR2 (cyclictest's snapshot): answered, the run goes on to its end.
        let out = signalled_at_start(
            &["run", "-t", "1", "-i", "1000", "-l", "100", "-q"],
            libc::SIGUSR2,
        );
        assert_eq!(out.code(), 0, "{}", out.stderr);
        assert!(out.stdout.contains(" C:    100 "), "{}", out.stdout);
        for command in [
            vec!["latency", "-T", "2", "-q"],
            vec!["servo", "-D", "1", "-q"],
        ] {
            for signal in [libc::SIGUSR1, libc::SIGUSR2] {
                let out = signalled_at_start(&command, signal);
                assert_eq!(out.code(), 0, "{command:?} {signal}: {}", out.stderr);
            }
        }
    }
}

/// In the child before exec: SIGHUP ignored, as `nohup` leaves it.
fn ignore_sighup() -> std::io::Result<()> {
    // SAFETY: signal(2) with SIG_IGN is async-signal-safe.
    if unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) } == libc::SIG_ERR {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `nohup rtlat run …` outlives its terminal: a SIGHUP ignored when the run starts stays
/// ignored, while SIGINT still ends the run.
#[test]
fn a_run_under_nohup_ignores_sighup() {
    let _serial = measuring();
    let args = ["run", "-t", "1", "-i", "1000", "-q"];
    let mut child = spawn_with(&rtlat(), &args, None, Some(ignore_sighup));
    assert!(wait_until_asleep(child.pid(), "rtlat-t0"));
    child.signal(libc::SIGHUP);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !child.has_exited(),
        "SIGHUP ended a run started under nohup"
    );
    child.signal(libc::SIGINT);
    let out = child.finish_within(HANG_GUARD).0;
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains("T: 0 "), "{}", out.stdout);
}
