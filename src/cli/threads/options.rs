//! The options of `rtlat threads`.
//!
//! `--set` and `--pin` given before the first `--tid` apply to every `--tid`; given after a
//! `--tid`, they apply to that thread only (and win over the former), so one command gives a
//! guest's vCPU threads each their own priority and CPU:
//!
//! ```text
//! rtlat threads --tid 4101 --set fifo:98 --pin 2 --tid 4102 --set fifo:95 --pin 3 --apply
//! ```

use std::path::PathBuf;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;
use rtlat_system::tune::SchedRequest;
use rtlat_system::tune::thread::SCHED_REQUEST_SYNTAX;

use rtlat::options::CliError;

use super::pattern::{Pattern, SYNTAX};
use crate::cli::tuning::args::{
    APPLY, HELP, RESTORE, ROOT, SAVE, Spec, Start, invalid, machine, online_cpu_list, start,
};

/// `rtlat threads --help`.
pub const USAGE: &str = "\
Usage: rtlat threads [--pid PID | --name REGEX | --tid TID...] [--json] [--root DIR]
       rtlat threads [--set POLICY] [--pin CPUS] --tid TID [--set POLICY] [--pin CPUS]
                     [--tid TID ...] [--apply] [--save FILE]
       rtlat threads --restore FILE

Lists threads (like `ps -eLo pid,tid,psr,cls,rtprio,ni,comm` plus affinity): process and
thread id, the CPU it last ran on, policy, real-time priority, nice value, the CPUs it may
run on, process and thread name. Or changes threads' scheduling and CPUs (what `chrt -p` and
`taskset -p` do), e.g. a QEMU guest's vCPU threads:

  rtlat threads --name qemu-system
  rtlat threads --tid 4101 --set fifo:98 --pin 2 --tid 4102 --set fifo:95 --pin 3 --apply

Listing:
  --pid PID        the threads of one process
  --name REGEX     the threads whose process or thread name matches the regular expression
                   (anywhere unless anchored; the Rust regex crate's syntax, matched in
                   linear time; e.g. qemu-system, '^CPU [0-9]+/KVM$')
  --tid TID        these threads (repeatable)
  --json           print a JSON array instead of the table
  --root DIR       read /proc under DIR (default /)

Changing (dry run unless --apply):
  --tid TID        a thread to change (repeatable; `--set`/`--pin` after it are its own,
                   before the first --tid they apply to every thread)
  --set POLICY     fifo:N or rr:N (N 1..99), other[:NICE] or batch[:NICE] (NICE -20..19),
                   or idle
  --pin CPUS       the CPUs it may run on, e.g. 3 or 2-3
  --apply          make the changes (without it: a dry run that prints them)
  --save FILE      where --apply saves what it changed (default:
                   ./rtlat-threads-restore-DATE-PID.json; an existing file is refused)
  --restore FILE   undo the changes FILE records
  -h, --help       print this help

Changing another user's thread, real-time priorities above `ulimit -r` and nice values
below `20 - ulimit -e` need CAP_SYS_NICE (root); a change you could make but not undo (e.g.
raising your own thread's nice value) is refused. The reset-on-fork flag is kept, and
restored. A restore file is refused as a whole if a thread is gone or its id now names
another thread.
";

/// The options; their help is in [`USAGE`], which lists `--tid` twice (for listing and for
/// changing), so it is kept as written (a test checks it names every option).
const SPECS: &[Spec] = &[
    Spec::new("--pid").long("pid").value("PID", "a process id"),
    Spec::new("--name")
        .long("name")
        .value("REGEX", "a name pattern such as qemu-system"),
    Spec::new("--tid")
        .long("tid")
        .value("TID", "a thread id (`rtlat threads` lists them)"),
    Spec::new("--set")
        .long("set")
        .value("POLICY", SCHED_REQUEST_SYNTAX),
    Spec::new("--pin")
        .long("pin")
        .value("CPUS", "a CPU list such as 3 or 2-3"),
    Spec::new("--json").long("json"),
    ROOT,
    APPLY,
    SAVE,
    RESTORE,
    HELP,
];

/// Which threads to list.
pub enum Filter {
    All,
    Pid(u32),
    Name(Pattern),
    Tids(Vec<u32>),
}

/// What the command line asks for.
pub enum Action {
    Help,
    List {
        facts: Facts,
        filter: Filter,
        json: bool,
    },
    Change(Change),
    Restore {
        file: PathBuf,
        root: PathBuf,
    },
}

/// What to change of one thread.
pub struct Wanted {
    pub tid: u32,
    pub set: Option<SchedRequest>,
    pub pin: Option<CpuSet>,
}

/// `--tid … --set … --pin …` and their companions.
pub struct Change {
    pub threads: Vec<Wanted>,
    pub apply: bool,
    pub save: Option<PathBuf>,
    pub argv: Vec<String>,
}

fn id(option: &str, value: &str, what: &str) -> Result<u32, String> {
    value
        .parse::<u32>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| invalid(option, value, format!("expected {what}")))
}

