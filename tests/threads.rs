//! `rtlat threads` through the binary, on real threads: `sleep` children get FIFO priorities
//! and CPUs (as a QEMU guest's vCPU threads would), checked in `/proc/PID/task/TID/stat`
//! (fields 40 and 41) and `Cpus_allowed_list`, then restored; a dry run changes nothing; bad
//! input exits 2 with one line; as user nobody the error names CAP_SYS_NICE.

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
fn restore_refuses_threads_that_are_gone() {
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

    sleeper.0.kill().unwrap();
    sleeper.0.wait().unwrap();
    let out = threads(&["--restore", save.to_str().unwrap()], dir.path());
    assert_eq!(out.code(), 2);
    assert_eq!(out.stderr.lines().count(), 1);
    assert!(
        out.stderr.contains(&format!(
            "change 1: thread {tid} of process {tid} (\"sleep\") no longer exists"
        )),
        "{}",
        out.stderr
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
        (vec!["--set", "fifo:50"], "add --tid"),
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
