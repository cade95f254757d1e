//! `rtlat run --profile NAME` through the binary. Refusals (an unknown name, the name
//! `cyclictest`, a machine with fewer CPUs than the board, a governor or frequency the CPUs
//! do not offer) exit 2 with one line before anything changes or is written. End to end in a
//! private mount namespace where a copy of the hp-t630's cpufreq files stands in for
//! `/sys/devices/system/cpu` (as tests/cpufreq.rs tests `--governor`): the profile's governor
//! and frequency are held while the threads run and restored byte for byte after, on a
//! normal end and on SIGINT, and the JSON records the profile and its audit findings.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{
    Alias, Json, JsonExt, Outcome, Running, TempDir, child_of, copy_dir, fake_cpu_dir, online_cpus,
    rtlat, run, same_dir, spawn_with_fake_cpus,
};

const QUICK: Duration = Duration::from_secs(20);
const NAME: &str = "bubblegum96";
const SETTINGS: &str = "# profile bubblegum96 (Bubblegum-96 (Actions S900, 4x Cortex-A53)): -t 2 -a 0-1 --policy fifo -p 99, governor performance, 1.6GHz held";

/// A folder holding a precious `--json` file that a refused run must leave alone.
struct Keep {
    dir: TempDir,
    json: PathBuf,
}

const PRECIOUS: &str = "{\"precious\": true}\n";

impl Keep {
    fn new(tag: &str) -> Keep {
        let dir = TempDir::new(tag);
        let json = dir.join("keep.json");
        std::fs::write(&json, PRECIOUS).unwrap();
        Keep { dir, json }
    }

    fn json(&self) -> &str {
        self.json.to_str().unwrap()
    }

