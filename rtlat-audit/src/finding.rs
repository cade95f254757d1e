//! [`Finding`]: one thing the audit found, with its [`Severity`], the [`Evidence`] it read and
//! the remedy.

use core::fmt;
use std::borrow::Cow;

/// How much a finding matters for real-time latency, from harmless to disqualifying. The
/// worst severity of a report sets the exit status ([`Severity::exit_status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Tuned as a real-time machine wants it.
    Ok,
    /// Worth knowing; no change needed (or a choice only the owner can make).
    Info,
    /// Adds latency or jitter here: fix it.
    Warn,
    /// The machine cannot give bounded latency as it is (or the setting is ignored by the
    /// kernel).
    Fail,
}

impl Severity {
    /// Every severity, from `ok` to `fail`.
    pub const ALL: [Severity; 4] = [Severity::Ok, Severity::Info, Severity::Warn, Severity::Fail];

    /// The name used in the table and in JSON: `ok`, `info`, `warn`, `fail`.
    pub const fn name(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Info => "info",
            Severity::Warn => "warn",
            Severity::Fail => "fail",
        }
    }

    /// The exit status of a report whose worst finding has this severity: 0 for ok and info,
    /// 1 for warn, 3 for fail (2 is bad usage, as in every rtlat command).
    pub const fn exit_status(self) -> u8 {
        match self {
            Severity::Ok | Severity::Info => 0,
            Severity::Warn => 1,
            Severity::Fail => 3,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One piece of evidence: where it was read (a file as the machine names it, e.g.
/// `/proc/sys/kernel/version`, or a description such as `/proc/*/stat`) and what was there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// The file (system path, not joined to `--root`) or source.
    pub source: String,
    /// What it held (or `absent`, or the error).
    pub value: String,
}

/// One finding: a stable id (`kernel.preempt_rt`), a severity, a one-sentence title saying
/// what was found and why it matters, the evidence, and the exact remedy (none for `ok`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable identifier, `area.topic`; scripts may match on it.
    pub id: Cow<'static, str>,
    /// How much it matters.
    pub severity: Severity,
    /// What was found, in one or two sentences.
    pub title: String,
    /// What was read.
    pub evidence: Vec<Evidence>,
    /// What to do: the kernel parameter to add or the command to run.
    pub remedy: Option<String>,
}

impl Finding {
    /// A finding without evidence or remedy yet.
    pub fn new(
        id: impl Into<Cow<'static, str>>,
        severity: Severity,
        title: impl Into<String>,
    ) -> Finding {
        Finding {
            id: id.into(),
            severity,
            title: title.into(),
            evidence: Vec::new(),
            remedy: None,
        }
    }

    /// Adds a piece of evidence.
    pub fn evidence(mut self, source: impl Into<String>, value: impl Into<String>) -> Finding {
        self.evidence.push(Evidence {
            source: source.into(),
            value: value.into(),
        });
        self
    }

    /// Sets the remedy.
    pub fn remedy(mut self, remedy: impl Into<String>) -> Finding {
        self.remedy = Some(remedy.into());
        self
    }
}

/// The counts of each severity and the worst one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    /// Findings per severity, in [`Severity::ALL`] order.
    pub counts: [usize; 4],
    /// The worst severity (`None` without findings).
    pub worst: Option<Severity>,
}

impl Summary {
    /// Counts `findings`.
    pub fn of(findings: &[Finding]) -> Summary {
        let mut summary = Summary::default();
        for finding in findings {
            summary.counts[finding.severity as usize] += 1;
            summary.worst = summary.worst.max(Some(finding.severity));
        }
        summary
    }

    /// The number of findings of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.counts[severity as usize]
    }

    /// The exit status for this report (0 without findings).
    pub fn exit_status(&self) -> u8 {
        self.worst.map_or(0, Severity::exit_status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_order_and_exit_statuses() {
        assert!(Severity::Ok < Severity::Info && Severity::Warn < Severity::Fail);
        let statuses: Vec<u8> = Severity::ALL.iter().map(|s| s.exit_status()).collect();
        assert_eq!(statuses, [0, 0, 1, 3]);
        let findings = [
            Finding::new("a.b", Severity::Info, "x"),
            Finding::new("a.c", Severity::Warn, "y").remedy("do"),
            Finding::new("a.d", Severity::Info, "z").evidence("/f", "1"),
        ];
        let summary = Summary::of(&findings);
        assert_eq!(summary.counts, [0, 2, 1, 0]);
        assert_eq!(summary.worst, Some(Severity::Warn));
        assert_eq!(summary.exit_status(), 1);
        assert_eq!(Summary::of(&[]).exit_status(), 0);
    }
}
