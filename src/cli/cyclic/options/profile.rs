//! `rtlat run --profile NAME`: a board profile (rtlat-arm64's [`BoardProfile`]) as the
//! defaults of a run. It fills in what the command line leaves out and adds what no option
//! of `rtlat run` sets; the options given win, whatever their order.
//!
//! | the profile's | as if given | unless given |
//! | --- | --- | --- |
//! | `cpus`, one thread per CPU | `-t -a CPUS` (with `-t N` alone: the first N of them) | `-t`, `-a`, `-S` |
//! | `policy` | `--policy fifo` | `--policy` |
//! | `priority` | `-p 99`: every thread at 99, as cyclictest `-p` gives them without `--priospread` | `-p`, a non-real-time `--policy` |
//! | `frequency.governor` | `--governor performance` | `--governor` |
//! | `frequency.fixed_khz` | (no option) `scaling_min_freq` = `scaling_max_freq`, held for the run | — |
//! | `audit_checks` | (no option) those `rtlat audit` findings, on stderr and in the JSON | — |
//!
//! So `--profile bubblegum96 -t 2 -a 0,1` runs two SCHED_FIFO threads at 99 on CPUs 0 and 1,
//! with the performance governor and 1.6 GHz held.
//!
//! The run checks everything first ([`RunProfile::check_cpus`], then the governor and the
//! frequency), states the settings in one stderr line ([`RunProfile::settings_line`]), holds
//! the governor and frequency, and then runs the audit checks ([`RunProfile::audit`]) so that
//! they describe the machine as it is measured (a hold that did not take shows there).
//!
//! The audit's code is not in this binary (the one `-m` locks into memory): the checks run
//! as `rtlat-tools audit --only IDS --json`, a child, and its report is read back.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rtlat::options::UsageError;
use rtlat_arm64::{BoardProfile, RtPolicy, ThreadLayout};
use rtlat_formats::schema::audit::{Finding, Report};
use rtlat_formats::schema::rtlat::Profile;
use rtlat_linux::cpuset::CpuSet;
use rtlat_system::tune::format_khz;

use super::config::{Policy, RunConfig, RunProfile, Threads};
use super::cpu_spec::CpuSpec;
use super::plan::Plan;

/// Which of the settings a profile fills in the command line gave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Given {
    /// `-t` (with or without a count).
    pub threads: bool,
    /// `-a` (with or without a CPU list).
    pub affinity: bool,
    /// `-S`.
    pub smp: bool,
    /// `-p`.
    pub priority: bool,
    /// `--policy`.
    pub policy: bool,
}

/// Fills in `config` from `board` where `given` says the command line left a setting out,
/// and records the profile in `config.profile`.
pub fn fill_in(config: &mut RunConfig, board: &'static BoardProfile, given: &Given) {
    let mut cpus = None;
    if !given.affinity && !given.smp {
        // `-t N` alone: the profile's layout for N threads, on the first N of its CPUs.
        let threads = match config.threads {
            Threads::Count(n) if given.threads => usize::try_from(n).unwrap_or(usize::MAX),
            _ => board.thread_count(),
        };
        let set = layout(board, threads);
        config.affinity = Some(CpuSpec::List(set.clone()));
        cpus = Some(set);
    }
    if !given.threads && !given.smp {
        // One thread per CPU of the `-a` set: the profile's, or the one given.
        config.threads = match board.threads {
            ThreadLayout::OnePerCpu => Threads::PerCpu,
        };
    }
    if !given.policy {
        config.policy = Some(match board.policy {
            RtPolicy::Fifo => Policy::Fifo,
            RtPolicy::RoundRobin => Policy::RoundRobin,
        });
    }
    if !given.priority && config.policy().is_realtime() {
        config.priority = Some(board.priority);
    }
    config.profile = Some(RunProfile { board, cpus });
}

/// The CPUs `threads` threads of `board`'s layout run on.
fn layout(board: &BoardProfile, threads: usize) -> CpuSet {
    let cpus = (0..threads.min(board.thread_count()))
        .filter_map(|index| board.cpu_of_thread(index))
        .map(|cpu| cpu as usize);
    // A profile's CPUs fit a CpuSet (checked by the tests below).
    CpuSet::from_cpus(cpus).unwrap_or_default()
}

