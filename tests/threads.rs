//! `rtlat threads` through the binary, on real threads: `sleep` children get FIFO priorities
//! and CPUs (as a QEMU guest's vCPU threads would), checked in `/proc/PID/task/TID/stat`
//! (fields 40 and 41) and `Cpus_allowed_list`, then restored; a dry run changes nothing; bad
//! input exits 2 with one line; as user nobody the error names CAP_SYS_NICE. Processes with
//! named threads, as QEMU names its vCPU threads (a `python3` helper, and a real QEMU, paused),
//! have the threads `--pid`/`--name` select changed, and restored after the process exited.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Outcome, TempDir, as_nobody};

const QUICK: Duration = Duration::from_secs(20);

fn threads(args: &[&str], cwd: &Path) -> Outcome {
    common::rtlat_command("threads", args, Some(cwd), QUICK)
}

/// A `sleep 30` child, killed on drop.
struct Sleeper(Child);

impl Sleeper {
    fn start() -> Sleeper {
        Sleeper(
            Command::new("sleep")
                .arg("30")
                .stdout(Stdio::null())
                .spawn()
                .expect("start sleep"),
        )
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    /// (rt_priority, policy): fields 40 and 41 of its main thread's stat line.
    fn rt(&self) -> (u32, u32) {
        let pid = self.pid();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        // fields[0] is field 3.
        (
            fields[40 - 3].parse().unwrap(),
            fields[41 - 3].trim().parse().unwrap(),
        )
    }

    /// Field 22 of its stat line: when it started, in clock ticks after boot.
    fn start_time(&self) -> u64 {
        let pid = self.pid();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        fields[22 - 3].parse().unwrap()
    }

    /// `sched_getscheduler`: the policy, with `SCHED_RESET_ON_FORK` if set.
    fn policy(&self) -> i32 {
        // SAFETY: plain integer argument.
        unsafe { libc::sched_getscheduler(self.pid() as i32) }
    }

    fn nice(&self) -> i32 {
        let pid = self.pid();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        fields[19 - 3].parse().unwrap()
    }

    fn cpus_allowed(&self) -> String {
        let pid = self.pid();
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/status"))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap()
            .trim()
            .to_owned()
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The online CPUs as the kernel lists them (`0-1`).
fn all_cpus() -> String {
    rtlat_linux::cpuset::CpuSet::from_cpus(common::online_cpus())
        .unwrap()
        .to_string()
}

#[test]
fn lists_a_process_by_pid_and_by_name() {
    let dir = TempDir::new("threads-list");
    let sleeper = Sleeper::start();
    let pid = sleeper.pid().to_string();
    let out = threads(&["--pid", &pid], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "PID", "TID", "CPU", "POLICY", "RTPRIO", "NI", "AFFINITY", "PROCESS", "THREAD"
        ]
    );
    assert_eq!(lines.len(), 2);
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(row[0], pid);
    assert_eq!(row[1], pid);
    assert_eq!(
        &row[3..],
        ["other", "-", "0", &all_cpus(), "sleep", "sleep"]
    );

    let out = threads(&["--name", "^slee+p$", "--json"], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let mine = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tid"] == sleeper.pid())
        .unwrap_or_else(|| panic!("sleep {pid} not listed: {}", out.stdout));
    assert_eq!(mine["process"], "sleep");
    assert_eq!(mine["policy"], "other");
    assert_eq!(mine["affinity"], all_cpus());
    assert_eq!(mine["kernel_thread"], false);

    // The whole machine, kernel threads included.
    let out = threads(&[], dir.path());
    assert_eq!(out.code(), 0);
    assert!(out.stdout.lines().any(|l| l.contains("kthreadd")));
}

/// Issue 10, item 4: `.*` eight times before a name took more than 20 s (the old matcher
/// backtracked exponentially). Matching is linear now: the run finishes, well within the hang
/// guard, and picks exactly the threads whose process or thread name ends in `sleep`.
#[test]
fn a_pattern_that_backtracks_exponentially_still_finishes() {
    let dir = TempDir::new("threads-pathological");
    let sleeper = Sleeper::start();
    let pattern = format!("{}sleep$", ".*".repeat(8));
    let out = threads(&["--name", &pattern, "--json"], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["tid"] == sleeper.pid()),
        "sleep {} not listed: {}",
        sleeper.pid(),
        out.stdout
    );
    for row in rows {
        let named = |key: &str| row[key].as_str().unwrap().ends_with("sleep");
        assert!(named("name") || named("process"), "{row}");
    }
    // Nothing ends in `Z` here: no thread, and still no hang.
    let pattern = format!("{}Z$", ".*".repeat(8));
    let out = threads(&["--name", &pattern, "--json"], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "[]");
}

#[test]
fn fifo_and_pin_applied_checked_in_proc_and_restored() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-apply");
    let sleeper = Sleeper::start();
    let tid = sleeper.pid().to_string();
    let before = (sleeper.rt(), sleeper.cpus_allowed());
    assert_eq!(before.0, (0, 0), "SCHED_OTHER");

    // Dry run: printed, nothing changed, nothing saved.
    let out = threads(
        &["--tid", &tid, "--set", "fifo:50", "--pin", "1"],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "thread {tid} \"sleep\" (pid {tid}) CPU affinity: {} → 1\n\
             thread {tid} \"sleep\" (pid {tid}) scheduling: other → fifo:50\n\
             # dry run: nothing changed; add --apply to make these 2 changes\n",
            all_cpus()
        )
    );
    assert_eq!((sleeper.rt(), sleeper.cpus_allowed()), before);
    assert!(dir.names().is_empty());

