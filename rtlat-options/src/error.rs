//! The one error of a refused command line, [`UsageError`], and [`CliError`], what every
//! command's parse step returns: a usage error or a front's own refusal, each with its exit
//! status from rtlat's `exit_status`.

use core::fmt;
use std::path::PathBuf;

use rtlat_linux::cpuset::CpuSet;

/// A command line rtlat refuses. Its `Display` is one line naming the option and what is
/// accepted; the CLI prints it and exits with status 2 (rtlat's `exit_status::of`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UsageError {
    /// An option neither cyclictest nor rtlat has.
    UnknownOption {
        /// The option as typed (`-n`, `--foo`).
        option: String,
    },
    /// A long-option prefix matching several options.
    AmbiguousOption {
        /// The prefix as typed.
        option: String,
        /// The options it could be.
        candidates: Vec<String>,
    },
    /// An option that needs a value came last.
    MissingValue {
        /// The option (`-i/--interval`).
        option: String,
        /// What its value should be.
        expected: String,
    },
    /// A flag was given a value (`--mlockall=1`).
    UnexpectedValue {
        /// The flag.
        option: String,
        /// The word as typed.
        given: String,
    },
    /// A value out of range or malformed.
    InvalidValue {
        /// The option (`-i/--interval`).
        option: String,
        /// The value as typed.
        value: String,
        /// What is accepted.
        expected: String,
    },
    /// A CPU list that does not parse or does not fit the machine's CPUs.
    InvalidCpuList {
        /// The option.
        option: String,
        /// The list as typed.
        value: String,
        /// What is wrong and what is accepted.
        reason: String,
    },
    /// Two options that contradict each other.
    Conflict {
        /// The first option (with its value where it matters).
        option: String,
        /// The other one.
        with: String,
        /// Why, and what to do.
        reason: String,
    },
    /// An option that only makes sense with another one.
    Requires {
        /// The option given.
        option: String,
        /// The one it needs.
        needs: String,
    },
    /// An rtlat option given to rtlat invoked as `cyclictest`.
    RtlatOnly {
        /// The option.
        option: String,
    },
    /// A cyclictest option rtlat does not implement.
    Unsupported {
        /// The option.
        option: String,
        /// What to use instead.
        reason: String,
    },
    /// A cyclictest option this machine (or rtlat) cannot carry out (`--smi`).
    NotHere {
        /// The option.
        option: String,
        /// Why, and what to do.
        reason: String,
    },
    /// A word that is not an option.
    StrayArgument {
        /// The word.
        argument: String,
    },
    /// No CPU is available to run the threads on.
    NoCpus,
    /// `--profile` lays threads out on CPUs that are not online (a machine with fewer CPUs
    /// than the board), and `-t`/`-a` did not choose others.
    ProfileCpus {
        /// The profile's name.
        profile: &'static str,
        /// The CPUs the profile's threads would run on.
        needs: CpuSet,
        /// The online CPUs (isolated ones included: a board's isolated CPUs are the ones it
        /// measures on).
        online: CpuSet,
    },
    /// An output file that cannot be written.
    NotWritable {
        /// The option (`--json`).
        option: String,
        /// The path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsageError::UnknownOption { option } => {
                write!(f, "unknown option '{option}' (--help lists the options)")
            }
            UsageError::AmbiguousOption { option, candidates } => write!(
                f,
                "option '{option}' is ambiguous: it could be {}; type more of the name",
                candidates.join(", ")
            ),
            UsageError::MissingValue { option, expected } => {
                write!(f, "option {option} needs a value: expected {expected}")
            }
            UsageError::UnexpectedValue { option, given } => {
                write!(
                    f,
                    "option {option} takes no value, but '{given}' gives it one"
                )
            }
            UsageError::InvalidValue {
                option,
                value,
                expected,
            } => {
                write!(
                    f,
                    "invalid value '{value}' for {option}: expected {expected}"
                )
            }
            UsageError::InvalidCpuList {
                option,
                value,
                reason,
            } => {
                write!(f, "invalid value '{value}' for {option}: {reason}")
            }
            UsageError::Conflict {
                option,
                with,
                reason,
            } => {
                write!(f, "{option} conflicts with {with}: {reason}")
            }
            UsageError::Requires { option, needs } => {
                write!(
                    f,
                    "{option} has no effect without {needs}: add it or drop {option}"
                )
            }
            UsageError::RtlatOnly { option } => write!(
                f,
                "{option} is an rtlat option that cyclictest does not have: run `rtlat run {option} ...` to use it"
            ),
            UsageError::NotHere { option, reason } => write!(f, "{option}: {reason}"),
            UsageError::Unsupported { option, reason } => {
                write!(
                    f,
                    "{option} is a cyclictest option that rtlat does not support: {reason}"
                )
            }
            UsageError::StrayArgument { argument } => write!(
                f,
                "unexpected argument '{argument}': every setting is an option (e.g. -t 4, not 4; --help lists them)"
            ),
            UsageError::NoCpus => write!(
                f,
                "no CPU is available to run the measuring threads (the process's affinity mask and the online CPUs do not overlap)"
            ),
            UsageError::ProfileCpus {
                profile,
                needs,
                online,
            } => {
                // The run that fits: as many threads as both have, on the first online CPUs.
                let fit: Vec<usize> = online.iter().take(needs.len()).collect();
                let fit = CpuSet::from_cpus(fit.iter().copied()).unwrap_or_default();
                let cpus = |set: &CpuSet| {
                    let s = if set.len() == 1 { "" } else { "s" };
                    format!("CPU{s} {set}")
                };
                write!(
                    f,
                    "--profile {profile} needs {}, but this machine has {} online: -t and -a override the profile's CPUs, e.g. --profile {profile} -t {} -a {fit}",
                    cpus(needs),
                    cpus(online),
                    fit.len()
                )
            }
            UsageError::NotWritable {
                option,
                path,
                reason,
            } => {
                write!(
                    f,
                    "cannot write the {option} file '{}': {reason}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for UsageError {}

/// What a command's parse step (syntax, then resolving against the machine) refuses: the one
/// error type of the command line. The command prints it as `rtlat COMMAND: LINE` on stderr and
/// exits with the status rtlat's `exit_status::of` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliError {
    /// A usage error: an option, a value or a combination refused.
    Usage(UsageError),
    /// A refusal in the command's own words: a file, CPU or setting of this machine that does
    /// not fit, or a mistake the command words its own way (one line).
    Refused(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(e) => e.fmt(f),
            CliError::Refused(line) => f.write_str(line),
        }
    }
}

impl std::error::Error for CliError {}

impl From<UsageError> for CliError {
    fn from(e: UsageError) -> Self {
        CliError::Usage(e)
    }
}

impl From<String> for CliError {
    fn from(line: String) -> Self {
        CliError::Refused(line)
    }
}

impl From<&str> for CliError {
    fn from(line: &str) -> Self {
        CliError::Refused(line.to_owned())
    }
}