impl RunProfile {
    /// Checks that the CPUs the profile chose are `online`: a machine with fewer CPUs than
    /// the board is refused, naming both and the override. Isolated CPUs count: a board
    /// booted with `isolcpus=` measures on exactly the CPUs outside the process's affinity.
    pub fn check_cpus(&self, online: &CpuSet) -> Result<(), UsageError> {
        match &self.cpus {
            Some(needs) if !needs.difference(online).is_empty() => Err(UsageError::ProfileCpus {
                profile: self.board.name,
                needs: needs.clone(),
                online: online.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// The governor the run holds: `--governor` if given, else the profile's.
    pub fn governor<'a>(&self, config: &'a RunConfig) -> &'a str {
        config
            .governor
            .as_deref()
            .unwrap_or(self.board.frequency.governor)
    }

    /// `--profile bubblegum96`, as errors name what asked for a setting.
    pub fn option(&self) -> String {
        format!("--profile {}", self.board.name)
    }

    /// The one stderr line stating what the run does, as options:
    /// `# profile bubblegum96 (…): -t 2 -a 0-1 --policy fifo -p 99, governor performance,
    /// 1.6GHz held`.
    pub fn settings_line(&self, config: &RunConfig, plan: &Plan) -> String {
        let board = self.board;
        let cpus = CpuSet::from_cpus(plan.threads.iter().map(|t| t.cpu)).unwrap_or_default();
        let policy = config.policy();
        let mut line = format!(
            "# profile {} ({}): -t {} -a {cpus} --policy {}",
            board.name,
            board.description,
            plan.threads.len(),
            policy.name()
        );
        if let Some(first) = plan.threads.first().filter(|_| policy.is_realtime()) {
            line.push_str(&format!(" -p {}", first.priority));
            if config.priospread {
                line.push_str(" --priospread");
            }
        }
        line.push_str(&format!(", governor {}", self.governor(config)));
        match board.frequency.fixed_khz {
            Some(khz) => line.push_str(&format!(", {} held", format_khz(u64::from(khz)))),
            None => line.push_str(", frequency left to the governor"),
        }
        line
    }

    /// The `rtlat-tools` binary the profile's audit checks run in, beside this one: checked
    /// before anything changes, so that a run that cannot report them does not start.
    pub fn audit_tools(&self) -> Result<PathBuf, String> {
        rtlat::args::sibling("rtlat-tools").ok_or_else(|| {
            format!(
                "{}: its audit checks run in rtlat-tools, which is not beside rtlat; install both (cargo build builds both)",
                self.option()
            )
        })
    }

    /// Runs the profile's `rtlat audit` checks on the live machine (`tools audit --only IDS
    /// --json`, see [`RunProfile::audit_tools`]) and prints the findings that ask for a change
    /// (warn, fail) on stderr, one line each with its remedy; returns every finding of those
    /// ids. They do not stop the run; an audit that cannot run, or whose report cannot be
    /// read, does.
    pub fn audit(&self, tools: &Path) -> Result<Vec<Finding>, String> {
        let ids = self.board.audit_checks.join(",");
        let failed = |what: String| {
            format!(
                "{}: the audit checks ({} audit --only {ids} --json) {what}",
                self.option(),
                tools.display()
            )
        };
        let output = Command::new(tools)
            .args(["audit", "--only", &ids, "--json"])
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| failed(format!("cannot run: {e}")))?;
        let report: Report = serde_json::from_slice(&output.stdout)
            .map_err(|e| failed(format!("gave no report ({}): {e}", output.status)))?;
        if output.status.code() != Some(i32::from(report.summary.exit_status)) {
            return Err(failed(format!(
                "ended with {} for a report whose status is {}",
                output.status, report.summary.exit_status
            )));
        }
        for finding in report.findings.iter().filter(|f| needs_attention(f)) {
            errln!("{}", line(finding));
        }
        Ok(report.findings)
    }

    /// The `"profile"` object of the run's JSON configuration.
    pub fn json(&self, config: &RunConfig, findings: Vec<Finding>) -> Profile {
        Profile {
            name: self.board.name.to_string(),
            description: self.board.description.to_string(),
            governor: self.governor(config).to_string(),
            frequency_khz: self.board.frequency.fixed_khz,
            audit: findings,
        }
    }
}

/// Whether `finding` asks for a change (`warn` or `fail`).
fn needs_attention(finding: &Finding) -> bool {
    matches!(finding.severity.as_str(), "warn" | "fail")
}

/// `finding` on one line for stderr:
/// `# audit warn cpufreq.governor: CPUs 0-1 run the ondemand governor: … (remedy: …)`.
fn line(finding: &Finding) -> String {
    let mut line = format!(
        "# audit {} {}: {}",
        finding.severity, finding.id, finding.title
    );
    if let Some(remedy) = &finding.remedy {
        line.push_str(&format!(" (remedy: {remedy})"));
    }
    // One line, whatever a title or remedy holds.
    line.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::super::{Parsed, parse};
    use super::*;
    use rtlat_arm64::profile::{ALL, BUBBLEGUM96};
    use rtlat_linux::ProcessCpus;

    fn config(line: &str) -> RunConfig {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        match parse(&words, false) {
            Ok(Parsed::Run(config)) => config,
            other => panic!("`{line}` gave {other:?}"),
        }
    }

    fn error(line: &str) -> String {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        match parse(&words, false) {
            Err(e) => e.to_string(),
            Ok(other) => panic!("`{line}` was accepted: {other:?}"),
        }
    }

    /// (cpu, policy, priority) of each planned thread on `available`.
    /// `online` CPUs, every one in the process's affinity mask.
    fn machine(online: &str) -> ProcessCpus {
        let online = CpuSet::parse(online).unwrap();
        ProcessCpus::new(online.clone(), online)
    }

    fn threads(line: &str, online: &str) -> Vec<(usize, Policy, u8)> {
        threads_on(line, &machine(online))
    }

    fn threads_on(line: &str, cpus: &ProcessCpus) -> Vec<(usize, Policy, u8)> {
        let plan = config(line)
            .plan(cpus)
            .unwrap_or_else(|e| panic!("`{line}`: {e}"));
        plan.threads
            .iter()
            .map(|t| (t.cpu, t.policy, t.priority))
            .collect()
    }

    fn plan_error(line: &str, online: &str) -> String {
        match config(line).plan(&machine(online)) {
            Err(e) => e.to_string(),
            Ok(plan) => panic!("`{line}` was planned: {plan:?}"),
        }
    }

    const FIFO: Policy = Policy::Fifo;

    fn finding(severity: &str, title: &str, remedy: Option<&str>) -> Finding {
        Finding {
            id: "mm.swap".into(),
            severity: severity.into(),
            title: title.into(),
            evidence: Vec::new(),
            remedy: remedy.map(String::from),
        }
    }

    #[test]
    fn an_audit_finding_is_one_line_with_its_remedy() {
        let warn = finding("warn", "Swap is active\nhere", Some("swapoff -a"));
        assert_eq!(
            line(&warn),
            "# audit warn mm.swap: Swap is active here (remedy: swapoff -a)"
        );
        assert!(needs_attention(&warn));
        let ok = finding("ok", "No swap", None);
        assert_eq!(line(&ok), "# audit ok mm.swap: No swap");
        assert!(!needs_attention(&ok));
        assert!(!needs_attention(&finding("info", "x", None)));
        assert!(needs_attention(&finding("fail", "x", None)));
    }

    #[test]
    fn the_profile_alone_is_its_settings() {
        let c = config("--profile bubblegum96");
        assert_eq!(c.threads, Threads::PerCpu);
        assert_eq!(
            c.affinity,
            Some(CpuSpec::List(CpuSet::parse("0-3").unwrap()))
        );
        assert_eq!((c.policy, c.priority), (Some(FIFO), Some(99)));
        assert_eq!(
            c.governor, None,
            "the profile's governor is not an option given"
        );
        let profile = c.profile.as_ref().unwrap();
        assert_eq!(profile.board, &BUBBLEGUM96);
        assert_eq!(profile.cpus, Some(CpuSet::parse("0-3").unwrap()));
        assert_eq!(profile.governor(&c), "performance");
        // As cyclictest `-a 0-3 -t 4 --policy fifo -p 99`: every thread at 99, one per CPU.
        assert_eq!(
            threads("--profile bubblegum96", "0-7"),
            [(0, FIFO, 99), (1, FIFO, 99), (2, FIFO, 99), (3, FIFO, 99)]
        );
        assert_eq!(
            threads("--profile bubblegum96", "0-7"),
            threads("-t 4 -a 0-3 --policy fifo -p 99", "0-7")
        );
        // Names are matched as BoardProfile::by_name matches them.
        assert_eq!(config("--profile Bubblegum-96").profile, c.profile);
    }

    #[test]
    fn options_given_win_in_any_order() {
        for line in [
            "--profile bubblegum96 -t 2 -a 0,1",
            "-t 2 -a 0,1 --profile bubblegum96",
            "-t 2 --profile bubblegum96 -a 0-1",
        ] {
            assert_eq!(
                threads(line, "0-1"),
                [(0, FIFO, 99), (1, FIFO, 99)],
                "{line}"
            );
            assert_eq!(config(line).profile.unwrap().cpus, None, "{line}");
        }
        for (line, expected) in [
            (
                "--profile bubblegum96 -p 80",
                vec![(0, FIFO, 80), (1, FIFO, 80)],
            ),
            (
                "-p 80 --profile bubblegum96",
                vec![(0, FIFO, 80), (1, FIFO, 80)],
            ),
            (
                "--policy rr --profile bubblegum96",
                vec![(0, Policy::RoundRobin, 99), (1, Policy::RoundRobin, 99)],
            ),
            // A policy without priorities takes none from the profile.
            (
                "--profile bubblegum96 --policy batch",
                vec![(0, Policy::Batch, 0), (1, Policy::Batch, 0)],
            ),
            (
                "--profile bubblegum96 --priospread",
                vec![(0, FIFO, 99), (1, FIFO, 98)],
            ),
        ] {
            assert_eq!(
                threads(&format!("{line} -a 0-1"), "0-1"),
                expected,
                "{line}"
            );
        }
        let c = config("--governor schedutil --profile bubblegum96");
        assert_eq!(c.profile.as_ref().unwrap().governor(&c), "schedutil");
        // The last --profile wins, as the last of any repeated option does.
        assert!(
            config("--profile bubblegum96 --profile bubblegum96")
                .profile
                .is_some()
        );
    }

    #[test]
    fn a_count_alone_takes_the_first_cpus_of_the_profile() {
        let c = config("--profile bubblegum96 -t 2");
        assert_eq!(c.profile.unwrap().cpus, Some(CpuSet::parse("0-1").unwrap()));
        assert_eq!(
            threads("--profile bubblegum96 -t 2", "0-1"),
            [(0, FIFO, 99), (1, FIFO, 99)]
        );
        // More threads than CPUs: round-robin over all of them, so all are needed.
        let c = config("-t 6 --profile bubblegum96");
        assert_eq!(c.profile.unwrap().cpus, Some(CpuSet::parse("0-3").unwrap()));
        let cpus: Vec<usize> = threads("-t 6 --profile bubblegum96", "0-3")
            .iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(cpus, [0, 1, 2, 3, 0, 1]);
        // Bare -t: one per CPU of the profile's set.
        assert_eq!(threads("-t --profile bubblegum96", "0-7").len(), 4);
    }

    #[test]
    fn cpus_given_take_one_thread_each() {
        assert_eq!(
            threads("--profile bubblegum96 -a 2,5,6", "0-7"),
            [(2, FIFO, 99), (5, FIFO, 99), (6, FIFO, 99)]
        );
        // -S: one thread per available CPU, as without a profile.
        assert_eq!(threads("-S --profile bubblegum96", "0-1").len(), 2);
        // Bare -a: threads round-robin over the available CPUs, one per CPU.
        assert_eq!(threads("--profile bubblegum96 -a", "0-2").len(), 3);
    }

    #[test]
    fn a_smaller_machine_is_refused_naming_the_override() {
        assert_eq!(
            plan_error("--profile bubblegum96", "0-1"),
            "--profile bubblegum96 needs CPUs 0-3, but this machine has CPUs 0-1 online: -t and -a override the profile's CPUs, e.g. --profile bubblegum96 -t 2 -a 0-1"
        );
        assert_eq!(
            plan_error("--profile bubblegum96 -t 3", "0,2,5"),
            "--profile bubblegum96 needs CPUs 0-2, but this machine has CPUs 0,2,5 online: -t and -a override the profile's CPUs, e.g. --profile bubblegum96 -t 3 -a 0,2,5"
        );
        // -a names the CPUs: checked as -a always is.
        assert!(
            plan_error("--profile bubblegum96 -a 0-3", "0-1")
                .starts_with("invalid value '0-3' for -a/--affinity: CPUs 2-3 are not online")
        );
    }

    #[test]
    fn a_board_booted_with_isolated_cpus_runs_its_profile_on_them() {
        // isolcpus=1-3: the process's affinity mask is CPU 0, the profile's CPUs are online.
        let isolated = ProcessCpus::new(CpuSet::parse("0-3").unwrap(), CpuSet::parse("0").unwrap());
        let cpus: Vec<usize> = threads_on("--profile bubblegum96", &isolated)
            .iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(cpus, [0, 1, 2, 3]);
        // Without a CPU named (-S), the default set as always.
        assert_eq!(threads_on("-S --profile bubblegum96", &isolated).len(), 1);
    }

    #[test]
    fn unknown_names_and_the_cyclictest_name_are_refused() {
        assert_eq!(
            error("--profile rpi4"),
            "invalid value 'rpi4' for --profile: expected a board profile: bubblegum96"
        );
        assert_eq!(
            error("--profile="),
            "invalid value '' for --profile: expected a board profile: bubblegum96"
        );
        // Spelled in full (rtlat's own options are not abbreviated).
        assert!(error("--prof bubblegum96").starts_with("unknown option"));
        let words: Vec<String> = ["--profile", "bubblegum96"].map(String::from).to_vec();
        let err = parse(&words, true).unwrap_err();
        assert!(matches!(err, UsageError::RtlatOnly { .. }), "{err}");
        assert!(err.to_string().starts_with("--profile is an rtlat option"));
        // A contradiction among the options given is still one.
        assert!(error("--profile bubblegum96 -A 5 --secaligned").contains("--secaligned"));
    }

    #[test]
    fn the_settings_line_is_what_runs() {
        let c = config("--profile bubblegum96 -t 2 -a 0,1");
        let plan = c.plan(&machine("0-1")).unwrap();
        assert_eq!(
            c.profile.as_ref().unwrap().settings_line(&c, &plan),
            "# profile bubblegum96 (Bubblegum-96 (Actions S900, 4x Cortex-A53)): -t 2 -a 0-1 --policy fifo -p 99, governor performance, 1.6GHz held"
        );
        let c = config("--profile bubblegum96 --policy batch --governor schedutil");
        let plan = c.plan(&machine("0-3")).unwrap();
        let line = c.profile.as_ref().unwrap().settings_line(&c, &plan);
        assert!(
            line.ends_with(": -t 4 -a 0-3 --policy batch, governor schedutil, 1.6GHz held"),
            "{line}"
        );
    }

    #[test]
    fn every_profile_fits() {
        for board in ALL {
            let set = layout(board, board.thread_count());
            assert_eq!(set.len(), board.thread_count(), "{}", board.name);
            let c = config(&format!("--profile {}", board.name));
            let needs = c.profile.as_ref().unwrap().cpus.clone().unwrap();
            let plan = c.plan(&ProcessCpus::new(needs.clone(), needs)).unwrap();
            assert_eq!(plan.threads.len(), board.thread_count());
            for (i, t) in plan.threads.iter().enumerate() {
                assert_eq!(Some(t.cpu as u32), board.cpu_of_thread(i), "{}", board.name);
                assert_eq!(t.priority, board.priority);
            }
        }
    }
}