    let save = dir.join("vcpu.json");
    let save_text = save.to_str().unwrap();
    let out = threads(
        &[
            "--tid", &tid, "--set", "fifo:50", "--pin", "1", "--apply", "--save", save_text,
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(sleeper.rt(), (50, 1), "SCHED_FIFO 50 in fields 40/41");
    assert_eq!(sleeper.cpus_allowed(), "1");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    assert_eq!(saved["command"], "threads");
    assert_eq!(
        saved["changes"][1],
        serde_json::json!({
            "setting": "thread_scheduling",
            "pid": sleeper.pid(), "tid": sleeper.pid(), "name": "sleep",
            "start_time": sleeper.start_time(), "old": "other", "new": "fifo:50"
        })
    );

    // As asked already: nothing to do.
    let out = threads(
        &["--tid", &tid, "--set", "fifo:50", "--pin", "1"],
        dir.path(),
    );
    assert_eq!(out.code(), 0);
    assert!(out.stdout.contains("is already as asked"), "{}", out.stdout);

    let out = threads(&["--restore", save_text], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().next().unwrap(),
        format!("thread {tid} \"sleep\" (pid {tid}) scheduling: fifo:50 → other")
    );
    assert_eq!((sleeper.rt(), sleeper.cpus_allowed()), before);
}

#[test]
fn vcpu_like_threads_each_get_their_priority_and_cpu() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-vcpus");
    let (a, b) = (Sleeper::start(), Sleeper::start());
    let (ta, tb) = (a.pid().to_string(), b.pid().to_string());
    let save = dir.join("vcpus.json");
    let out = threads(
        &[
            "--tid",
            &ta,
            "--set",
            "fifo:98",
            "--pin",
            "0",
            "--tid",
            &tb,
            "--set",
            "fifo:95",
            "--pin",
            "1",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!((a.rt(), a.cpus_allowed().as_str()), ((98, 1), "0"));
    assert_eq!((b.rt(), b.cpus_allowed().as_str()), ((95, 1), "1"));
    let out = threads(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!((a.rt(), b.rt()), ((0, 0), (0, 0)));
    assert_eq!(a.cpus_allowed(), all_cpus());

    // Defaults before the first --tid, nice values with other.
    let out = threads(
        &["--set", "other:5", "--tid", &ta, "--tid", &tb],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains(&format!(
        "thread {tb} \"sleep\" (pid {tb}) nice value: 0 → 5"
    )));
}

#[test]
fn restore_refuses_a_reused_id_and_passes_over_a_thread_that_is_gone() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-gone");
    let mut sleeper = Sleeper::start();
    let tid = sleeper.pid().to_string();
    let save = dir.join("gone.json");
    let out = threads(
        &[
            "--tid",
            &tid,
            "--set",
            "rr:10",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    // The same id, another thread (an id reused): refused.
    let text = std::fs::read_to_string(&save).unwrap();
    let start = format!("\"start_time\": {}", sleeper.start_time());
    let reused = dir.join("reused.json");
    std::fs::write(&reused, text.replace(&start, "\"start_time\": 1")).unwrap();
    let out = threads(&["--restore", reused.to_str().unwrap()], dir.path());
    out.assert_refused(&"reused", "its id was reused");
    assert_eq!(sleeper.rt(), (10, 2), "still SCHED_RR 10");

    // Gone: its settings ended with it; nothing to restore, and that is no failure.
    sleeper.0.kill().unwrap();
    sleeper.0.wait().unwrap();
    let out = threads(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        format!(
            "# thread {tid} \"sleep\" (pid {tid}) scheduling: gone, nothing to restore (the thread has ended, and its settings with it)\n\
             # nothing restored: every thread {} recorded is gone\n",
            save.display()
        )
    );
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = TempDir::new("threads-bad");
    let sleeper = Sleeper::start();
    let tid = sleeper.pid().to_string();
    for (args, fragment) in [
        (
            vec!["--tid", "999999999", "--set", "fifo:50"],
            "--tid 999999999: thread 999999999 does not exist",
        ),
        (
            vec!["--tid", "abc", "--set", "fifo:50"],
            "invalid value 'abc' for --tid: expected a thread id",
        ),
        (
            vec!["--tid", &tid, "--set", "fifo:0"],
            "invalid value 'fifo:0' for --set: priority 0 is out of range: fifo takes 1..99",
        ),
        (
            vec!["--tid", &tid, "--set", "fast"],
            "invalid value 'fast' for --set: unknown policy `fast`: use fifo:N or rr:N",
        ),
        (
            vec!["--tid", &tid, "--pin", "64"],
            "invalid value '64' for --pin: CPU 64 is not online",
        ),
        (
            vec!["--tid", &tid, "--pin", "0-"],
            "invalid value '0-' for --pin: '0-' is not a CPU number or range",
        ),
        (
            vec!["--set", "fifo:50"],
            "or selected by --pid PID and/or --name REGEX: add one",
        ),
        (
            vec!["--pid", "999999999"],
            "--pid 999999999: there is no process 999999999",
        ),
        (
            vec!["--name", "(qemu"],
            "invalid value '(qemu' for --name: unclosed group (accepted: a regular expression",
        ),
        (
            vec!["--name", "(?:a{1000}){1000}"],
            "for --name: the pattern is too big: compiled it would take more than 1024 KiB",
        ),
    ] {
        let out = threads(&args, dir.path());
        out.assert_refused(&args, fragment);
        assert!(out.stderr.starts_with("rtlat threads: "), "{}", out.stderr);
    }
    assert_eq!(sleeper.rt(), (0, 0));
}

#[test]
fn without_privilege_the_error_names_cap_sys_nice() {
    let sleeper = Sleeper::start();
    let tid = sleeper.pid().to_string();
    let out = as_nobody(&[
        "threads", "--tid", &tid, "--set", "fifo:50", "--pin", "1", "--apply",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("thread {tid} needs CAP_SYS_NICE: run as root")),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!((sleeper.rt(), sleeper.cpus_allowed()), ((0, 0), all_cpus()));

    // The dry run says it ahead.
    let out = as_nobody(&["threads", "--tid", &tid, "--set", "fifo:50"]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("note: --apply will fail as you are now") && err.contains("CAP_SYS_NICE"),
        "{err}"
    );
}

#[test]
fn reset_on_fork_is_kept_and_restored() {
    // Issue 10, item 13: FIFO 20 with reset-on-fork, `--set fifo:50`, restore gave plain
    // FIFO 20.
    let _serial = common::measuring();
    let dir = TempDir::new("threads-reset-on-fork");
    let sleeper = Sleeper::start();
    let tid = sleeper.pid().to_string();
    let param = libc::sched_param { sched_priority: 20 };
    // SAFETY: a valid sched_param for the call, on our own child.
    let rc = unsafe {
        libc::sched_setscheduler(
            sleeper.pid() as i32,
            libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK,
            &param,
        )
    };
    assert_eq!(rc, 0);
    let with_flag = libc::SCHED_FIFO | libc::SCHED_RESET_ON_FORK;
    assert_eq!(sleeper.policy(), with_flag);
    let save = dir.join("rof.json");
    let out = threads(
        &[
            "--tid",
            &tid,
            "--set",
            "fifo:50",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().next().unwrap(),
        format!(
            "thread {tid} \"sleep\" (pid {tid}) scheduling: fifo:20+reset-on-fork → fifo:50+reset-on-fork"
        )
    );
    assert_eq!(
        (sleeper.rt(), sleeper.policy()),
        ((50, 1), with_flag),
        "the flag kept"
    );
    let out = threads(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        (sleeper.rt(), sleeper.policy()),
        ((20, 1), with_flag),
        "and restored"
    );
}

/// A `sleep 30` of user nobody with no nice limit (`ulimit -e 0`), killed on drop.
fn nobodys_sleeper() -> Sleeper {
    Sleeper(
        Command::new("prlimit")
            .args([
                "--nice=0:0",
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "sleep",
                "30",
            ])
            .stdout(Stdio::null())
            .spawn()
            .expect("prlimit and setpriv (util-linux) must be installed"),
    )
}

#[test]
fn a_change_its_user_could_not_undo_is_refused_up_front() {
    // Issue 10, item 14: as a user without CAP_SYS_NICE, `--set other:5` on one's own thread
    // was made, and the restore to nice 0 then refused.
    use std::os::unix::fs::PermissionsExt as _;
    assert!(
        common::is_root(),
        "this test switches to user nobody and needs root"
    );
    let sleeper = nobodys_sleeper();
    let tid = sleeper.pid().to_string();
    // prlimit and setpriv exec sleep: wait until they have.
    let until = std::time::Instant::now() + QUICK;
    while std::fs::read_to_string(format!("/proc/{tid}/comm")).unwrap_or_default() != "sleep\n" {
        assert!(std::time::Instant::now() < until, "sleep did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = as_nobody(&["threads", "--tid", &tid, "--set", "other:5", "--apply"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "thread {tid} \"sleep\": its nice value could be changed from 0 to 5 but this user could not change it back (a nice value below 5 needs a nice limit (`ulimit -e`) of at least 20)"
        )) && err.ends_with("nothing was changed\n"),
        "{err}"
    );
    assert_eq!(sleeper.nice(), 0, "nothing changed");

    // What it can undo is made, and undone by the same user.
    let dir = TempDir::new("threads-nobody-undo");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let save = dir.join("batch.json");
    let save_text = save.to_str().unwrap();
    let out = as_nobody(&[
        "threads", "--tid", &tid, "--set", "batch", "--pin", "0", "--apply", "--save", save_text,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        (sleeper.rt(), sleeper.cpus_allowed().as_str()),
        ((0, 3), "0")
    );
    let out = as_nobody(&["threads", "--restore", save_text]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!((sleeper.rt(), sleeper.cpus_allowed()), ((0, 0), all_cpus()));
}

#[test]
fn a_restore_that_fails_part_way_exits_5_naming_what_is_left() {
    // A kernel thread bound to its CPU refuses another affinity: the sleeper is restored, the
    // kernel thread's line says it was not, and the status says part of it was left.
    let _serial = common::measuring();
    let dir = TempDir::new("threads-part-way");
    let sleeper = Sleeper::start();
    let tid = sleeper.pid().to_string();
    let save = dir.join("part.json");
    let out = threads(
        &[
            "--tid",
            &tid,
            "--set",
            "rr:10",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let (kpid, kstart) = per_cpu_kernel_thread("ksoftirqd/0");
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    file["changes"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({
            "setting": "thread_affinity", "pid": kpid, "tid": kpid, "name": "ksoftirqd/0",
            "start_time": kstart, "old": all_cpus(), "new": "0"
        }),
    );
    std::fs::write(&save, serde_json::to_string(&file).unwrap()).unwrap();
    let out = threads(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 5, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(&format!(
            "thread {tid} \"sleep\" (pid {tid}) scheduling: rr:10 → other"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains(&format!(
            "could not restore thread {kpid} \"ksoftirqd/0\" (pid {kpid}) CPU affinity: 0 → {}",
            all_cpus()
        )) && out.stderr.contains("1 of 2 settings were not restored"),
        "{}",
        out.stderr
    );
    assert_eq!(sleeper.rt(), (0, 0));
}

/// The pid and start time of the kernel thread named `name`.
fn per_cpu_kernel_thread(name: &str) -> (u32, u64) {
    for entry in std::fs::read_dir("/proc").unwrap() {
        let Ok(pid) = entry.unwrap().file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if stat.contains(&format!("({name})")) {
            let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
            return (pid, fields[22 - 3].parse().unwrap());
        }
    }
    panic!("no kernel thread {name}");
}

// Issue 22: the protocol's one-line form, `rtlat threads --name 'CPU [0-9]+/' --set fifo:98
// --pin N --apply`, on processes shaped like QEMU (and on a real QEMU, paused, below).

/// What the helper runs: names its main thread as QEMU's is (`qemu-system-x86`) and starts
/// one thread per argument, named after it, all blocked; prints `ready` once they are named,
/// then waits for its stdin to close (or to be killed).
const FAKE_QEMU: &str = r#"
import sys, threading
def name(text):
    with open("/proc/self/task/%d/comm" % threading.get_native_id(), "w") as f:
        f.write(text)
names = sys.argv[1:]
ready = threading.Barrier(len(names) + 1)
def thread(text):
    name(text)
    ready.wait()
    threading.Event().wait()
for text in names:
    threading.Thread(target=thread, args=(text,), daemon=True).start()
name("qemu-system-x86")
ready.wait()
print("ready", flush=True)
sys.stdin.read()
"#;

/// A process with named threads, as QEMU started with `-name NAME,debug-threads=on` has
/// (`CPU 0/TCG`, `CPU 1/TCG`, …): a `python3` helper ([`FAKE_QEMU`]), killed on drop.
struct FakeQemu(Child);

impl FakeQemu {
    /// Starts it with threads named `names`; returns once they are all named.
    fn start<S: AsRef<std::ffi::OsStr>>(names: &[S]) -> FakeQemu {
        use std::io::BufRead as _;
        let mut child = Command::new("python3")
            .arg("-c")
            .arg(FAKE_QEMU)
            .args(names)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 must be installed: it starts the tests' multi-threaded processes");
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap();
        let qemu = FakeQemu(child);
        assert_eq!(
            line, "ready\n",
            "the python3 helper did not start its threads"
        );
        qemu
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Its threads: (name, tid), by tid.
    fn threads(&self) -> Vec<(String, u32)> {
        named_threads(self.pid())
    }

    /// The id of its thread named `name`.
    fn tid(&self, name: &str) -> u32 {
        self.threads()
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no thread {name:?} in {:?}", self.threads()))
            .1
    }

    /// Every thread's name, (rt_priority, policy) and CPUs.
    fn states(&self) -> Vec<(String, (u32, u32), String)> {
        let pid = self.pid();
        self.threads()
            .into_iter()
            .map(|(name, tid)| (name, task_rt(pid, tid), task_cpus(pid, tid)))
            .collect()
    }
}

impl Drop for FakeQemu {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The threads of process `pid`: (name, tid), by tid.
fn named_threads(pid: u32) -> Vec<(String, u32)> {
    let mut threads: Vec<(String, u32)> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|dir| {
            dir.filter_map(|entry| {
                let tid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
                let comm = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/comm")).ok()?;
                Some((comm.trim_end_matches('\n').to_owned(), tid))
            })
            .collect()
        })
        .unwrap_or_default();
    threads.sort_by_key(|(_, tid)| *tid);
    threads
}

/// (rt_priority, policy): fields 40 and 41 of `/proc/PID/task/TID/stat`.
fn task_rt(pid: u32, tid: u32) -> (u32, u32) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    (
        fields[40 - 3].parse().unwrap(),
        fields[41 - 3].trim().parse().unwrap(),
    )
}

/// `Cpus_allowed_list` of `/proc/PID/task/TID/status`.
fn task_cpus(pid: u32, tid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_owned()
}

/// The dry run's (and `--apply`'s) lines for thread `tid` "`name`" of `pid` given FIFO 98 and
/// CPU `cpu`, from SCHED_OTHER on every CPU.
fn fifo_98_lines(pid: u32, tid: u32, name: &str, cpu: &str) -> String {
    format!(
        "thread {tid} \"{name}\" (pid {pid}) CPU affinity: {} → {cpu}\n\
         thread {tid} \"{name}\" (pid {pid}) scheduling: other → fifo:98\n",
        all_cpus()
    )
}

#[test]
fn a_selection_changes_exactly_the_threads_it_matches_and_restores_them() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-select");
    let qemu = FakeQemu::start(&["CPU 0/TCG", "CPU 1/TCG", "worker"]);
    let (pid, all) = (qemu.pid(), all_cpus());
    let before = qemu.states();
    assert_eq!(before.len(), 4, "{before:?}");
    assert!(
        before
            .iter()
            .all(|(_, rt, cpus)| *rt == (0, 0) && *cpus == all)
    );
    let mut vcpus = [
        (qemu.tid("CPU 0/TCG"), "CPU 0/TCG"),
        (qemu.tid("CPU 1/TCG"), "CPU 1/TCG"),
    ];
    vcpus.sort();
    let pid_text = pid.to_string();
    let change = [
        "--pid",
        &pid_text,
        "--name",
        "CPU [0-9]+/",
        "--set",
        "fifo:98",
        "--pin",
        "1",
    ];

    // The dry run: exactly the two vCPU threads, as `--tid` prints them; nothing changed.
    let out = threads(&change, dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let lines: String = vcpus
        .iter()
        .map(|(tid, name)| fifo_98_lines(pid, *tid, name, "1"))
        .collect();
    assert_eq!(
        out.stdout,
        format!("{lines}# dry run: nothing changed; add --apply to make these 4 changes\n")
    );
    assert_eq!(qemu.states(), before);
    assert!(dir.names().is_empty());

    // For a change --name matches thread names only: `qemu-system` is the main thread's,
    // not (as when listing, which lists all four) the process's.
    let out = threads(
        &[
            "--pid",
            &pid_text,
            "--name",
            "qemu-system",
            "--set",
            "fifo:98",
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "thread {pid} \"qemu-system-x86\" (pid {pid}) scheduling: other → fifo:98\n\
             # dry run: nothing changed; add --apply to make this change\n"
        )
    );
    let out = threads(&["--name", "qemu-system", "--json"], dir.path());
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let listed = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["pid"] == pid)
        .count();
    assert_eq!(listed, 4, "{}", out.stdout);

    // --apply: exactly them, SCHED_FIFO 98 on CPU 1; the others untouched.
    let save = dir.join("vcpus.json");
    let save_text = save.to_str().unwrap();
    let mut apply = change.to_vec();
    apply.extend(["--apply", "--save", save_text]);
    let out = threads(&apply, dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!("{lines}# saved to {save_text}: undo with `rtlat threads --restore {save_text}`\n")
    );
    for (name, rt, cpus) in qemu.states() {
        if name.starts_with("CPU ") {
            assert_eq!((rt, cpus.as_str()), ((98, 1), "1"), "{name}");
        } else {
            assert_eq!((rt, cpus), ((0, 0), all.clone()), "{name} untouched");
        }
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    let changes = saved["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 4);
    assert!(changes.iter().all(|c| c["pid"] == pid), "{saved}");

    let out = threads(&["--restore", save_text], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stdout
            .ends_with(&format!("# restored everything {save_text} recorded\n")),
        "{}",
        out.stdout
    );
    assert_eq!(qemu.states(), before);
}

#[test]
fn pid_scoping_leaves_an_identical_process_untouched() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-scoped");
    let vcpus = ["CPU 0/TCG", "CPU 1/TCG"];
    let (a, b) = (FakeQemu::start(&vcpus), FakeQemu::start(&vcpus));
    let before = (a.states(), b.states());
    let save = dir.join("a.json");
    let out = threads(
        &[
            "--pid",
            &a.pid().to_string(),
            "--name",
            "CPU [0-9]+/",
            "--set",
            "fifo:98",
            "--pin",
            "0",
            "--apply",
            "--save",
            save.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    for (name, rt, cpus) in a.states() {
        let expected = match name.starts_with("CPU ") {
            true => ((98, 1), "0".to_owned()),
            false => ((0, 0), all_cpus()),
        };
        assert_eq!((rt, cpus), expected, "{name} of process A");
    }
    assert_eq!(b.states(), before.1, "process B untouched");
    assert!(!out.stdout.contains(&format!("(pid {})", b.pid())));
    let out = threads(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!((a.states(), b.states()), before);
}

#[test]
fn restore_after_the_guest_exited_restores_what_is_left() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-guest-exited");
    // The issue's command, without --pid: names no other process on this machine has.
    let tag = format!("t{}", std::process::id() % 100_000);
    let vcpus = [format!("CPU 0/{tag}"), format!("CPU 1/{tag}")];
    let (a, b) = (FakeQemu::start(&vcpus), FakeQemu::start(&vcpus));
    let save = dir.join("guests.json");
    let save_text = save.to_str().unwrap();
    let out = threads(
        &[
            "--name",
            &format!("^CPU [0-9]+/{tag}$"),
            "--set",
            "fifo:98",
            "--pin",
            "1",
            "--apply",
            "--save",
            save_text,
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    for qemu in [&a, &b] {
        for (name, rt, cpus) in qemu.states() {
            let expected = match name.starts_with("CPU ") {
                true => ((98, 1), "1".to_owned()),
                false => ((0, 0), all_cpus()),
            };
            assert_eq!((rt, cpus), expected, "{name} of {}", qemu.pid());
        }
    }

    // Guest A powers off, its QEMU exits: its threads are gone, B's are restored.
    let a_threads = a.threads();
    let a_pid = a.pid();
    drop(a);
    let out = threads(&["--restore", save_text], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    let mut lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.pop(),
        Some(
            format!(
                "# restored everything {save_text} recorded but the 4 settings of threads that are gone"
            )
            .as_str()
        )
    );
    lines.sort();
    let mut expected = Vec::new();
    for (name, tid) in a_threads.iter().filter(|(n, _)| n.starts_with("CPU ")) {
        for setting in ["CPU affinity", "scheduling"] {
            expected.push(format!(
                "# thread {tid} \"{name}\" (pid {a_pid}) {setting}: gone, nothing to restore (the thread has ended, and its settings with it)"
            ));
        }
    }
    for (name, tid) in b.threads().iter().filter(|(n, _)| n.starts_with("CPU ")) {
        let pid = b.pid();
        expected.push(format!(
            "thread {tid} \"{name}\" (pid {pid}) CPU affinity: 1 → {}",
            all_cpus()
        ));
        expected.push(format!(
            "thread {tid} \"{name}\" (pid {pid}) scheduling: fifo:98 → other"
        ));
    }
    expected.sort();
    assert_eq!(lines, expected);
    assert!(
        b.states()
            .iter()
            .all(|(_, rt, cpus)| *rt == (0, 0) && *cpus == all_cpus())
    );

    // Both gone: nothing to restore, and still no failure.
    drop(b);
    let out = threads(&["--restore", save_text], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stdout.ends_with(&format!(
            "# nothing restored: every thread {save_text} recorded is gone\n"
        )),
        "{}",
        out.stdout
    );
    assert_eq!(out.stdout.matches(": gone, nothing to restore").count(), 8);
}

#[test]
fn a_selection_that_matches_no_thread_is_refused() {
    let dir = TempDir::new("threads-no-match");
    let qemu = FakeQemu::start(&["CPU 0/TCG", "worker"]);
    let before = qemu.states();
    let pid = qemu.pid().to_string();
    for (args, fragment) in [
        (
            vec!["--pid", &pid, "--name", "^CPU 7/", "--set", "fifo:98", "--apply"],
            format!(
                "rtlat threads: --pid {pid} --name '^CPU 7/' selects no thread: no thread of process {pid} has a thread name it matches"
            ),
        ),
        (
            // Longer than any thread name can be (15 bytes).
            vec!["--name", "^no thread has this name$", "--pin", "0", "--apply"],
            "rtlat threads: --name '^no thread has this name$' selects no thread: no thread has a thread name it matches".to_owned(),
        ),
        (
            vec!["--pid", "999999999", "--set", "fifo:98", "--apply"],
            "rtlat threads: --pid 999999999: there is no process 999999999".to_owned(),
        ),
        (
            vec!["--pid", &pid, "--tid", &pid, "--set", "fifo:98"],
            "--tid conflicts with --pid in a change".to_owned(),
        ),
    ] {
        let out = threads(&args, dir.path());
        out.assert_refused(&args, &fragment);
        if !fragment.contains("conflicts") {
            assert!(out.stderr.ends_with("; nothing was changed\n"), "{}", out.stderr);
        }
        assert_eq!(out.stdout, "");
    }
    assert_eq!(qemu.states(), before);
    assert!(dir.names().is_empty(), "no restore file");
}

#[test]
fn rtlat_never_selects_its_own_threads() {
    // rtlat threads runs as `rtlat-tools`: a dry run selecting that name never lists its own
    // process (other rtlat-tools running beside it may be listed, and are not changed).
    let dir = TempDir::new("threads-own");
    let running = common::spawn(
        &common::rtlat(),
        &["threads", "--name", "^rtlat", "--set", "fifo:1"],
        Some(dir.path()),
    );
    let own = running.pid();
    let out = running.finish(QUICK);
    assert!(
        !out.stdout.contains(&format!("(pid {own})")),
        "{}",
        out.stdout
    );
    match out.code() {
        0 => assert!(
            out.stdout.contains("# dry run: nothing changed"),
            "{}",
            out.stdout
        ),
        _ => out.assert_refused(&own, "--name '^rtlat' selects no thread"),
    }
}

/// A real QEMU, paused before its guest starts (`-S`, no disk, no display): two vCPU threads,
/// `CPU 0/TCG` and `CPU 1/TCG`. Killed on drop.
struct RealQemu(Child);

impl RealQemu {
    fn start() -> RealQemu {
        let child = Command::new("qemu-system-x86_64")
            .args([
                "-name",
                "rtlat-test,debug-threads=on",
                "-accel",
                "tcg",
                "-machine",
                "pc",
                "-smp",
                "2",
                "-m",
                "64",
                "-S",
                "-display",
                "none",
                "-monitor",
                "none",
                "-serial",
                "none",
                "-nodefaults",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start qemu-system-x86_64 ({e}): this test needs QEMU installed (apt-get install qemu-system-x86)"
                )
            });
        let mut qemu = RealQemu(child);
        let until = std::time::Instant::now() + Duration::from_secs(60);
        while qemu.vcpus().len() < 2 {
            if let Ok(Some(status)) = qemu.0.try_wait() {
                panic!("qemu-system-x86_64 exited ({status}) before starting its vCPU threads");
            }
            assert!(
                std::time::Instant::now() < until,
                "qemu-system-x86_64 started no `CPU N/TCG` threads in 60 s: {:?}",
                named_threads(qemu.0.id())
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        qemu
    }

    /// Its vCPU threads: (name, tid).
    fn vcpus(&self) -> Vec<(String, u32)> {
        let mut vcpus = named_threads(self.0.id());
        vcpus.retain(|(name, _)| name.starts_with("CPU ") && name.ends_with("/TCG"));
        vcpus
    }
}

impl Drop for RealQemu {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_real_qemu_guests_vcpu_threads_get_fifo_98_and_a_cpu_and_back() {
    let _serial = common::measuring();
    let dir = TempDir::new("threads-qemu");
    let qemu = RealQemu::start();
    let pid = qemu.0.id();
    let vcpus = qemu.vcpus();
    let names: Vec<&str> = vcpus.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["CPU 0/TCG", "CPU 1/TCG"]);
    let others: Vec<(String, u32)> = named_threads(pid)
        .into_iter()
        .filter(|(name, _)| !name.starts_with("CPU "))
        .collect();
    let others_before: Vec<_> = others
        .iter()
        .map(|(_, tid)| (task_rt(pid, *tid), task_cpus(pid, *tid)))
        .collect();
    let apply = |save: &str| {
        threads(
            &[
                "--pid",
                &pid.to_string(),
                "--name",
                "CPU [0-9]+/",
                "--set",
                "fifo:98",
                "--pin",
                "1",
                "--apply",
                "--save",
                save,
            ],
            dir.path(),
        )
    };
    let first = dir.join("first.json");
    let out = apply(first.to_str().unwrap());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    for (name, tid) in &vcpus {
        assert_eq!(task_rt(pid, *tid), (98, 1), "{name}: SCHED_FIFO 98");
        assert_eq!(task_cpus(pid, *tid), "1", "{name}");
    }
    let others_after: Vec<_> = others
        .iter()
        .map(|(_, tid)| (task_rt(pid, *tid), task_cpus(pid, *tid)))
        .collect();
    assert_eq!(
        others_after, others_before,
        "QEMU's other threads untouched"
    );
    let out = threads(&["--restore", first.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    for (name, tid) in &vcpus {
        assert_eq!(
            (task_rt(pid, *tid), task_cpus(pid, *tid)),
            ((0, 0), all_cpus()),
            "{name} restored"
        );
    }

    // Changed again, then QEMU exits before the restore: every thread is gone.
    let second = dir.join("second.json");
    let out = apply(second.to_str().unwrap());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    drop(qemu);
    let out = threads(&["--restore", second.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(out.stdout.matches(": gone, nothing to restore").count(), 4);
    assert!(
        out.stdout.ends_with("is gone\n") && out.stdout.contains("# nothing restored"),
        "{}",
        out.stdout
    );
}
