//! The options of `rtlat cpufreq`.

use std::path::PathBuf;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;
use rtlat_system::tune::frequency::parse_frequency;

use rtlat::options::CliError;

use crate::cli::tuning::args::{
    APPLY, HELP, RESTORE, ROOT, SAVE, Spec, Start, invalid, machine, online_cpu_list, start,
};

/// `rtlat cpufreq --help`: the options part written from [`SPECS`].
pub fn usage() -> String {
    format!(
        "\
Usage: rtlat cpufreq [--root DIR] [--cpus CPUSET]
       rtlat cpufreq [--root DIR] [--cpus CPUSET] (--governor NAME | --freq FREQ) [--apply] [--save FILE]
       rtlat cpufreq [--root DIR] --restore FILE

Lists each CPU's frequency scaling (driver, governor, limits, hardware range), or sets the
governor (what `cpufreq-set -g` does) or a fixed frequency (what `cpufreq-set -f` does) on
CPUSET (default: every online CPU).

{}
`rtlat run --governor NAME` sets a governor for one run only. Writing needs root. A reboot
resets cpufreq settings, so a restore file is refused after one; otherwise it is checked as a
whole (governors the CPU has, frequencies in its range, files writable by you) before
anything is written, or refused with status 2.
",
        rtlat::options::help::options(SPECS, 20)
    )
}

const SPECS: &[Spec] = &[
    Spec::new("--cpus")
        .long("cpus")
        .value("CPUSET", "a CPU list such as 2-3")
        .help("the CPUs (e.g. 2-3); CPUs sharing a cpufreq policy are set together"),
    Spec::new("--governor")
        .long("governor")
        .value("NAME", "a governor name such as performance")
        .help("a governor the driver offers, e.g. performance"),
    Spec::new("--freq")
        .long("freq")
        .value("FREQ", "a frequency such as 1.6GHz")
        .help(
            "a frequency the CPU offers: 1.6GHz, 1600MHz, 1600000kHz (a bare number\n\
             is kHz); it is fixed by setting scaling_min_freq = scaling_max_freq = FREQ\n\
             under the running governor, which works with every driver (the userspace\n\
             governor that cpufreq-set -f uses is often missing)",
        ),
    APPLY,
    SAVE.help(
        "where --apply saves what it changed (default:\n./rtlat-cpufreq-restore-DATE-PID.json; an existing file is refused)",
    ),
    RESTORE,
    ROOT.help("the system's root (default /): change a copy of a machine's tree"),
    HELP,
];

/// What a governor name looks like, for error messages.
pub const GOVERNOR_NAME: &str =
    "a governor name: letters, digits, `_` or `-`, at most 15 characters (e.g. performance)";

/// Whether `name` can be a cpufreq governor's name (the kernel's are at most 15 bytes of
/// lowercase letters, digits and `_`; `-` is allowed for out-of-tree ones).
pub fn is_governor_name(name: &str) -> bool {
    (1..=15).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// What the command line asks for.
pub enum Action {
    Help,
    List { facts: Facts, cpus: CpuSet },
    Set(Set),
    Restore { file: PathBuf, root: PathBuf },
}

/// `--governor` / `--freq` and their companions.
pub struct Set {
    pub facts: Facts,
    pub cpus: CpuSet,
    pub governor: Option<String>,
    /// `--freq` in kHz, with the text given.
    pub freq: Option<(u64, String)>,
    pub apply: bool,
    pub save: Option<PathBuf>,
    pub argv: Vec<String>,
}

/// The second step, against the machine under `root`: the CPUs of `--cpus` (online), or every
/// online CPU.
fn cpus_of(root: &std::path::Path, list: Option<String>) -> Result<(Facts, CpuSet), CliError> {
    let facts = machine(root)?;
    let cpus = match list {
        Some(list) => online_cpu_list("--cpus", &list, &facts)?,
        None => facts
            .online_cpus()
            .map_err(|e| format!("cannot tell which CPUs are online: {e}"))?,
    };
    Ok((facts, cpus))
}

/// Parses the words after `rtlat cpufreq`: what was typed first, then the CPUs.
pub fn parse(args: &[String]) -> Result<Action, CliError> {
    let (options, root) = match start("rtlat cpufreq", args, SPECS)? {
        Start::Help => return Ok(Action::Help),
        Start::Restore { file, root } => return Ok(Action::Restore { file, root }),
        Start::Run(options, root) => (options, root),
    };
    let value = |name: &str| options.value(name);
    let given = |name: &str| options.given(name);
    let governor = value("--governor");
    if let Some(name) = governor.as_deref().filter(|n| !is_governor_name(n)) {
        return Err(invalid("--governor", name, format!("expected {GOVERNOR_NAME}")).into());
    }
    let freq = match value("--freq") {
        Some(text) => Some((
            parse_frequency(&text).map_err(|e| invalid("--freq", &text, e))?,
            text,
        )),
        None => None,
    };
    if governor.is_none() && freq.is_none() {
        for option in ["--apply", "--save"] {
            if given(option) {
                return Err(format!(
                    "{option} has no effect without --governor NAME or --freq FREQ: add one or drop {option}"
                ).into());
            }
        }
        let (facts, cpus) = cpus_of(&root, value("--cpus"))?;
        return Ok(Action::List { facts, cpus });
    }
    let save = value("--save").map(PathBuf::from);
    if save.is_some() && !given("--apply") {
        return Err(
            "--save has no effect without --apply (a dry run changes nothing): add --apply or drop --save"
                .into(),
        );
    }
    let (facts, cpus) = cpus_of(&root, value("--cpus"))?;
    Ok(Action::Set(Set {
        facts,
        cpus,
        governor,
        freq,
        apply: given("--apply"),
        save,
        argv: crate::cli::tuning::args::command_line("cpufreq", args),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn governor_names() {
        for good in [
            "performance",
            "ondemand",
            "schedutil",
            "a",
            "gov_2-x",
            "fifteen_chars__",
        ] {
            assert!(is_governor_name(good), "{good}");
        }
        for bad in ["", "sixteen_chars___", "perf ormance", "perf/x", "é", "-"] {
            assert_eq!(is_governor_name(bad), bad == "-", "{bad}");
        }
    }
}
