//! The options of the tuning commands, through the one option mechanism ([`rtlat::options`]):
//! long options only (and `-h`), `--opt VALUE` or `--opt=VALUE`, in order (some commands give
//! meaning to the order), every problem one line naming the option.

use rtlat::options::{self, CliError, Grammar, UsageError};

/// One option a command accepts: its id is its name with the dashes (`--tid`).
pub type Spec = options::Spec<&'static str>;

/// `--root DIR`: the tree read and written instead of `/`.
pub const ROOT: Spec = Spec::new("--root").long("root").value("DIR", "a directory");
/// `--apply`: make the changes (without it, a dry run).
pub const APPLY: Spec = Spec::new("--apply")
    .long("apply")
    .help("make the changes (without it: a dry run that prints them)");
/// `--save FILE`: where the restore file goes.
pub const SAVE: Spec = Spec::new("--save")
    .long("save")
    .value("FILE", "a file path");
/// `--restore FILE`: undo what a restore file records.
pub const RESTORE: Spec = Spec::new("--restore")
    .long("restore")
    .value("FILE", "a restore file's path")
    .help("undo the changes FILE records (with the --root they were made under)");
/// `--help`.
pub const HELP: Spec = Spec::new("--help")
    .short('h')
    .long("help")
    .help("print this help");

/// An option found: its spec's name and its value (empty for a flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The option's name (`--tid`).
    pub name: &'static str,
    /// Its value.
    pub value: String,
}

/// Scans `args` against `specs`; `command` names the command in messages (`rtlat irq`).
pub fn scan(command: &str, args: &[String], specs: &[Spec]) -> Result<Vec<Found>, CliError> {
    let grammar = Grammar {
        operands: false,
        values_never_start_with_dashes: true,
    };
    let scanned = options::scan_with(args, specs, &(), grammar).map_err(|e| match e {
        UsageError::StrayArgument { argument } => CliError::Refused(format!(
            "unexpected argument '{argument}': every setting is an option (`{command} --help` lists them)"
        )),
        UsageError::UnknownOption { option } => CliError::Refused(format!(
            "unknown option '{option}' (`{command} --help` lists the options)"
        )),
        other => CliError::Usage(other),
    })?;
    let mut found = Vec::with_capacity(scanned.options.len());
    for option in scanned.options {
        let spec = specs.iter().find(|s| s.id == option.id);
        // A value given empty (`--tid=`) is a value missing.
        if let (Some(spec), Some("")) = (spec, option.value.as_deref()) {
            return Err(UsageError::MissingValue {
                option: option.id.to_owned(),
                expected: spec.expected.to_owned(),
            }
            .into());
        }
        found.push(Found {
            name: option.id,
            value: option.value.unwrap_or_default(),
        });
    }
    Ok(found)
}

/// How every tuning command's options begin: `--help`, `--restore FILE` (with `--root` at
/// most), or the options found plus the facts of `--root` (default `/`, which must be a
/// directory).
pub enum Start {
    /// `--help` (or `-h`) was given.
    Help,
    /// `--restore FILE`, with no other option but `--root DIR` (the root the file's changes
    /// were made under; `/` by default, and checked to be a directory).
    Restore {
        /// The restore file.
        file: std::path::PathBuf,
        /// `--root`, or `/`.
        root: std::path::PathBuf,
    },
    /// Anything else: the options in order and `--root` (or `/`), not yet looked at (see
    /// [`machine`]).
    Run(Options, std::path::PathBuf),
}

/// The options found on a command line, in order.
pub struct Options(Vec<Found>);

impl Options {
    /// The last value given to `name`.
    pub fn value(&self, name: &str) -> Option<String> {
        self.0
            .iter()
            .rev()
            .find(|f| f.name == name)
            .map(|f| f.value.clone())
    }

    /// Whether `name` was given.
    pub fn given(&self, name: &str) -> bool {
        self.0.iter().any(|f| f.name == name)
    }

    /// Every option found, in order.
    pub fn found(&self) -> &[Found] {
        &self.0
    }
}

