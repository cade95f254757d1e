//! `rtlat audit --json`: the [`Report`] (also each [`Finding`] in `rtlat run --profile`'s
//! configuration), and with `--suggest` the [`Suggestion`].

use serde::{Deserialize, Serialize};

/// The report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The root the machine was read under.
    pub root: String,
    /// Where the kernel command line was read.
    pub cmdline: Cmdline,
    /// The findings.
    pub findings: Vec<Finding>,
    /// How many of each severity, the worst and the exit status.
    pub summary: Summary,
}

/// Where the kernel command line was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cmdline {
    /// The file (`null` when none could be read).
    pub source: Option<String>,
    /// Whether it is the running kernel's.
    pub running: bool,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// `area.topic`.
    pub id: String,
    /// `ok`, `info`, `warn` or `fail`.
    pub severity: String,
    /// What was found.
    pub title: String,
    /// What was read.
    pub evidence: Vec<Evidence>,
    /// What to do (`null` when nothing).
    pub remedy: Option<String>,
}

/// What was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The file or source.
    pub source: String,
    /// What it held.
    pub value: String,
}

/// How many findings of each severity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `ok` findings.
    pub ok: usize,
    /// `info` findings.
    pub info: usize,
    /// `warn` findings.
    pub warn: usize,
    /// `fail` findings.
    pub fail: usize,
    /// The worst severity (`null` without findings).
    pub worst: Option<String>,
    /// The exit status `rtlat audit` ends with.
    pub exit_status: u8,
}

/// `rtlat audit --suggest --json`: the kernel command line that isolates CPUs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// The CPUs to isolate.
    pub isolate: String,
    /// The CPUs left for housekeeping.
    pub housekeeping: String,
    /// Where the current command line was read.
    pub source: String,
    /// The suggested command line.
    pub cmdline: String,
    /// The value for GRUB's `GRUB_CMDLINE_LINUX_DEFAULT`.
    pub grub_cmdline_linux_default: String,
    /// The whole GRUB line.
    pub grub_line: String,
    /// The parameters changed.
    pub changes: Vec<Change>,
    /// Notes.
    pub notes: Vec<String>,
    /// How to apply it, step by step.
    pub apply: Vec<String>,
}

/// One parameter changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// `add`, `set`, `remove` …
    pub action: String,
    /// The parameter.
    pub param: String,
    /// Why.
    pub reason: String,
}
