//! The options of `rtlat threads`.
//!
//! The threads to change are named by `--tid`, or selected by `--pid` and/or `--name` (never
//! both ways at once). With `--tid`, `--set` and `--pin` given before the first `--tid` apply
//! to every `--tid`; given after a `--tid`, they apply to that thread only (and win over the
//! former), so one command gives a guest's vCPU threads each their own priority and CPU:
//!
//! ```text
//! rtlat threads --tid 4101 --set fifo:98 --pin 2 --tid 4102 --set fifo:95 --pin 3 --apply
//! ```
//!
//! With `--pid`/`--name`, `--set` and `--pin` apply to every thread selected:
//!
//! ```text
//! rtlat threads --pid 4100 --name 'CPU [0-9]+/' --set fifo:98 --pin 2 --apply
//! ```

use std::path::{Path, PathBuf};

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;
use rtlat_system::tune::SchedRequest;

use rtlat::options::CliError;

use super::pattern::{Pattern, SYNTAX};
use super::usage::SPECS;
use crate::cli::tuning::args::{Found, Options, Start, invalid, machine, online_cpu_list, start};

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

/// The threads `--pid PID` and/or `--name REGEX` select for a change.
pub struct Selection {
    /// `--pid`: only the threads of this process.
    pub pid: Option<u32>,
    /// `--name`: only the threads whose thread name matches (the pattern as typed, and
    /// compiled).
    pub name: Option<(String, Pattern)>,
}

