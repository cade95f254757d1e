//! The options of `rtlat irq`.

use std::path::PathBuf;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;

use rtlat::options::CliError;

use crate::cli::tuning::args::{
    APPLY, HELP, RESTORE, ROOT, SAVE, Spec, Start, machine, online_cpu_list, start,
};

/// `rtlat irq --help`: the options part written from [`SPECS`].
pub fn usage() -> String {
    format!(
        "\
Usage: rtlat irq [--root DIR]
       rtlat irq [--root DIR] --away-from CPUSET [--default] [--apply] [--save FILE]
       rtlat irq [--root DIR] --restore FILE

Lists the IRQs (affinity, effective affinity, whether they can be moved, name), or moves
every movable IRQ away from CPUSET, e.g. the CPUs of real-time threads: each IRQ keeps the
CPUs of its affinity that are not in CPUSET, or, when none is left, gets the housekeeping
CPUs (the online CPUs but CPUSET).

{}
Every change is printed as `/proc/irq/N/smp_affinity_list: OLD → NEW`. IRQs the kernel does
not let move (per-CPU, kernel-managed, the timer) are reported, not fatal. An IRQ's effective
affinity follows when it next fires. Stop irqbalance first, or it moves them back. Writing
needs root. A restore file undoes only what it recorded, on this machine, in this boot: it is
checked as a whole (the same IRQs with the same handlers, values of this machine, writable by
you) before anything is written, or refused with status 2.
",
        rtlat::options::help::options(SPECS, 22)
    )
}

const SPECS: &[Spec] = &[
    Spec::new("--away-from")
        .long("away-from")
        .value("CPUSET", "a CPU list such as 3 or 2-3")
        .help("the CPUs to move IRQs away from (e.g. 3, 2-3)"),
    Spec::new("--default")
        .long("default")
        .help("also change /proc/irq/default_smp_affinity, which new IRQs get"),
    APPLY,
    SAVE.help(
        "where --apply saves what it changed (default:\n./rtlat-irq-restore-DATE-PID.json; an existing file is refused)",
    ),
    RESTORE,
    ROOT.help("the system's root (default /): change a copy of a machine's tree"),
    HELP,
];

/// What the command line asks for.
pub enum Action {
    Help,
    List { facts: Facts },
    Away(Away),
    Restore { file: PathBuf, root: PathBuf },
}

/// `--away-from` and its companions.
pub struct Away {
    pub facts: Facts,
    pub cpus: CpuSet,
    pub default: bool,
    pub apply: bool,
    pub save: Option<PathBuf>,
    pub argv: Vec<String>,
}

/// Parses the words after `rtlat irq`.
pub fn parse(args: &[String]) -> Result<Action, CliError> {
    let (options, root) = match start("rtlat irq", args, SPECS)? {
        Start::Help => return Ok(Action::Help),
        Start::Restore { file, root } => return Ok(Action::Restore { file, root }),
        Start::Run(options, root) => (options, root),
    };
    let value = |name: &str| options.value(name);
    let given = |name: &str| options.given(name);
    let Some(list) = value("--away-from") else {
        for option in ["--default", "--apply", "--save"] {
            if given(option) {
                return Err(format!(
                    "{option} has no effect without --away-from CPUSET: add it or drop {option}"
                )
                .into());
            }
        }
        return Ok(Action::List {
            facts: machine(&root)?,
        });
    };
    let save = value("--save").map(PathBuf::from);
    if save.is_some() && !given("--apply") {
        return Err(
            "--save has no effect without --apply (a dry run changes nothing): add --apply or drop --save"
                .into(),
        );
    }
    // Against the machine: its root and its online CPUs.
    let facts = machine(&root)?;
    let cpus = online_cpu_list("--away-from", &list, &facts)?;
    Ok(Action::Away(Away {
        facts,
        cpus,
        default: given("--default"),
        apply: given("--apply"),
        save,
        argv: crate::cli::tuning::args::command_line("irq", args),
    }))
}