    /// The refusal: status 2, nothing on stdout, exactly `line` on stderr, nothing written.
    fn check_refused(&self, what: &str, out: &Outcome, line: &str) {
        assert_eq!(out.code(), 2, "{what}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.is_empty(), "{what}: stdout {:?}", out.stdout);
        assert_eq!(out.stderr, format!("{line}\n"), "{what}");
        assert_eq!(
            std::fs::read_to_string(&self.json).unwrap(),
            PRECIOUS,
            "{what}: the --json file was touched"
        );
    }
}

fn rtlat_run(args: &[&str], cwd: &Path) -> Outcome {
    common::rtlat_command("run", args, Some(cwd), QUICK)
}

/// `CPU 0` or `CPUs 0-1`: this machine's online CPUs as the refusal names them.
fn online_text() -> String {
    let online = online_cpus();
    let set = rtlat_linux::cpuset::CpuSet::from_cpus(online.iter().copied()).unwrap();
    if online.len() == 1 {
        format!("CPU {set}")
    } else {
        format!("CPUs {set}")
    }
}

#[test]
fn bad_input_is_refused_with_one_line_and_nothing_written() {
    let keep = Keep::new("profile-bad");
    let json = keep.json();
    let out = rtlat_run(
        &["--profile", "rpi4", "-l", "10", "--json", json],
        keep.dir.path(),
    );
    keep.check_refused(
        "unknown name",
        &out,
        "rtlat run: invalid value 'rpi4' for --profile: expected a board profile: bubblegum96",
    );

    let alias = Alias::new();
    let out = run(
        &alias.path(),
        &["--profile", NAME, "-l", "10", "--json", json],
        Some(keep.dir.path()),
        QUICK,
    );
    keep.check_refused(
        "as cyclictest",
        &out,
        "cyclictest: --profile is an rtlat option that cyclictest does not have: run `rtlat run --profile ...` to use it",
    );

    // One CPU in this process's affinity mask (as isolcpus= leaves it): the profile's CPUs
    // are checked against the online ones, which a board's isolated CPUs are among.
    let online = online_cpus();
    if !(0..4).all(|cpu| online.contains(&cpu)) {
        let fit: Vec<String> = online.iter().take(4).map(usize::to_string).collect();
        let fit = rtlat_linux::cpuset::CpuSet::parse(&fit.join(",")).unwrap();
        let out = run(
            Path::new("taskset"),
            &[
                "-c",
                "0",
                rtlat().to_str().unwrap(),
                "run",
                "--profile",
                NAME,
                "-l",
                "10",
                "--json",
                json,
            ],
            Some(keep.dir.path()),
            QUICK,
        );
        keep.check_refused(
            "taskset -c 0",
            &out,
            &format!(
                "rtlat run: --profile bubblegum96 needs CPUs 0-3, but this machine has {} online: -t and -a override the profile's CPUs, e.g. --profile bubblegum96 -t {} -a {fit}",
                online_text(),
                fit.len()
            ),
        );
    }

    // The plain profile on this machine, which has fewer than four CPUs (two on the CI VM).
    let online = online_cpus();
    if !(0..4).all(|cpu| online.contains(&cpu)) {
        let fit: Vec<String> = online.iter().take(4).map(usize::to_string).collect();
        let fit = rtlat_linux::cpuset::CpuSet::parse(&fit.join(",")).unwrap();
        let out = rtlat_run(
            &["--profile", NAME, "-l", "10", "--json", json],
            keep.dir.path(),
        );
        keep.check_refused(
            "this machine",
            &out,
            &format!(
                "rtlat run: --profile bubblegum96 needs CPUs 0-3, but this machine has {} online: -t and -a override the profile's CPUs, e.g. --profile bubblegum96 -t {} -a {fit}",
                online_text(),
                fit.len()
            ),
        );
    }

    // Without cpufreq (this VM), the CPUs overridden: the profile's governor cannot be held.
    if !Path::new("/sys/devices/system/cpu/cpu0/cpufreq").exists() {
        let out = rtlat_run(
            &[
                "--profile",
                NAME,
                "-t",
                "1",
                "-a",
                "0",
                "-l",
                "10",
                "--json",
                json,
            ],
            keep.dir.path(),
        );
        keep.check_refused(
            "no cpufreq",
            &out,
            "rtlat run: --profile bubblegum96: no cpufreq on this machine (/sys/devices/system/cpu/cpu0/cpufreq missing): nothing to set",
        );
    }
    assert_eq!(keep.dir.names(), ["keep.json"], "no other file");
}

/// A fake `/sys/devices/system/cpu` whose CPUs' `file` in cpufreq/ holds `text`, and a
/// pristine copy of it to compare with.
fn fake_with(dir: &TempDir, file: &str, text: &str) -> (PathBuf, PathBuf) {
    let fake = fake_cpu_dir(dir);
    for cpu in online_cpus() {
        std::fs::write(fake.join(format!("cpu{cpu}/cpufreq/{file}")), text).unwrap();
    }
    let pristine = dir.join("pristine");
    copy_dir(&fake, &pristine);
    (fake, pristine)
}

#[test]
fn a_governor_or_frequency_not_offered_is_refused_before_anything_changes() {
    let _serial = common::measuring();
    let keep = Keep::new("profile-offer");
    let json = keep.json();
    let args = [
        "--profile",
        NAME,
        "-t",
        "1",
        "-a",
        "0",
        "-l",
        "10",
        "-q",
        "--json",
        json,
    ];

    let dir = TempDir::new("profile-no-freq");
    let (fake, pristine) = fake_with(
        &dir,
        "scaling_available_frequencies",
        "2000000 1800000 1200000 \n",
    );
    let out = spawn_with_fake_cpus(&fake, &args).finish(QUICK);
    keep.check_refused(
        "1.6 GHz not offered",
        &out,
        "rtlat run: --profile bubblegum96: CPU 0 does not offer 1.6GHz (1600000 kHz): it offers 2GHz, 1.8GHz, 1.2GHz",
    );
    assert!(same_dir(&pristine, &fake), "nothing changed");

    let dir = TempDir::new("profile-no-governor");
    let (fake, pristine) = fake_with(&dir, "scaling_available_governors", "ondemand powersave \n");
    let out = spawn_with_fake_cpus(&fake, &args).finish(QUICK);
    keep.check_refused(
        "performance not offered",
        &out,
        "rtlat run: --profile bubblegum96: CPU 0 has no cpufreq governor `performance`: its governors are ondemand powersave",
    );
    assert!(same_dir(&pristine, &fake), "nothing changed");
    // An explicit --governor is what asked for the governor, so it is named.
    let mut with_governor = args.to_vec();
    with_governor.extend(["--governor", "schedutil"]);
    let out = spawn_with_fake_cpus(&fake, &with_governor).finish(QUICK);
    keep.check_refused(
        "--governor not offered",
        &out,
        "rtlat run: --governor schedutil: CPU 0 has no cpufreq governor `schedutil`: its governors are ondemand powersave",
    );
    assert!(same_dir(&pristine, &fake), "nothing changed");
}

/// The cpufreq file `name` of CPU `cpu` in the fake tree, trimmed.
fn file(fake: &Path, cpu: usize, name: &str) -> String {
    std::fs::read_to_string(fake.join(format!("cpu{cpu}/cpufreq/{name}")))
        .unwrap()
        .trim()
        .to_owned()
}

/// Checks the files of CPUs 0 and 1 while the profile holds them.
fn assert_held(fake: &Path) {
    for cpu in [0, 1] {
        assert_eq!(
            file(fake, cpu, "scaling_governor"),
            "performance",
            "CPU {cpu}"
        );
        assert_eq!(file(fake, cpu, "scaling_min_freq"), "1600000", "CPU {cpu}");
        assert_eq!(file(fake, cpu, "scaling_max_freq"), "1600000", "CPU {cpu}");
    }
}

/// The stderr of a profile run: the settings line, what was set, the audit's warn/fail
/// lines, what was restored (in that order, nothing else).
fn assert_told(stderr: &str) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() >= 5, "{stderr}");
    assert_eq!(lines[0], SETTINGS);
    assert_eq!(
        lines[1],
        "# cpufreq governor set to performance on CPUs 0-1 (was ondemand)"
    );
    assert_eq!(
        lines[2],
        "# cpufreq frequency held at 1.6GHz on CPUs 0-1 (was 1.2GHz-2GHz)"
    );
    let n = lines.len();
    for audit in &lines[3..n - 2] {
        assert!(
            audit.starts_with("# audit warn ") || audit.starts_with("# audit fail "),
            "{audit}"
        );
        let id = audit
            .split_whitespace()
            .nth(3)
            .unwrap()
            .trim_end_matches(':');
        assert!(
            rtlat_arm64::profile::BUBBLEGUM96.audit_checks.contains(&id),
            "{audit}"
        );
    }
    // The profile pins 1.6 GHz below this tree's 2 GHz on purpose: the frequency-range check,
    // which would call that a cap to remove, is not among the profile's checks.
    assert!(
        !lines.iter().any(|l| l.contains("cpufreq.range")),
        "{stderr}"
    );
    assert_eq!(
        &lines[n - 2..],
        [
            "# cpufreq frequency restored to 1.2GHz-2GHz on CPUs 0-1",
            "# cpufreq governor restored to ondemand on CPUs 0-1",
        ],
        "{stderr}"
    );
}