impl Selection {
    /// The options as typed, for messages: `--pid 4100 --name 'CPU [0-9]+/'`.
    pub fn words(&self) -> String {
        let pid = self.pid.map(|pid| format!("--pid {pid}"));
        let name = self
            .name
            .as_ref()
            .map(|(text, _)| format!("--name '{}'", one_line(text)));
        [pid, name]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `text` with its control characters escaped (`\n`), to be quoted on one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_control() {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect()
}

/// The threads a change is for.
pub enum Threads {
    /// `--tid TID…`, each with its own settings.
    Tids(Vec<Wanted>),
    /// `--pid`/`--name`, one setting for every thread they select.
    Selected {
        selection: Selection,
        set: Option<SchedRequest>,
        pin: Option<CpuSet>,
    },
}

/// `--tid … --set … --pin …` (or `--pid`/`--name` with `--set`/`--pin`) and their companions.
pub struct Change {
    pub threads: Threads,
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

    for (option, hint) in [
        ("--pid", "one process a command: run it once for each"),
        ("--name", "one pattern: `a|b` matches either name"),
    ] {
        if found.iter().filter(|f| f.name == option).count() > 1 {
            return Err(format!("{option} is given twice: give it once ({hint})").into());
        }
    }
    // Listing options and changing options do not mix.
    let listing = ["--json", "--root"];
    let changes = ["--set", "--pin", "--apply", "--save"];
    if let (Some(list), Some(change)) = (
        listing.iter().find(|o| given(o)),
        changes.iter().find(|o| given(o)),
    ) {
        return Err(format!(
            "{list} conflicts with {change}: {list} is for listing threads, {change} for changing them"
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
        return list(&options, &root);
    }

    let selecting = ["--pid", "--name"].into_iter().find(|o| given(o));
    if let (Some(select), true) = (selecting, given("--tid")) {
        return Err(format!(
            "--tid conflicts with {select} in a change: name the threads to change by --tid, or select them by --pid/--name, not both"
        )
        .into());
    }

    // Changing: --set/--pin before the first --tid are defaults (with --pid/--name: the
    // settings of every thread selected); after one, that thread's.
    let (defaults, threads, pins) = change_items(found)?;
    let save = value("--save").map(PathBuf::from);
    if save.is_some() && !given("--apply") {
        return Err(
            "--save has no effect without --apply (a dry run changes nothing): add --apply or drop --save"
                .into(),
        );
    }
    let threads = if selecting.is_some() {
        selected(&options, defaults)?
    } else {
        Threads::Tids(tids_to_change(threads, defaults)?)
    };
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

/// Listing: the threads `--pid`, `--name` or `--tid` (one of them) choose, or all.
fn list(options: &Options, root: &Path) -> Result<Action, CliError> {
    let value = |name: &str| options.value(name);
    let given = |name: &str| options.given(name);
    let found = options.found();
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
    Ok(Action::List {
        facts: machine(root)?,
        filter,
        json: given("--json"),
    })
}

/// What a change's `--set`, `--pin` and `--tid` say, in order: the defaults (before the
/// first `--tid`), each `--tid` with its own, and the CPU lists as typed (checked against
/// the machine's online CPUs once the syntax is right).
#[allow(clippy::type_complexity)]
fn change_items(
    found: &[Found],
) -> Result<
    (
        (Option<SchedRequest>, Option<CpuSet>),
        Vec<Wanted>,
        Vec<&str>,
    ),
    CliError,
> {
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
    Ok((defaults, threads, pins))
}

/// A change to the threads `--pid` and/or `--name` select, each with the defaults.
fn selected(
    options: &Options,
    defaults: (Option<SchedRequest>, Option<CpuSet>),
) -> Result<Threads, CliError> {
    let value = |name: &str| options.value(name);
    let pid = value("--pid")
        .map(|pid| id("--pid", &pid, "a process id (a number above 0)"))
        .transpose()?;
    if pid == Some(std::process::id()) {
        return Err(format!(
            "--pid {}: that is this rtlat process, whose threads are never changed",
            std::process::id()
        )
        .into());
    }
    let name = value("--name")
        .map(|name| {
            Pattern::new(&name)
                .map(|pattern| (name.clone(), pattern))
                .map_err(|e| invalid("--name", &name, format!("{e} (accepted: {SYNTAX})")))
        })
        .transpose()?;
    Ok(Threads::Selected {
        selection: Selection { pid, name },
        set: defaults.0,
        pin: defaults.1,
    })
}

/// The `--tid`s of a change, each given the defaults (`--set`/`--pin` before the first
/// `--tid`) where it has no setting of its own.
fn tids_to_change(
    mut threads: Vec<Wanted>,
    defaults: (Option<SchedRequest>, Option<CpuSet>),
) -> Result<Vec<Wanted>, CliError> {
    if threads.is_empty() {
        return Err(
            "--set and --pin change the threads named by --tid TID or selected by --pid PID and/or --name REGEX: add one (`rtlat threads --name REGEX` lists them)"
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
    Ok(threads)
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

    fn tids(change: Change) -> Vec<Wanted> {
        match change.threads {
            Threads::Tids(tids) => tids,
            Threads::Selected { .. } => panic!("a selection, not --tid"),
        }
    }

    #[test]
    fn set_and_pin_bind_to_the_tid_before_them() {
        let c = change("--tid 11 --set fifo:98 --pin 0 --tid 12 --set fifo:95 --apply");
        let apply = c.apply;
        let c = tids(c);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].set.unwrap().priority, 98);
        assert_eq!(c[0].pin.as_ref().unwrap().to_string(), "0");
        assert_eq!(c[1].set.unwrap().priority, 95);
        assert!(c[1].pin.is_none());
        assert!(apply);

        let c = change("--set rr:5 --pin 0 --tid 11 --tid 12 --set other:-5");
        assert!(!c.apply);
        let c = tids(c);
        assert_eq!(c[0].set.unwrap().to_string(), "rr:5");
        assert_eq!(c[1].set.unwrap().to_string(), "other:-5");
        assert_eq!(c[1].pin.as_ref().unwrap().to_string(), "0");
    }

    #[test]
    fn pid_and_name_select_the_threads_a_change_is_for() {
        for (line, words) in [
            ("--pid 4100 --set fifo:98 --pin 0", "--pid 4100"),
            ("--name CPU.[0-9]+/ --set fifo:98", "--name 'CPU.[0-9]+/'"),
            (
                "--set fifo:98 --name ^CPU --pin 0 --pid 4100 --apply",
                "--pid 4100 --name '^CPU'",
            ),
        ] {
            let c = change(line);
            assert_eq!(c.apply, line.contains("--apply"));
            let Threads::Selected {
                selection,
                set,
                pin,
            } = c.threads
            else {
                panic!("{line}: not a selection");
            };
            assert_eq!(selection.words(), words, "{line}");
            assert_eq!(set.unwrap().to_string(), "fifo:98");
            assert_eq!(
                pin.map(|p| p.to_string()),
                line.contains("--pin").then(|| "0".into())
            );
            if let Some((_, pattern)) = &selection.name {
                assert!(pattern.is_match("CPU 1/KVM"), "{line}");
                assert!(!pattern.is_match("worker"), "{line}");
            }
        }
    }

    #[test]
    fn refusals_name_the_option() {
        for (line, fragment) in [
            (
                "--set fifo:50",
                "or selected by --pid PID and/or --name REGEX: add one",
            ),
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
            (
                "--pid 1 --json --set fifo:50",
                "--json conflicts with --set",
            ),
            ("--name x --root / --pin 0", "--root conflicts with --pin"),
            (
                "--tid 11 --name CPU --set fifo:50",
                "--tid conflicts with --name in a change: name the threads to change by --tid, or select them by --pid/--name, not both",
            ),
            (
                "--pid 1 --tid 11 --set fifo:50",
                "--tid conflicts with --pid",
            ),
            ("--pid 1 --pid 2 --set fifo:50", "--pid is given twice"),
            ("--name a --name b", "--name is given twice"),
            (
                "--pid 1 --set fifo:50 --set rr:1",
                "--set is given twice: give it once",
            ),
            ("--pid 0 --set fifo:50", "invalid value '0' for --pid"),
            (
                "--name (CPU --set fifo:50",
                "invalid value '(CPU' for --name: unclosed group",
            ),
            ("--name CPU --pin 8191", "CPU 8191 is not online"),
            (
                "--pid 1 --set fifo:50 --save x",
                "--save has no effect without --apply",
            ),
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
            ("--restore f --pid 1", "--restore takes no other option"),
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
        // rtlat's own process.
        let line = format!("--pid {} --set fifo:50", std::process::id());
        let err = parse_line(&line)
            .err()
            .expect("own pid refused")
            .to_string();
        assert!(
            err.ends_with("that is this rtlat process, whose threads are never changed"),
            "{err}"
        );
    }
}
