//! [`Context`]: what every check reads first — the command line audited, the CPUs, and the
//! CPUs the running kernel isolates.

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::cmdline::KernelCmdline;
use rtlat_system::facts::{CpuInfo, FactError, FactResultExt, Facts};

use crate::finding::{Finding, Severity};
use crate::guest::{self, Guest};
use crate::isolation::LineIsolation;
use crate::paths::system_path;

/// The command line audited.
#[derive(Debug, Clone)]
pub struct Cmdline {
    /// The line.
    pub line: KernelCmdline,
    /// Where it came from: `/proc/cmdline` or the `--cmdline` file.
    pub source: String,
    /// Whether it is the running kernel's (`/proc/cmdline`), so that it can be compared with
    /// what the kernel made of it.
    pub running: bool,
    /// Its isolation parameters.
    pub isolation: LineIsolation,
}

/// The facts every check needs, read once.
#[derive(Debug, Clone)]
pub struct Context {
    /// The facts under the root.
    pub facts: Facts,
    /// The command line audited (`None` if `/proc/cmdline` could not be read).
    pub cmdline: Option<Cmdline>,
    /// `/sys/devices/system/cpu/online`.
    pub online: Option<CpuSet>,
    /// `/sys/devices/system/cpu/possible`.
    pub possible: Option<CpuSet>,
    /// The CPUs the running kernel isolates: `isolated` ∪ `nohz_full` in sysfs (or, on kernels
    /// without those files, what `/proc/cmdline` isolates). IRQs, threads and housekeeping
    /// are checked against these.
    pub isolated: CpuSet,
    /// Where [`isolated`](Self::isolated) was read: (source, value) pairs for evidence.
    pub isolated_sources: Vec<(String, String)>,
    /// `/proc/cpuinfo` (`None` if it could not be read, as in trees captured without it).
    pub cpuinfo: Option<CpuInfo>,
    /// The virtual machine this is, if it is one.
    pub guest: Option<Guest>,
}

/// The finding for a fact that could not be read: `info` when the file is absent (the kernel
/// or machine does not have it), `warn` otherwise (the audit is incomplete).
pub fn unreadable(id: &'static str, what: &str, error: &FactError) -> Finding {
    let (severity, title) = if error.is_absent() {
        (
            Severity::Info,
            format!("{what} is not available, so it was not checked"),
        )
    } else {
        (
            Severity::Warn,
            format!("Could not read {what}, so it was not checked"),
        )
    };
    let mut chars = title.chars();
    let title: String = chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    Finding::new(id, severity, title).evidence(what, error.to_string())
}

impl Context {
    /// Reads the context; `cmdline_text` is the `--cmdline` file's line with its name (else
    /// `/proc/cmdline` is read). Facts that cannot be read become findings.
    pub fn load(facts: Facts, cmdline_text: Option<(String, String)>) -> (Context, Vec<Finding>) {
        let mut findings = Vec::new();
        let mut cpu_list = |id, what, result: Result<CpuSet, FactError>| match result {
            Ok(set) => Some(set),
            Err(e) => {
                findings.push(unreadable(id, what, &e));
                None
            }
        };
        let online = cpu_list(
            "cpus.online",
            "/sys/devices/system/cpu/online",
            facts.online_cpus(),
        );
        let possible = cpu_list(
            "cpus.possible",
            "/sys/devices/system/cpu/possible",
            facts.possible_cpus(),
        );
        let last_cpu = possible.as_ref().and_then(CpuSet::last);

        let running_line = match facts.cmdline() {
            Ok(line) => Some(line),
            Err(e) => {
                if cmdline_text.is_none() {
                    let mut finding = unreadable("cmdline.read", "/proc/cmdline", &e);
                    finding.severity = Severity::Warn;
                    findings.push(finding.remedy(
                        "run as a user who can read /proc/cmdline, or give the line with --cmdline FILE",
                    ));
                }
                None
            }
        };
        let cmdline = match cmdline_text {
            Some((source, text)) => Some(Cmdline {
                line: KernelCmdline::parse(&text),
                source,
                running: false,
                isolation: LineIsolation::default(),
            }),
            None => running_line.clone().map(|line| Cmdline {
                line,
                source: system_path("proc/cmdline"),
                running: true,
                isolation: LineIsolation::default(),
            }),
        }
        .map(|mut c| {
            c.isolation = LineIsolation::of(&c.line, last_cpu);
            c
        });

        // The running kernel's isolation, from sysfs.
        let mut isolated = CpuSet::new();
        let mut sources = Vec::new();
        let mut any_file = false;
        for (relative, result) in [
            ("sys/devices/system/cpu/isolated", facts.isolated_cpus()),
            ("sys/devices/system/cpu/nohz_full", facts.nohz_full_cpus()),
        ] {
            match result.optional() {
                Ok(Some(set)) => {
                    any_file = true;
                    sources.push((system_path(relative), or_none(&set)));
                    isolated = isolated.union(&set);
                }
                Ok(None) => {}
                Err(e) => findings.push(unreadable("cpus.isolated", &system_path(relative), &e)),
            }
        }
        if !any_file && let Some(line) = &running_line {
            isolated = LineIsolation::of(line, last_cpu).isolated_cpus();
            sources.push((
                system_path("proc/cmdline"),
                format!("isolates {}", or_none(&isolated)),
            ));
        }
        let cpuinfo = facts.cpuinfo().ok();
        let guest = guest::detect(&facts, cpuinfo.as_ref());
        let context = Context {
            facts,
            cmdline,
            online,
            possible,
            isolated,
            isolated_sources: sources,
            cpuinfo,
            guest,
        };
        (context, findings)
    }

    /// `finding` with the evidence of which CPUs are isolated.
    pub fn isolated_evidence(&self, mut finding: Finding) -> Finding {
        for (source, value) in &self.isolated_sources {
            finding = finding.evidence(source, value);
        }
        finding
    }

    /// The online CPUs that are not isolated (`None` if the online CPUs are unknown).
    pub fn housekeeping(&self) -> Option<CpuSet> {
        self.online
            .as_ref()
            .map(|online| online.difference(&self.isolated))
    }

    /// The housekeeping CPUs as a list for remedies (`0` if unknown or empty).
    pub fn housekeeping_list(&self) -> String {
        self.housekeeping()
            .filter(|set| !set.is_empty())
            .map_or_else(|| "0".to_owned(), |set| set.to_string())
    }
}

/// A CPU list, or `(none)` for the empty set.
pub fn or_none(set: &CpuSet) -> String {
    if set.is_empty() {
        "(none)".to_owned()
    } else {
        set.to_string()
    }
}

/// "CPU 3 is" or "CPUs 2-3 are": the CPUs with a verb that agrees.
pub fn cpus_verb(set: &CpuSet, singular: &str, plural: &str) -> String {
    if set.len() == 1 {
        format!("CPU {set} {singular}")
    } else {
        format!("CPUs {} {plural}", or_none(set))
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

/// "CPU 3" or "CPUs 2-3".
pub fn cpus_phrase(set: &CpuSet) -> String {
    if set.len() == 1 {
        format!("CPU {set}")
    } else {
        format!("CPUs {}", or_none(set))
    }
}
