//! Isolated CPUs: a CPU outside the process's affinity mask is measured when it is named.
//!
//! `isolcpus=1` takes CPU 1 out of every process's default affinity mask (init's is CPU 0,
//! inherited by all) without forbidding it; `taskset -c 0` gives a process exactly that mask,
//! so these tests run the fronts under `taskset -c 0` on this machine and look where their
//! threads really run (`/proc/PID/task/TID/status` `Cpus_allowed_list`, and `stat` field 39,
//! the CPU a task last ran on), beside the real cyclictest and Xenomai's `latency` where they
//! exist. The defaults that read `/sys/devices/system/cpu/isolated` (`rtlat monitor`'s threads,
//! `rtlat servo`'s CPU) run in a mount namespace whose CPU folder says CPU 1 is isolated. A
//! cgroup cpuset that excludes a CPU is the one thing that forbids it: refused before the run.
//!
//! Needs root, two online CPUs, cyclictest (`apt-get install rt-tests`) and a cpuset cgroup
//! controller; nothing here asserts a latency.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{
    Alias, Outcome, Running, TempDir, fake_cpu_dir, is_root, measuring, online_cpus,
    real_cyclictest, rtlat, run, spawn,
};

/// Starts, runs and ends of these short runs are well within this.
const BOUND: Duration = Duration::from_secs(30);

/// The CPU `taskset -c 0` leaves out of the mask: the second online CPU (CPU 1 here).
fn outside() -> usize {
    let online = online_cpus();
    assert!(
        online.len() >= 2 && online[0] == 0,
        "these tests need CPU 0 and another online CPU: {online:?}"
    );
    online[1]
}

/// `taskset -c 0 PROGRAM ARGS`, started (taskset execs the program: the pid is its own).
fn on_cpu0(program: &Path, args: &[&str]) -> Running {
    let mut all = vec!["-c", "0", program.to_str().unwrap()];
    all.extend_from_slice(args);
    spawn(Path::new("taskset"), &all, None)
}

/// One task (thread) of a process, as /proc shows it.
#[derive(Debug, Clone)]
struct Task {
    tid: i32,
    name: String,
    /// `Cpus_allowed_list` (`0`, `0-1`).
    allowed: String,
    /// `stat` field 39: the CPU it last ran on.
    last_cpu: String,
}

/// The tasks of `pid` (its main thread first), skipping those that end while being read.
fn tasks(pid: i32) -> Vec<Task> {
    let mut tids: Vec<i32> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    tids.sort_unstable();
    tids.into_iter()
        .filter_map(|tid| {
            let dir = format!("/proc/{pid}/task/{tid}");
            let status = std::fs::read_to_string(format!("{dir}/status")).ok()?;
            let stat = std::fs::read_to_string(format!("{dir}/stat")).ok()?;
            let field = |key: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(key))
                    .map(|v| v.trim().to_string())
            };
            // Fields after the command name start at field 3.
            let after = &stat[stat.rfind(')')? + 2..];
            Some(Task {
                tid,
                name: field("Name:")?,
                allowed: field("Cpus_allowed_list:")?,
                last_cpu: after.split_whitespace().nth(39 - 3)?.to_string(),
            })
        })
        .collect()
}

/// Whether `pid` has ended (a zombie not reaped yet, or gone).
fn ended(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = &stat[stat.rfind(')')? + 2..];
            after.split_whitespace().next().map(|state| state == "Z")
        })
        .unwrap_or(true)
}

