//! The options of `rtlat audit` and its `--help`.

use std::path::PathBuf;

use rtlat::options::{self, CliError, Spec, UsageError};
use rtlat_linux::cpuset::CpuSet;

/// `rtlat audit --help`: the options part written from [`SPECS`].
pub fn usage() -> String {
    format!(
        "\
rtlat audit: check this machine's real-time tuning (read-only: nothing is changed)

Usage: rtlat audit [--root DIR] [--cmdline FILE] [--only IDS] [--json]
       rtlat audit --suggest --isolate CPUS [--root DIR] [--cmdline FILE] [--json]

Options:
{}
Each finding has a stable id (vm.guest, vm.steal, kernel.preempt_rt, cmdline.isolcpus,
cmdline.unknown_param, cpus.housekeeping, cpufreq.governor, irq.on_isolated,
threads.on_isolated, ...), a severity, the evidence read and the remedy. On a virtual machine
(the hypervisor CPU flag, a paravirtual clocksource, Xen's /sys/hypervisor/type, a
hypervisor's DMI name) vm.guest says what only the host can fix and vm.steal how much CPU
time the host has taken since boot.
  ok     tuned as a real-time machine wants it
  info   worth knowing; no change needed
  warn   adds latency or jitter here: fix it
  fail   no bounded latency as it is (not a PREEMPT_RT kernel, no housekeeping CPU left),
         or a setting the kernel ignores

Exit status:
  0  the worst finding is ok or info (with --suggest: the line was printed)
  1  the worst finding is warn
  3  the worst finding is fail
  2  bad usage: an unknown option, a malformed CPU list, a CPU this machine does not have,
     no housekeeping CPU left by --isolate, an unreadable root or file (one line on stderr)
",
        rtlat::options::help::options(SPECS, 19)
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Root,
    Cmdline,
    Json,
    Suggest,
    Isolate,
    ProfileOut,
    Only,
    Help,
}

/// `rtlat audit`'s options: names, values and help.
const SPECS: &[Spec<Opt>] = &[
    Spec::new(Opt::Root)
        .long("root")
        .value("DIR", "a directory (the root of /proc and /sys)")
        .help(
            "read /proc, /sys and /dev under DIR instead of / (e.g. a tree captured\n\
             from another machine)",
        ),
    Spec::new(Opt::Cmdline)
        .long("cmdline")
        .value("FILE", "a file holding a kernel command line")
        .help(
            "audit the kernel command line in FILE instead of /proc/cmdline: a line as\n\
             /proc/cmdline holds it, or /etc/default/grub (its GRUB_CMDLINE_LINUX and\n\
             GRUB_CMDLINE_LINUX_DEFAULT). It is not compared with what the running\n\
             kernel made of its own line; the IRQ, thread and workqueue checks still use\n\
             the CPUs the running kernel isolates.",
        ),
    Spec::new(Opt::Json).long("json").help(
        "print the report as JSON: {root, cmdline, findings: [{id, severity, title,\n\
         evidence: [{source, value}], remedy}], summary: {ok, info, warn, fail,\n\
         worst, exit_status}}",
    ),
    Spec::new(Opt::Suggest).long("suggest").help(
        "print the complete kernel command line that isolates the CPUs of\n\
         --isolate on this machine (the current line, or --cmdline's, with the\n\
         real-time parameters set and misspellings and duplicates removed), the\n\
         GRUB line, and the commands that apply it (nothing is changed)",
    ),
    Spec::new(Opt::Isolate)
        .long("isolate")
        .value("CPUS", "a CPU list, e.g. 3 or 2-3")
        .help("the CPUs to isolate, a CPU list such as 3 or 2-3 (with --suggest)"),
    Spec::new(Opt::ProfileOut)
        .long("profile-out")
        .value("FILE", "a file path")
        .help(
            "with --suggest: also write a tuning profile to FILE (the suggested\n\
             parameters, IRQs away from the CPUs, and where the machine has them their\n\
             governor and idle states) for rtlat tune apply and rtlat verify",
        ),
    Spec::new(Opt::Only)
        .long("only")
        .value("IDS", "finding ids, e.g. cpufreq.governor,irq.on_isolated")
        .help(
            "report only the findings with these ids (comma-separated); an id that no\n\
             check reports on this machine is listed as info, so every id asked for is\n\
             accounted for (rtlat run --profile asks for its board's checks this way)",
        ),
    Spec::new(Opt::Help)
        .short('h')
        .long("help")
        .help("print this help"),
];

/// What `rtlat audit` was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `--root DIR` (default `/`).
    pub root: PathBuf,
    /// `--json`.
    pub json: bool,
    /// `--cmdline FILE`.
    pub cmdline: Option<PathBuf>,
    /// `--suggest --isolate CPUS`: the CPUs to isolate.
    pub suggest: Option<CpuSet>,
    /// `--profile-out FILE` (with `--suggest`): where the tuning profile goes.
    pub profile_out: Option<PathBuf>,
    /// `--only IDS`: the finding ids to report (all when `None`).
    pub only: Option<Vec<String>>,
    /// `--help`.
    pub help: bool,
}

const ACCEPTED: &str = "accepted: --root DIR, --cmdline FILE, --only IDS, --json, --suggest --isolate CPUS [--profile-out FILE], --help";

impl Options {
    /// Parses the arguments after `audit` (what was typed only: the root and the file are
    /// checked against the machine by the command); the error is one line naming the option.
    pub fn parse(args: &[String]) -> Result<Options, CliError> {
        let found = options::scan(args, SPECS, &()).map_err(|e| match e {
            UsageError::UnknownOption { option } => {
                format!("unknown option '{option}'; {ACCEPTED}")
            }
            // `--json=1`: not an option audit has.
            UsageError::UnexpectedValue { given, .. } => {
                format!("unknown option '{given}'; {ACCEPTED}")
            }
            UsageError::StrayArgument { argument } => {
                format!("unexpected argument '{argument}'; {ACCEPTED}")
            }
            UsageError::MissingValue { option, expected } => format!("{option} needs {expected}"),
            other => other.to_string(),
        })?;
        let mut root: Option<PathBuf> = None;
        let mut cmdline: Option<PathBuf> = None;
        let mut json = false;
        let mut suggest = false;
        let mut isolate: Option<CpuSet> = None;
        let mut only: Option<Vec<String>> = None;
        let mut profile_out: Option<PathBuf> = None;
        let mut help = false;
        for item in found {
            let spec = SPECS.iter().find(|s| s.id == item.id);
            let name = spec.map(Spec::name).unwrap_or_default();
            let value = item.value.unwrap_or_default();
            // A value given empty (`--root=`) is a value missing.
            if let Some(spec) = spec.filter(|s| !s.expected.is_empty() && value.is_empty()) {
                return Err(format!("{name} needs {}", spec.expected).into());
            }
            let once = |given: bool| {
                if given {
                    Err(format!("{name} is given twice; give it once"))
                } else {
                    Ok(())
                }
            };
            match item.id {
                Opt::Root => {
                    once(root.is_some())?;
                    root = Some(PathBuf::from(value));
                }
                Opt::Cmdline => {
                    once(cmdline.is_some())?;
                    cmdline = Some(PathBuf::from(value));
                }
                Opt::Isolate => {
                    once(isolate.is_some())?;
                    let set =
                        CpuSet::parse(&value).map_err(|e| format!("--isolate '{value}': {e}"))?;
                    isolate = Some(set);
                }
                Opt::ProfileOut => {
                    once(profile_out.is_some())?;
                    profile_out = Some(PathBuf::from(value));
                }
                Opt::Only => {
                    once(only.is_some())?;
                    only = Some(finding_ids(&value)?);
                }
                Opt::Json => {
                    once(json)?;
                    json = true;
                }
                Opt::Suggest => {
                    once(suggest)?;
                    suggest = true;
                }
                Opt::Help => help = true,
            }
        }
        let suggest = match (suggest, isolate) {
            (true, Some(cpus)) => Some(cpus),
            (true, None) => {
                return Err("--suggest needs --isolate CPUS, the CPUs to isolate".into());
            }
            (false, Some(_)) => {
                return Err(
                    "--isolate goes with --suggest: rtlat audit --suggest --isolate CPUS".into(),
                );
            }
            (false, None) => None,
        };
        if suggest.is_some() && only.is_some() {
            return Err("--only goes with the audit, not with --suggest".into());
        }
        if suggest.is_none() && profile_out.is_some() {
            return Err(
                "--profile-out goes with --suggest: rtlat audit --suggest --isolate CPUS --profile-out FILE"
                    .into(),
            );
        }
        Ok(Options {
            root: root.unwrap_or_else(|| PathBuf::from("/")),
            json,
            cmdline,
            suggest,
            profile_out,
            only,
            help,
        })
    }
}

/// `--only`'s value: comma-separated ids, each `area.topic` in lowercase letters, digits,
/// `_` and `.` (as every finding's id is: `cpufreq.governor`, `cmdline.processor.max_cstate`).
fn finding_ids(value: &str) -> Result<Vec<String>, String> {
    let part = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    let is_id = |id: &str| {
        id.split_once('.')
            .is_some_and(|(area, topic)| part(area) && topic.split('.').all(part))
    };
    value
        .split(',')
        .map(|id| {
            if is_id(id) {
                Ok(id.to_string())
            } else {
                Err(format!(
                    "invalid value '{value}' for --only: '{id}' is not a finding id; expected ids such as cpufreq.governor,irq.on_isolated (area.topic, comma-separated)"
                ))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        Options::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_help_names_every_option() {
        let usage = usage();
        for spec in SPECS {
            assert!(
                usage.contains(&rtlat::options::help::names(spec)),
                "{spec:?}"
            );
        }
    }

    #[test]
    fn defaults_and_values() {
        let o = parse(&[]).unwrap();
        assert_eq!(o.root, PathBuf::from("/"));
        assert!(!o.json && o.cmdline.is_none() && o.suggest.is_none() && !o.help);
        assert_eq!(o.only, None);
        let o = parse(&[
            "--only",
            "cpufreq.governor,cmdline.processor.max_cstate",
            "--json",
        ])
        .unwrap();
        assert_eq!(
            o.only.unwrap(),
            ["cpufreq.governor", "cmdline.processor.max_cstate"].map(String::from)
        );
        let o = parse(&[
            "--root",
            "/t",
            "--json",
            "--cmdline=/c",
            "--suggest",
            "--isolate",
            "2-3",
        ])
        .unwrap();
        assert_eq!(o.root, PathBuf::from("/t"));
        assert!(o.json);
        assert_eq!(o.cmdline, Some(PathBuf::from("/c")));
        assert_eq!(o.suggest.unwrap().to_string(), "2-3");
        assert!(parse(&["-h"]).unwrap().help);
    }

    #[test]
    fn errors_name_the_option() {
        let cases: [(&[&str], &str); 16] = [
            (&["--only"], "--only needs"),
            (&["--only="], "--only needs"),
            (&["--only", "cpufreq"], "'cpufreq' is not a finding id"),
            (&["--only", "a.b,,c.d"], "'' is not a finding id"),
            (&["--only", "a.b."], "'a.b.' is not a finding id"),
            (
                &["--only", "a.b", "--suggest", "--isolate", "1"],
                "--only goes with the audit",
            ),
            (&["--frobnicate"], "unknown option '--frobnicate'"),
            (&["extra"], "unexpected argument 'extra'"),
            (&["--root"], "--root needs"),
            (&["--root="], "--root needs"),
            (&["--suggest"], "--suggest needs --isolate"),
            (&["--isolate", "3"], "--isolate goes with --suggest"),
            (&["--suggest", "--isolate", "0-"], "--isolate '0-'"),
            (&["--suggest", "--isolate", "x"], "--isolate 'x'"),
            (&["--json", "--json"], "--json is given twice"),
            (&["--json=1"], "unknown option '--json=1'"),
        ];
        for (args, expected) in cases {
            let err = parse(args).unwrap_err();
            assert!(err.contains(expected), "{args:?}: {err}");
            assert!(!err.contains('\n'));
        }
    }
}