/// Parses the words after `rtlat threads`.
pub fn parse(args: &[String]) -> Result<Action, CliError> {
    let (options, root) = match start("rtlat threads", args, SPECS)? {
        Start::Help => return Ok(Action::Help),
        Start::Restore { file, root } => return Ok(Action::Restore { file, root }),
        Start::Run(options, root) => (options, root),
    };
    let value = |name: &str| options.value(name);
    let given = |name: &str| options.given(name);
    let found = options.found();
    let changing = given("--set") || given("--pin");

    // Listing options and changing options do not mix.
    let listing = ["--pid", "--name", "--json", "--root"];
    let changes = ["--set", "--pin", "--apply", "--save"];
    if let (Some(list), Some(change)) = (
        listing.iter().find(|o| given(o)),
        changes.iter().find(|o| given(o)),
    ) {
        return Err(format!(
            "{list} conflicts with {change}: {list} is for listing threads, {change} for changing them (by --tid)"
        ).into());
    }
    if !changing {
        for option in ["--apply", "--save"] {
            if given(option) {
                return Err(format!(
                    "{option} has no effect without --set POLICY or --pin CPUS: add one or drop {option}"
                ).into());
            }
        }
        let tids = found
            .iter()
            .filter(|f| f.name == "--tid")
            .map(|f| id("--tid", &f.value, "a thread id (a number above 0)"))
            .collect::<Result<Vec<_>, _>>()?;
        let filters = [!tids.is_empty(), given("--pid"), given("--name")];
        if filters.iter().filter(|&&f| f).count() > 1 {
            return Err(
                "--pid, --name and --tid each choose the threads to list: give one of them".into(),
            );
        }
        let filter = if let Some(pid) = value("--pid") {
            Filter::Pid(id("--pid", &pid, "a process id (a number above 0)")?)
        } else if let Some(name) = value("--name") {
            Filter::Name(
                Pattern::new(&name)
                    .map_err(|e| invalid("--name", &name, format!("{e} (accepted: {SYNTAX})")))?,
            )
        } else if !tids.is_empty() {
            Filter::Tids(tids)
        } else {
            Filter::All
        };
        return Ok(Action::List {
            facts: machine(&root)?,
            filter,
            json: given("--json"),
        });
    }

    // Changing: --set/--pin before the first --tid are defaults; after one, that thread's.
    let mut defaults: (Option<SchedRequest>, Option<CpuSet>) = (None, None);
    let mut threads: Vec<Wanted> = Vec::new();
    // The CPU lists as typed, checked against the machine's online CPUs after the syntax.
    let mut pins: Vec<&str> = Vec::new();
    for item in found {
        let scope = threads.last().map(|w| format!(" for --tid {}", w.tid));
        match item.name {
            "--tid" => {
                let tid = id("--tid", &item.value, "a thread id (a number above 0)")?;
                if threads.iter().any(|w| w.tid == tid) {
                    return Err(format!("--tid {tid} is given twice: give each thread once").into());
                }
                threads.push(Wanted {
                    tid,
                    set: None,
                    pin: None,
                });
            }
            "--set" => {
                let request: SchedRequest = item
                    .value
                    .parse()
                    .map_err(|e: String| invalid("--set", &item.value, e))?;
                let slot = match threads.last_mut() {
                    Some(w) => &mut w.set,
                    None => &mut defaults.0,
                };
                if slot.replace(request).is_some() {
                    return Err(format!(
                        "--set is given twice{}: give it once",
                        scope.unwrap_or_default()
                    )
                    .into());
                }
            }
            "--pin" => {
                let cpus =
                    CpuSet::parse(&item.value).map_err(|e| invalid("--pin", &item.value, e))?;
                pins.push(&item.value);
                let slot = match threads.last_mut() {
                    Some(w) => &mut w.pin,
                    None => &mut defaults.1,
                };
                if slot.replace(cpus).is_some() {
                    return Err(format!(
                        "--pin is given twice{}: give it once",
                        scope.unwrap_or_default()
                    )
                    .into());
                }
            }
            _ => {}
        }
    }
    if threads.is_empty() {
        return Err(
            "--set and --pin change threads named by --tid TID: add --tid (`rtlat threads --pid PID` or `--name REGEX` lists them)"
                .into(),
        );
    }
    for wanted in &mut threads {
        wanted.set = wanted.set.or(defaults.0);
        wanted.pin = wanted.pin.take().or_else(|| defaults.1.clone());
        if wanted.set.is_none() && wanted.pin.is_none() {
            return Err(format!(
                "--tid {} has nothing to change: put --set/--pin after it, or before the first --tid to apply them to every thread",
                wanted.tid
            ).into());
        }
    }
    let save = value("--save").map(PathBuf::from);
    if save.is_some() && !given("--apply") {
        return Err(
            "--save has no effect without --apply (a dry run changes nothing): add --apply or drop --save"
                .into(),
        );
    }
    // Against the machine: its root and the CPUs of --pin.
    let facts = machine(&root)?;
    for pin in pins {
        online_cpu_list("--pin", pin, &facts)?;
    }
    Ok(Action::Change(Change {
        threads,
        apply: given("--apply"),
        save,
        argv: crate::cli::tuning::args::command_line("threads", args),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Action, CliError> {
        parse(
            &line
                .split_whitespace()
                .map(str::to_owned)
                .collect::<Vec<_>>(),
        )
    }

    fn change(line: &str) -> Change {
        match parse_line(line) {
            Ok(Action::Change(change)) => change,
            Ok(_) => panic!("{line}: not a change"),
            Err(e) => panic!("{line}: {e}"),
        }
    }

    #[test]
    fn the_help_names_every_option() {
        for spec in SPECS {
            let names = rtlat::options::help::names(spec);
            assert!(USAGE.contains(&names), "{names}");
        }
    }

    #[test]
    fn set_and_pin_bind_to_the_tid_before_them() {
        let c = change("--tid 11 --set fifo:98 --pin 0 --tid 12 --set fifo:95 --apply");
        assert_eq!(c.threads.len(), 2);
        assert_eq!(c.threads[0].set.unwrap().priority, 98);
        assert_eq!(c.threads[0].pin.as_ref().unwrap().to_string(), "0");
        assert_eq!(c.threads[1].set.unwrap().priority, 95);
        assert!(c.threads[1].pin.is_none());
        assert!(c.apply);

        let c = change("--set rr:5 --pin 0 --tid 11 --tid 12 --set other:-5");
        assert_eq!(c.threads[0].set.unwrap().to_string(), "rr:5");
        assert_eq!(c.threads[1].set.unwrap().to_string(), "other:-5");
        assert_eq!(c.threads[1].pin.as_ref().unwrap().to_string(), "0");
        assert!(!c.apply);
    }

    #[test]
    fn refusals_name_the_option() {
        for (line, fragment) in [
            ("--set fifo:50", "add --tid"),
            (
                "--tid 11 --tid 12 --set fifo:50",
                "--tid 11 has nothing to change",
            ),
            ("--tid 11 --tid 11 --set fifo:50", "--tid 11 is given twice"),
            (
                "--tid 11 --set fifo:50 --set rr:2",
                "--set is given twice for --tid 11",
            ),
            ("--tid x --set fifo:50", "invalid value 'x' for --tid"),
            ("--tid 0 --set fifo:50", "invalid value '0' for --tid"),
            (
                "--tid 11 --set fifo:100",
                "invalid value 'fifo:100' for --set: priority 100",
            ),
            (
                "--tid 11 --set deadline",
                "invalid value 'deadline' for --set: unknown policy",
            ),
            ("--tid 11 --pin 1,,2", "invalid value '1,,2' for --pin"),
            (
                "--tid 11 --pin 8191",
                "invalid value '8191' for --pin: CPU 8191 is not online",
            ),
            (
                "--tid 11 --pin 99999",
                "invalid value '99999' for --pin: CPU 99999 is too large",
            ),
            ("--pid 1 --set fifo:50", "--pid conflicts with --set"),
            (
                "--tid 11 --set fifo:50 --save x",
                "--save has no effect without --apply",
            ),
            ("--apply", "--apply has no effect without --set"),
            ("--pid 1 --name x", "give one of them"),
            ("--pid -1", "invalid value '-1' for --pid"),
            (
                "--name [a",
                "invalid value '[a' for --name: unclosed character class",
            ),
            ("--restore f --apply", "--restore takes no other option"),
            (
                "--root /nonexistent-rtlat",
                "invalid value '/nonexistent-rtlat' for --root",
            ),
        ] {
            let err = match parse_line(line) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("{line}: accepted"),
            };
            assert!(err.contains(fragment), "{line}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
}