/// Waits (up to [`BOUND`], or until the process ends) until `done` holds for the tasks of
/// `pid`; returns the last read.
fn wait_for_tasks(pid: i32, done: impl Fn(&[Task]) -> bool) -> Vec<Task> {
    let until = Instant::now() + BOUND;
    loop {
        let now = tasks(pid);
        if done(&now) || ended(pid) || Instant::now() > until {
            return now;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `Cpus_allowed_list` of every task of `pid` but its main thread, sorted.
fn thread_cpus(tasks: &[Task], pid: i32) -> Vec<String> {
    let mut cpus: Vec<String> = tasks
        .iter()
        .filter(|t| t.tid != pid)
        .map(|t| t.allowed.clone())
        .collect();
    cpus.sort();
    cpus
}

/// The main thread's task.
fn main_task(tasks: &[Task], pid: i32) -> Task {
    tasks
        .iter()
        .find(|t| t.tid == pid)
        .cloned()
        .expect("the main thread")
}

/// Checks that every task pinned to one CPU (`allowed` a single number) last ran there, once
/// it had time to run: where a measuring thread really runs.
fn ran_where_pinned(pid: i32, what: &str) {
    std::thread::sleep(Duration::from_millis(300));
    for t in tasks(pid) {
        if t.allowed.parse::<usize>().is_ok() {
            assert_eq!(
                t.last_cpu, t.allowed,
                "{what}: task {} ({}) pinned to CPU {} last ran on CPU {}",
                t.tid, t.name, t.allowed, t.last_cpu
            );
        }
    }
}

/// What a run under `taskset -c 0` did: its threads' CPUs (sorted), its main thread's
/// CPUs, and its outcome once SIGINT ended it.
struct Placed {
    threads: Vec<String>,
    main: String,
    outcome: Outcome,
}

/// Runs `program ARGS` under `taskset -c 0` until its `expected` measuring threads (their
/// `Cpus_allowed_list`, sorted) are in place (or [`BOUND`] passes), checks they ran there,
/// then ends it with SIGINT.
fn placed(program: &Path, args: &[&str], expected: &[String]) -> Placed {
    let running = on_cpu0(program, args);
    let pid = running.pid();
    let what = format!("taskset -c 0 {} {}", program.display(), args.join(" "));
    let now = wait_for_tasks(pid, |t| thread_cpus(t, pid) == expected);
    if thread_cpus(&now, pid) == expected {
        ran_where_pinned(pid, &what);
    }
    let now = tasks(pid);
    let (threads, main) = (thread_cpus(&now, pid), main_task(&now, pid).allowed);
    running.signal(libc::SIGINT);
    Placed {
        threads,
        main,
        outcome: running.finish_within(BOUND).0,
    }
}

fn cpus(list: &[usize]) -> Vec<String> {
    list.iter().map(usize::to_string).collect()
}

/// The rows of the table: options, the measuring threads' CPUs, the main thread's CPUs.
fn placement_rows(one: usize) -> Vec<(Vec<String>, Vec<String>, Option<String>)> {
    let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    vec![
        // Named: the CPU outside the mask is measured.
        (words(&format!("-t 1 -a {one}")), cpus(&[one]), None),
        (words(&format!("-t 2 -a 0,{one}")), cpus(&[0, one]), None),
        // all: every online CPU, not only the mask's.
        (words("-t -a all"), cpus(&[0, one]), None),
        // Nothing named: the mask's CPUs only.
        (words("-S"), cpus(&[0]), None),
        (words("-t"), cpus(&[0]), None),
        (words("-t 2"), cpus(&[0, 0]), None),
        // The main thread may go there too.
        (
            words(&format!("-t 1 --mainaffinity {one}")),
            cpus(&[0]),
            Some(one.to_string()),
        ),
    ]
}

#[test]
fn run_measures_on_a_cpu_outside_its_affinity_mask_when_named() {
    assert!(is_root(), "the runs are SCHED_FIFO: run the tests as root");
    let _guard = measuring();
    let one = outside();
    for (args, threads, main) in placement_rows(one) {
        let mut all = vec!["run", "-p", "80", "-i", "1000", "-q"];
        all.extend(args.iter().map(String::as_str));
        let p = placed(&rtlat(), &all, &threads);
        let what = format!("taskset -c 0 rtlat {}", all.join(" "));
        assert_eq!(p.outcome.code(), 0, "{what}: {}", p.outcome.stderr);
        assert_eq!(p.threads, threads, "{what}: the measuring threads' CPUs");
        assert_eq!(p.main, main.unwrap_or_else(|| "0".into()), "{what}: main");
    }
}

#[test]
fn as_cyclictest_threads_go_where_the_real_cyclictests_go() {
    assert!(is_root(), "the runs are SCHED_FIFO: run the tests as root");
    let _guard = measuring();
    let (real, alias) = (real_cyclictest(), Alias::new());
    let one = outside();
    let mut problems = Vec::new();
    for (args, threads, main) in placement_rows(one) {
        let mut all = vec!["-p", "80", "-i", "1000", "-q"];
        all.extend(args.iter().map(String::as_str));
        let theirs = placed(&real, &all, &threads);
        let ours = placed(&alias.path(), &all, &threads);
        let what = format!("taskset -c 0 cyclictest {}", all.join(" "));
        for (who, p) in [("cyclictest", &theirs), ("rtlat", &ours)] {
            if p.outcome.code() != 0 || p.threads != threads {
                problems.push(format!(
                    "{what}: {who} ran threads on {:?} (expected {threads:?}), status {}: {}",
                    p.threads,
                    p.outcome.code(),
                    p.outcome.stderr
                ));
            }
        }
        // cyclictest moves its main thread to -a's CPUs too (rtlat keeps it on the mask's,
        // off the measured CPUs); --mainaffinity places it in both.
        if let Some(main) = main
            && (theirs.main != main || ours.main != main)
        {
            problems.push(format!(
                "{what}: main thread on {} (cyclictest) and {} (rtlat), expected {main}",
                theirs.main, ours.main
            ));
        }
        if theirs.outcome.stderr != ours.outcome.stderr {
            problems.push(format!(
                "{what}: stderr {:?} (cyclictest) vs {:?} (rtlat)",
                theirs.outcome.stderr, ours.outcome.stderr
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn lists_that_leave_no_cpu_end_as_in_cyclictest() {
    let _guard = measuring();
    let (real, alias) = (real_cyclictest(), Alias::new());
    let one = outside();
    let beyond = (online_cpus().iter().max().unwrap() + 3).to_string();
    let all_online = format!("!0-{}", online_cpus().iter().max().unwrap());
    let (not_mask, past) = (format!("+{one}"), format!("+{beyond}"));
    // (the -a value, whether cyclictest ends with its usage (else WARN and FATAL)).
    let rows: Vec<(&str, bool)> = vec![
        // Not online: libnuma's range check, the usage.
        (&beyond, true),
        (&past, true),
        // Every online CPU left out: an empty list, the usage.
        (&all_online, true),
        // Nothing of the mask left: its main thread cannot move there, then FATAL.
        ("!0", false),
        (&not_mask, false),
    ];
    let mut problems = Vec::new();
    for (value, usage) in rows {
        let args = ["-t", "1", "-a", value, "-q", "-l", "20", "-i", "1000"];
        let what = format!("taskset -c 0 cyclictest {}", args.join(" "));
        let theirs = on_cpu0(&real, &args).finish(BOUND);
        let ours = on_cpu0(&alias.path(), &args).finish(BOUND);
        if (theirs.code(), ours.code()) != (1, 1) {
            problems.push(format!(
                "{what}: status {} (cyclictest) and {} (rtlat), expected 1: {}",
                theirs.code(),
                ours.code(),
                ours.stderr
            ));
        }
        if usage {
            let shows_usage = |o: &Outcome| o.stdout.lines().count() >= 10;
            if !shows_usage(&theirs) || !shows_usage(&ours) {
                problems.push(format!("{what}: no usage on stdout: {:?}", ours.stdout));
            }
            if ours.stderr.lines().count() != 1 || !ours.stderr.starts_with("cyclictest: ") {
                problems.push(format!("{what}: rtlat's line: {:?}", ours.stderr));
            }
        } else {
            // The same two lines on stderr; cyclictest has set /dev/cpu_dma_latency by then
            // and says so on stdout, rtlat changed nothing and says nothing.
            let lines = "WARN: Couldn't setaffinity in main thread: Invalid argument\n\
                         FATAL: No allowable cpus to run on\n";
            if theirs.stderr != lines || ours.stderr != lines {
                problems.push(format!(
                    "{what}: stderr {:?} (cyclictest) vs {:?} (rtlat)",
                    theirs.stderr, ours.stderr
                ));
            }
            if !ours.stdout.is_empty() {
                problems.push(format!("{what}: rtlat's stdout {:?}", ours.stdout));
            }
        }
        // As rtlat run: one line, status 2.
        let mut run_args = vec!["run"];
        run_args.extend_from_slice(&args);
        let out = on_cpu0(&rtlat(), &run_args).finish(BOUND);
        if out.code() != 2
            || out.stderr.lines().count() != 1
            || !out.stderr.starts_with(&format!(
                "rtlat run: invalid value '{value}' for -a/--affinity: "
            ))
        {
            problems.push(format!(
                "taskset -c 0 rtlat run ... -a {value}: status {}, {:?}",
                out.code(),
                out.stderr
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn latency_samples_on_a_cpu_outside_its_affinity_mask_as_xenomais_does() {
    if !common::xenomai::here(
        common::xenomai::Core::Mercury,
        "latency -c beside Xenomai's (tests/cpus.rs)",
    ) {
        return;
    }
    assert!(is_root(), "the runs are SCHED_FIFO: run the tests as root");
    let _guard = measuring();
    let one = outside().to_string();
    let dir = TempDir::new("cpus-latency");
    let alias: PathBuf = dir.join("latency");
    std::os::unix::fs::symlink(rtlat(), &alias).unwrap();
    let real = common::xenomai::real_latency();
    let args = ["-c", &one, "-T", "3", "-q"];
    for (who, program, pre) in [
        ("Xenomai's latency", real.as_path(), None),
        ("rtlat as latency", alias.as_path(), None),
        ("rtlat latency", rtlat().as_path(), Some("latency")),
    ] {
        let mut all: Vec<&str> = pre.into_iter().collect();
        all.extend_from_slice(&args);
        let running = on_cpu0(program, &all);
        let pid = running.pid();
        // The sampling thread: the one task pinned to that CPU.
        let pinned = |t: &[Task]| t.iter().filter(|t| t.allowed == one).count();
        let now = wait_for_tasks(pid, |t| pinned(t) == 1);
        assert_eq!(pinned(&now), 1, "{who}: a thread on CPU {one}: {now:?}");
        ran_where_pinned(pid, who);
        let out = running.finish_within(BOUND).0;
        assert_eq!(out.code(), 0, "{who}: {}", out.stderr);
    }
    // A CPU that is not online: status 1 from both under the name latency, 2 as rtlat's.
    let beyond = (online_cpus().iter().max().unwrap() + 3).to_string();
    let args = ["-c", &beyond, "-T", "1", "-q"];
    assert_eq!(on_cpu0(&real, &args).finish(BOUND).code(), 1);
    let ours = on_cpu0(&alias, &args).finish(BOUND);
    assert_eq!(ours.code(), 1, "{}", ours.stderr);
    assert!(
        ours.stderr.contains("is not online (online CPUs: "),
        "{}",
        ours.stderr
    );
    let mut all = vec!["latency"];
    all.extend_from_slice(&args);
    on_cpu0(&rtlat(), &all)
        .finish(BOUND)
        .assert_refused(&all, "isolated CPUs are accepted");
}

#[test]
fn servo_runs_both_threads_on_a_cpu_outside_its_affinity_mask() {
    assert!(is_root(), "the runs are SCHED_FIFO: run the tests as root");
    let _guard = measuring();
    let one = outside().to_string();
    let dir = TempDir::new("cpus-servo");
    let json = dir.join("servo.json");
    let args = [
        "servo",
        "--cpu",
        &one,
        "-D",
        "3",
        "-q",
        "--json",
        json.to_str().unwrap(),
    ];
    let running = on_cpu0(&rtlat(), &args);
    let pid = running.pid();
    let both = [one.clone(), one.clone()];
    let now = wait_for_tasks(pid, |t| thread_cpus(t, pid) == both);
    assert_eq!(thread_cpus(&now, pid), both, "{now:?}");
    ran_where_pinned(pid, "servo");
    let out = running.finish_within(BOUND).0;
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["cpu"].to_string(), one);
}

#[test]
fn monitor_measures_outside_its_affinity_mask_and_serves_from_inside_it() {
    assert!(is_root(), "the runs are SCHED_FIFO: run the tests as root");
    let _guard = measuring();
    let one = outside().to_string();
    let running = on_cpu0(
        &rtlat(),
        &["monitor", "--listen", "127.0.0.1:0", "-t", "1", "-a", &one],
    );
    monitor_placement(running, &one);
}

/// A monitor measuring on CPU `one` once it serves: its measuring thread there, its main
/// thread, HTTP server and audit thread on CPU 0; ended by SIGTERM with its figures.
fn monitor_placement(running: Running, one: &str) {
    assert!(
        running.wait_for_stderr("/metrics;", BOUND),
        "the monitor did not start serving: {}",
        running.stderr_so_far()
    );
    let pid = running.pid();
    let named =
        |t: &[Task], name: &str| t.iter().find(|t| t.name == name).map(|t| t.allowed.clone());
    let now = wait_for_tasks(pid, |t| named(t, "rtlat-t0").as_deref() == Some(one));
    ran_where_pinned(pid, "monitor");
    assert_eq!(named(&now, "rtlat-t0").as_deref(), Some(one), "{now:?}");
    assert_eq!(named(&now, "rtlat-http").as_deref(), Some("0"), "{now:?}");
    assert_eq!(main_task(&now, pid).allowed, "0", "{now:?}");
    running.signal(libc::SIGTERM);
    let out = running.finish_within(BOUND).0;
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("rtlat monitor: thread=0 cpu={one} cycles=")),
        "{}",
        out.stderr
    );
}

/// `taskset -c 0 rtlat ARGS` in a private mount namespace whose `/sys/devices/system/cpu`
/// says CPU `isolated` is isolated (as after booting with `isolcpus=`).
fn spawn_isolated(dir: &TempDir, isolated: &str, args: &[&str]) -> Running {
    assert!(is_root(), "the namespace tests need root (unshare --mount)");
    let fake = fake_cpu_dir(dir);
    std::fs::write(fake.join("isolated"), format!("{isolated}\n")).unwrap();
    let script = format!(
        "mount --bind '{}' /sys/devices/system/cpu && exec taskset -c 0 '{}' \"$@\"",
        fake.display(),
        rtlat().display()
    );
    let mut all = vec![
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        &script,
        "sh",
    ];
    all.extend_from_slice(args);
    let running = spawn(Path::new("unshare"), &all, None);
    // unshare and sh exec: the pid becomes rtlat's (then rtlat-monitor's).
    let until = Instant::now() + BOUND;
    while !std::fs::read_link(format!("/proc/{}/exe", running.pid()))
        .is_ok_and(|exe| exe.to_string_lossy().contains("rtlat"))
        && !ended(running.pid())
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    running
}

#[test]
fn on_an_isolated_machine_monitor_measures_the_isolated_cpu_by_default() {
    let _guard = measuring();
    let one = outside().to_string();
    let dir = TempDir::new("cpus-monitor-isolated");
    let running = spawn_isolated(&dir, &one, &["monitor", "--listen", "127.0.0.1:0"]);
    monitor_placement(running, &one);
}

#[test]
fn on_an_isolated_machine_servo_runs_on_the_last_isolated_cpu_by_default() {
    let _guard = measuring();
    let one = outside().to_string();
    let dir = TempDir::new("cpus-servo-isolated");
    let json = dir.join("servo.json");
    let running = spawn_isolated(
        &dir,
        &one,
        &["servo", "-D", "2", "-q", "--json", json.to_str().unwrap()],
    );
    let out = running.finish(BOUND);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        doc["cpu"].to_string(),
        one,
        "LinuxCNC's CPU: the isolated one"
    );
    // None isolated: the last CPU of the affinity mask.
    let plain = TempDir::new("cpus-servo-plain");
    let json = plain.join("servo.json");
    let out = spawn_isolated(
        &plain,
        "",
        &["servo", "-D", "1", "-q", "--json", json.to_str().unwrap()],
    )
    .finish(BOUND);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["cpu"], 0);
}

#[test]
fn a_board_profile_runs_on_the_isolated_cpus_of_its_layout() {
    let _guard = measuring();
    let one = outside();
    assert_eq!(
        one, 1,
        "the profile's layout for two threads is CPUs 0 and 1"
    );
    // A board booted with isolcpus=1, its cpufreq files faked (held and restored in the
    // namespace): the profile's two threads on CPUs 0 and 1, as its layout says.
    let dir = TempDir::new("cpus-profile-isolated");
    let json = dir.join("run.json");
    let args = [
        "run",
        "--profile",
        "bubblegum96",
        "-t",
        "2",
        "-l",
        "200",
        "-q",
        "--json",
        json.to_str().unwrap(),
    ];
    let out = spawn_isolated(&dir, "1", &args).finish(BOUND);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cpus: Vec<String> = ["0", "1"]
        .iter()
        .map(|t| doc["thread"][t]["cpu"].to_string())
        .collect();
    assert_eq!(cpus, ["0", "1"], "{}", out.stderr);
}

/// A cpuset cgroup of its own that allows CPU 0 only, removed when dropped (its processes
/// ended by then): cgroup v1's cpuset hierarchy, or v2's where the root delegates cpuset.
struct Cpuset {
    dir: PathBuf,
    procs: PathBuf,
}

impl Cpuset {
    fn cpu0_only() -> Cpuset {
        assert!(is_root(), "making a cpuset cgroup needs root");
        let name = format!("rtlat-test-{}", std::process::id());
        let v1 = Path::new("/sys/fs/cgroup/cpuset");
        let v2 = Path::new("/sys/fs/cgroup");
        let delegated = |root: &Path| {
            std::fs::read_to_string(root.join("cgroup.subtree_control"))
                .is_ok_and(|s| s.split_whitespace().any(|c| c == "cpuset"))
        };
        let (dir, procs, mems) = if v1.join("cpuset.cpus").is_file() {
            (v1.join(&name), "tasks", "cpuset.mems")
        } else if delegated(v2) {
            (v2.join(&name), "cgroup.procs", "cpuset.mems")
        } else {
            panic!(
                "no cpuset cgroup controller to test with (cgroup v1's /sys/fs/cgroup/cpuset, or \
                 cgroup v2 with cpuset in /sys/fs/cgroup/cgroup.subtree_control)"
            );
        };
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpuset.cpus"), "0").unwrap();
        std::fs::write(dir.join(mems), "0").unwrap();
        let procs = dir.join(procs);
        Cpuset { dir, procs }
    }

    /// `PROGRAM ARGS` run to the end inside the cgroup.
    fn run(&self, program: &Path, args: &[&str]) -> Outcome {
        let script = format!(
            "echo $$ > '{}' && exec \"$@\"",
            self.procs.to_str().unwrap()
        );
        let mut all = vec!["-c", &script, "sh", program.to_str().unwrap()];
        all.extend_from_slice(args);
        run(Path::new("sh"), &all, None, BOUND)
    }
}

impl Drop for Cpuset {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[test]
fn a_cpu_a_cgroup_cpuset_excludes_is_refused_before_the_run_in_one_line() {
    let _guard = measuring();
    let one = outside().to_string();
    let cpuset = Cpuset::cpu0_only();
    let refusal = format!("this process's cgroup cpuset does not allow CPU {one}");
    for args in [
        vec!["run", "-t", "1", "-a", &one, "-l", "10"],
        vec!["run", "-t", "1", "--mainaffinity", &one, "-l", "10"],
        vec!["latency", "-c", &one, "-T", "1"],
        vec!["servo", "--cpu", &one, "-D", "1"],
        vec!["monitor", "--listen", "127.0.0.1:0", "-t", "1", "-a", &one],
    ] {
        let out = cpuset.run(&rtlat(), &args);
        out.assert_refused(&args, &refusal);
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
    // Under the name cyclictest too (cyclictest warns and measures on another CPU).
    let alias = Alias::new();
    let args = ["-t", "1", "-a", &one, "-l", "10", "-q"];
    let ours = cpuset.run(&alias.path(), &args);
    ours.assert_refused(&args, &refusal);
    let theirs = cpuset.run(&real_cyclictest(), &args);
    assert_eq!(theirs.code(), 0, "{}", theirs.stderr);
    assert!(
        theirs
            .stderr
            .contains(&format!("Could not set CPU affinity to CPU #{one}")),
        "{}",
        theirs.stderr
    );
}
