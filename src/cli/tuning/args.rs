//! The option scanner of the tuning commands: long options only, `--opt VALUE` or
//! `--opt=VALUE`, in order (some commands give meaning to the order), every problem one line
//! naming the option.

/// One option a command accepts.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The name with its dashes: `--tid`.
    pub name: &'static str,
    /// What its value is, in words (`a thread id`), or `None` for a flag.
    pub value: Option<&'static str>,
}

/// `--root DIR`: the tree read and written instead of `/`.
pub const ROOT: Spec = Spec {
    name: "--root",
    value: Some("a directory"),
};
/// `--apply`: make the changes (without it, a dry run).
pub const APPLY: Spec = Spec {
    name: "--apply",
    value: None,
};
/// `--save FILE`: where the restore file goes.
pub const SAVE: Spec = Spec {
    name: "--save",
    value: Some("a file path"),
};
/// `--restore FILE`: undo what a restore file records.
pub const RESTORE: Spec = Spec {
    name: "--restore",
    value: Some("a restore file's path"),
};
/// `--help`.
pub const HELP: Spec = Spec {
    name: "--help",
    value: None,
};

/// An option found: its spec's name and its value (empty for a flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The option's name (`--tid`).
    pub name: &'static str,
    /// Its value.
    pub value: String,
}

/// Scans `args` against `specs`; `command` names the command in messages (`rtlat irq`).
pub fn scan(command: &str, args: &[String], specs: &[Spec]) -> Result<Vec<Found>, String> {
    let mut found = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let (name, inline) = match word.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (word.as_str(), None),
        };
        if !name.starts_with('-') {
            return Err(format!(
                "unexpected argument '{word}': every setting is an option (`{command} --help` lists them)"
            ));
        }
        let spec = specs
            .iter()
            .find(|s| s.name == name || (name == "-h" && s.name == "--help"))
            .ok_or_else(|| {
                format!("unknown option '{name}' (`{command} --help` lists the options)")
            })?;
        let value = match (spec.value, inline) {
            (None, None) => String::new(),
            (None, Some(_)) => {
                return Err(format!(
                    "option {} takes no value, but '{word}' gives it one",
                    spec.name
                ));
            }
            (Some(_), Some(value)) => value.to_owned(),
            (Some(expected), None) => match words.next() {
                Some(value) if !value.starts_with("--") => value.clone(),
                _ => {
                    return Err(format!(
                        "option {} needs a value: expected {expected}",
                        spec.name
                    ));
                }
            },
        };
        if spec.value.is_some() && value.is_empty() {
            return Err(format!(
                "option {} needs a value: expected {}",
                spec.name,
                spec.value.unwrap_or_default()
            ));
        }
        found.push(Found {
            name: spec.name,
            value,
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
    /// were made under; `/` by default).
    Restore {
        /// The restore file.
        file: std::path::PathBuf,
        /// `--root`, or `/`.
        root: std::path::PathBuf,
    },
    /// Anything else: the options in order and the machine they act on.
    Run(Options, rtlat_system::facts::Facts),
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
/// `--root`.
pub fn start(command: &str, args: &[String], specs: &[Spec]) -> Result<Start, String> {
    let options = Options(scan(command, args, specs)?);
    if options.given("--help") {
        return Ok(Start::Help);
    }
    let root = options.value("--root").unwrap_or_else(|| "/".into());
    if !std::path::Path::new(&root).is_dir() {
        return Err(invalid("--root", &root, "not a directory"));
    }
    if let Some(path) = options.value("--restore") {
        if let Some(other) = options
            .0
            .iter()
            .find(|f| f.name != "--restore" && f.name != "--root")
        {
            return Err(format!(
                "--restore takes no other option but --root ({} given): the file says what to restore",
                other.name
            ));
        }
        return Ok(Start::Restore {
            file: std::path::PathBuf::from(path),
            root: std::path::PathBuf::from(root),
        });
    }
    Ok(Start::Run(options, rtlat_system::facts::Facts::at(&root)))
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
        Spec {
            name: "--tid",
            value: Some("a thread id"),
        },
        Spec {
            name: "--apply",
            value: None,
        },
        Spec {
            name: "--help",
            value: None,
        },
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
            let err = scan("rtlat x", &words(line), SPECS).unwrap_err();
            assert!(err.contains(fragment), "{line}: {err}");
            assert_eq!(err.lines().count(), 1);
        }
    }
}