/// Scans `args` and handles what the tuning commands share: `--help`, `--restore` and
/// `--root` (what was typed only: the machine is looked at by [`machine`]).
pub fn start(command: &str, args: &[String], specs: &[Spec]) -> Result<Start, CliError> {
    let options = Options(scan(command, args, specs)?);
    if options.given("--help") {
        return Ok(Start::Help);
    }
    let root = options.value("--root").unwrap_or_else(|| "/".into());
    if let Some(path) = options.value("--restore") {
        if let Some(other) = options
            .0
            .iter()
            .find(|f| f.name != "--restore" && f.name != "--root")
        {
            return Err(format!(
                "--restore takes no other option but --root ({} given): the file says what to restore",
                other.name
            )
            .into());
        }
        // Nothing else to check on what was typed: the root is checked here, once for every
        // tuning command.
        let root = std::path::PathBuf::from(root);
        machine(&root)?;
        return Ok(Start::Restore {
            file: std::path::PathBuf::from(path),
            root,
        });
    }
    Ok(Start::Run(options, std::path::PathBuf::from(root)))
}

/// The second step: the machine under `root` (`--root`, which must be a directory).
pub fn machine(root: &std::path::Path) -> Result<rtlat_system::facts::Facts, CliError> {
    if !root.is_dir() {
        let shown = root.display().to_string();
        return Err(invalid("--root", &shown, "not a directory").into());
    }
    Ok(rtlat_system::facts::Facts::at(root))
}

/// The command line as typed, `rtlat COMMAND ARGS…`: what a restore file records.
pub fn command_line(command: &str, args: &[String]) -> Vec<String> {
    ["rtlat", command]
        .into_iter()
        .map(str::to_owned)
        .chain(args.iter().cloned())
        .collect()
}

/// `invalid value 'VALUE' for OPTION: REASON`.
pub fn invalid(option: &str, value: &str, reason: impl std::fmt::Display) -> String {
    format!("invalid value '{value}' for {option}: {reason}")
}

/// The value of `option` as a CPU list of online CPUs under `facts` (the kernel's syntax,
/// `0-3,5`); the error names the option, the value and what is accepted.
pub fn online_cpu_list(
    option: &str,
    value: &str,
    facts: &rtlat_system::facts::Facts,
) -> Result<rtlat_linux::cpuset::CpuSet, String> {
    let set = rtlat_linux::cpuset::CpuSet::parse(value).map_err(|e| invalid(option, value, e))?;
    let online = facts
        .online_cpus()
        .map_err(|e| format!("{option}: cannot tell which CPUs are online: {e}"))?;
    let offline = set.difference(&online);
    if !offline.is_empty() {
        let (cpus, are) = if offline.len() == 1 {
            ("CPU", "is")
        } else {
            ("CPUs", "are")
        };
        return Err(invalid(
            option,
            value,
            format!("{cpus} {offline} {are} not online (online CPUs: {online})"),
        ));
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[Spec] = &[
        Spec::new("--tid").long("tid").value("TID", "a thread id"),
        APPLY,
        HELP,
    ];

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn scans_in_order() {
        let found = scan("rtlat x", &words("--tid 5 --apply --tid=6 -h"), SPECS).unwrap();
        let names: Vec<_> = found.iter().map(|f| (f.name, f.value.as_str())).collect();
        assert_eq!(
            names,
            [
                ("--tid", "5"),
                ("--apply", ""),
                ("--tid", "6"),
                ("--help", "")
            ]
        );
    }

    #[test]
    fn cpu_lists_must_be_online() {
        let facts = rtlat_system::facts::Facts::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/rtlat-system/tests/data/hp-t630"
        ));
        assert_eq!(
            online_cpu_list("--pin", "1-2", &facts).unwrap().to_string(),
            "1-2"
        );
        let err = online_cpu_list("--pin", "3-5", &facts).unwrap_err();
        assert_eq!(
            err,
            "invalid value '3-5' for --pin: CPUs 4-5 are not online (online CPUs: 0-3)"
        );
        let err = online_cpu_list("--away-from", "1,,2", &facts).unwrap_err();
        assert!(
            err.starts_with(
                "invalid value '1,,2' for --away-from: the CPU list has an empty element"
            ),
            "{err}"
        );
    }

    #[test]
    fn one_line_errors_name_the_option() {
        for (line, fragment) in [
            ("--tid", "option --tid needs a value: expected a thread id"),
            ("--tid --apply", "option --tid needs a value"),
            ("--tid=", "option --tid needs a value"),
            ("--apply=1", "option --apply takes no value"),
            ("--frob", "unknown option '--frob' (`rtlat x --help`"),
            ("-t 5", "unknown option '-t'"),
            ("5", "unexpected argument '5'"),
        ] {
            let err = scan("rtlat x", &words(line), SPECS)
                .unwrap_err()
                .to_string();
            assert!(err.contains(fragment), "{line}: {err}");
            assert_eq!(err.lines().count(), 1);
        }
    }
}
