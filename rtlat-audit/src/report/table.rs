//! The report for people: one block per finding (severity, id, what was found, evidence,
//! remedy), wrapped to a width, severities in colour when asked.

use std::fmt::Write as _;

use super::Report;
use crate::finding::{Severity, Summary};

/// ANSI colours for the severities, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// In colour if `colour` (`rtlat audit` colours only a terminal, and not with `NO_COLOR`).
    pub const fn new(colour: bool) -> Style {
        Style { colour }
    }

    /// No colour.
    pub const fn plain() -> Style {
        Style { colour: false }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn severity(self, severity: Severity, text: &str) -> String {
        let code = match severity {
            Severity::Ok => "32",
            Severity::Info => "36",
            Severity::Warn => "1;33",
            Severity::Fail => "1;31",
        };
        self.paint(code, text)
    }

    fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
}

/// `text` wrapped at word boundaries to `width` columns; the first line follows `first`
/// (already written, `indent` columns wide), the others start with `indent` spaces.
fn wrap(text: &str, indent: usize, width: usize) -> String {
    let room = width.saturating_sub(indent).max(20);
    let mut out = String::new();
    let mut line_len = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line_len > 0 && line_len + 1 + len > room {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += len;
    }
    out
}

/// The report as text.
pub fn render(report: &Report<'_>, style: Style, width: usize) -> String {
    let mut out = String::new();
    let source = match (report.cmdline_source, report.cmdline_running) {
        (Some(source), true) => format!("{source} (the running kernel's)"),
        (Some(source), false) => {
            format!("{source} (not the running kernel's: not compared with it)")
        }
        (None, _) => "unreadable".to_owned(),
    };
    let _ = writeln!(
        out,
        "rtlat audit of {}; command line: {source}",
        report.root
    );
    let _ = writeln!(out);
    const LABEL: usize = 6;
    const FIELD: usize = 10;
    for finding in report.findings {
        let label = format!("{:<LABEL$}", finding.severity.name().to_uppercase());
        let _ = writeln!(
            out,
            "{}{}",
            style.severity(finding.severity, &label),
            style.bold(&finding.id)
        );
        let pad = " ".repeat(LABEL);
        let _ = writeln!(out, "{pad}{}", wrap(&finding.title, LABEL, width));
        for (i, evidence) in finding.evidence.iter().enumerate() {
            let field = if i == 0 { "evidence" } else { "" };
            let text = format!("{} = {}", evidence.source, evidence.value);
            let _ = writeln!(
                out,
                "{pad}{field:<FIELD$}{}",
                wrap(&text, LABEL + FIELD, width)
            );
        }
        if let Some(remedy) = &finding.remedy {
            let _ = writeln!(
                out,
                "{pad}{:<FIELD$}{}",
                "remedy",
                wrap(remedy, LABEL + FIELD, width)
            );
        }
        let _ = writeln!(out);
    }
    let summary = Summary::of(report.findings);
    let counts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .map(|s| style.severity(*s, &format!("{} {}", summary.count(*s), s.name())))
        .collect();
    let worst = summary.worst.map_or("none", Severity::name);
    let _ = writeln!(
        out,
        "{} findings: {}; worst: {worst} (exit status {})",
        report.findings.len(),
        counts.join(", "),
        summary.exit_status()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Finding;

    #[test]
    fn blocks_wrap_and_colour_only_when_asked() {
        let findings = [
            Finding::new(
                "kernel.preempt_rt",
                Severity::Fail,
                "The kernel is not PREEMPT_RT ".repeat(8),
            )
            .evidence("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC")
            .evidence("/sys/kernel/realtime", "absent")
            .remedy("install one"),
            Finding::new("mm.swap", Severity::Ok, "No swap is active"),
        ];
        let report = Report {
            root: "/",
            cmdline_source: Some("/proc/cmdline"),
            cmdline_running: true,
            findings: &findings,
        };
        let text = render(&report, Style::plain(), 80);
        assert!(!text.contains('\x1b'));
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert!(text.contains("FAIL  kernel.preempt_rt\n"), "{text}");
        assert!(
            text.contains("      evidence  /proc/sys/kernel/version = #1 SMP PREEMPT_DYNAMIC\n")
        );
        assert!(text.contains("                /sys/kernel/realtime = absent\n"));
        assert!(text.contains("      remedy    install one\n"));
        assert!(
            text.ends_with(
                "2 findings: 1 fail, 0 warn, 0 info, 1 ok; worst: fail (exit status 3)\n"
            ),
            "{text}"
        );
        let coloured = render(&report, Style { colour: true }, 80);
        assert!(coloured.contains("\x1b[1;31mFAIL  \x1b[0m"), "{coloured}");
    }

    #[test]
    fn wrapping_keeps_long_words_whole() {
        let long = "x".repeat(50);
        assert_eq!(
            wrap(&format!("a {long} b"), 10, 40),
            format!("a\n          {long}\n          b")
        );
        assert_eq!(wrap("", 4, 40), "");
    }
}