/// The run's JSON: two SCHED_FIFO threads at 99 on CPUs 0 and 1, and the profile.
fn assert_json(path: &Path) {
    let doc = Json::parse(&std::fs::read_to_string(path).unwrap());
    let config = doc.at("rtlat").at("config");
    let Json::Array(threads) = config.at("threads") else {
        panic!("threads: {:?}", config.at("threads"))
    };
    let threads: Vec<(i64, &str, i64)> = threads
        .iter()
        .map(|t| {
            (
                t.at("cpu").as_i64().unwrap(),
                t.at("policy").as_str().unwrap(),
                t.at("priority").as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(threads, [(0, "SCHED_FIFO", 99), (1, "SCHED_FIFO", 99)]);
    let profile = config.at("profile");
    assert_eq!(profile.at("name").as_str(), Some(NAME));
    assert_eq!(profile.at("governor").as_str(), Some("performance"));
    assert_eq!(profile.at("frequency_khz").as_i64(), Some(1_600_000));
    let Json::Array(audit) = profile.at("audit") else {
        panic!("audit: {:?}", profile.at("audit"))
    };
    let ids: Vec<&str> = audit.iter().map(|f| f.at("id").as_str().unwrap()).collect();
    for id in &ids {
        assert!(
            rtlat_arm64::profile::BUBBLEGUM96.audit_checks.contains(id),
            "{id}"
        );
    }
    let severity = |id: &str| {
        audit
            .iter()
            .find(|f| f.at("id").as_str() == Some(id))
            .and_then(|f| f.at("severity").as_str())
            .unwrap_or_else(|| panic!("no {id} finding in {ids:?}"))
    };
    // Checked while the governor was held.
    assert_eq!(severity("cpufreq.governor"), "ok");
    assert!(!ids.contains(&"cpufreq.range"), "{ids:?}");
    assert!(ids.contains(&"kernel.preempt_rt"), "{ids:?}");
    for finding in audit {
        assert_eq!(
            finding.keys(),
            ["id", "severity", "title", "evidence", "remedy"]
        );
    }
}

fn profile_args(json: &str, loops: &str, interval_us: &str) -> Vec<String> {
    [
        "--profile",
        NAME,
        "-t",
        "2",
        "-a",
        "0,1",
        "-i",
        interval_us,
        "-l",
        loops,
        "-q",
        "--json",
        json,
    ]
    .map(String::from)
    .to_vec()
}

/// The end-to-end runs pin threads to CPUs 0 and 1.
fn require_cpus_0_and_1() {
    let online = online_cpus();
    assert!(
        online.contains(&0) && online.contains(&1),
        "the profile runs need CPUs 0 and 1 online: {online:?}"
    );
}

/// A profile run over a fake cpufreq tree, seen holding performance / 1.6 GHz.
struct HeldRun {
    _dir: TempDir,
    fake: PathBuf,
    pristine: PathBuf,
    json: PathBuf,
}

/// Starts a profile run of `loops` cycles ("0": until a signal) every `interval_us` in a
/// private mount namespace over a copy of the fake cpufreq tree, and checks the hold twice
/// while it runs.
fn start_held_run(name: &str, loops: &str, interval_us: &str) -> (HeldRun, Running) {
    require_cpus_0_and_1();
    let dir = TempDir::new(name);
    let fake = fake_cpu_dir(&dir);
    let pristine = dir.join("pristine");
    copy_dir(&fake, &pristine);
    let json = dir.join("run.json");
    let args = profile_args(json.to_str().unwrap(), loops, interval_us);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = spawn_with_fake_cpus(&fake, &args);
    assert!(
        child.wait_for_stderr("# cpufreq frequency held at", QUICK),
        "{}",
        child.stderr_so_far()
    );
    assert_held(&fake);
    std::thread::sleep(Duration::from_millis(300));
    assert_held(&fake);
    let run = HeldRun {
        _dir: dir,
        fake,
        pristine,
        json,
    };
    (run, child)
}

impl HeldRun {
    /// After the run: each step told on stderr, the tree back byte for byte with no file
    /// added, and the run's JSON.
    fn assert_restored(&self, stderr: &str) {
        assert_told(stderr);
        assert!(
            same_dir(&self.pristine, &self.fake),
            "every file back, byte for byte"
        );
        assert!(same_dir(&self.fake, &self.pristine), "and no file added");
        assert_json(&self.json);
    }
}

#[test]
fn the_profile_is_held_for_the_run_and_restored() {
    let _serial = common::measuring();
    let (run, child) = start_held_run("profile-run", "2000", "1000");
    let out = child.finish(QUICK);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let t: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("T:")).collect();
    assert_eq!(t.len(), 2, "{}", out.stdout);
    assert!(t.iter().all(|l| l.contains(" P:99 ")), "{}", out.stdout);
    assert!(t[0].contains("C:   2000"), "{}", out.stdout);
    run.assert_restored(&out.stderr);
}

#[test]
fn the_profile_is_restored_on_sigint() {
    restored_on("profile-sigint", libc::SIGINT, "1000");
}

/// Issue 10, item 5: with an interval of an hour the profile stayed held until the threads
/// woke up; SIGTERM and SIGHUP restore it now, within the test's hang guard. (The second
/// thread's interval is 500 µs longer: the longest `-i` it leaves is just under an hour.)
#[test]
fn the_profile_is_restored_on_sigterm_and_sighup_at_an_hour_interval() {
    restored_on("profile-sigterm-hour", libc::SIGTERM, "3599999000");
    restored_on("profile-sighup-hour", libc::SIGHUP, "3599999000");
}

/// A profile run with no loop limit, ended by `signal`: two summary lines, the machine
/// restored byte for byte.
fn restored_on(name: &str, signal: i32, interval_us: &str) {
    let _serial = common::measuring();
    // No loop limit: only the signal ends it.
    let (run, child) = start_held_run(name, "0", interval_us);
    let pid = child_of(child.pid());
    // SAFETY: kill(2) on a process of this test's own making.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let out = child.finish(QUICK);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.lines().filter(|l| l.starts_with("T:")).count(),
        2,
        "the summary is printed: {}",
        out.stdout
    );
    run.assert_restored(&out.stderr);
}

#[test]
fn without_a_profile_the_json_says_null() {
    let _serial = common::measuring();
    let dir = TempDir::new("profile-none");
    let json = dir.join("run.json");
    let out = rtlat_run(
        &[
            "-t",
            "1",
            "-l",
            "20",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(!out.stderr.contains("# profile"), "{}", out.stderr);
    assert!(!out.stderr.contains("# audit"), "{}", out.stderr);
    let doc = Json::parse(&std::fs::read_to_string(&json).unwrap());
    let config = doc.at("rtlat").at("config");
    assert_eq!(config.keys().last(), Some(&"profile"));
    assert_eq!(config.at("profile"), &Json::Null);
}
