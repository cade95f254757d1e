//! `rtlat audit --json`: the report and the suggestion as the schema's JSON types. The report:
//!
//! ```json
//! {
//!   "root": "/",
//!   "cmdline": { "source": "/proc/cmdline", "running": true },
//!   "findings": [
//!     { "id": "kernel.preempt_rt", "severity": "fail", "title": "…",
//!       "evidence": [ { "source": "/proc/sys/kernel/version", "value": "…" } ],
//!       "remedy": "…" }
//!   ],
//!   "summary": { "ok": 9, "info": 12, "warn": 6, "fail": 1, "worst": "fail", "exit_status": 3 }
//! }
//! ```
//!
//! `cmdline.source` is `null` when no command line could be read; `remedy` is `null` when
//! there is nothing to do; `worst` is `null` without findings.

use rtlat_audit::suggest::Suggestion;
use rtlat_audit::{Finding, Report, Severity, Summary};
use rtlat_formats::schema::audit as schema;

/// One finding as JSON: `{ "id", "severity", "title", "evidence": [{ "source", "value" }], "remedy" }`.
pub fn finding(finding: &Finding) -> schema::Finding {
    schema::Finding {
        id: finding.id.to_string(),
        severity: finding.severity.name().to_string(),
        title: finding.title.clone(),
        evidence: finding
            .evidence
            .iter()
            .map(|e| schema::Evidence {
                source: e.source.clone(),
                value: e.value.clone(),
            })
            .collect(),
        remedy: finding.remedy.clone(),
    }
}

/// The report as a JSON document.
pub fn value(report: &Report<'_>) -> schema::Report {
    let summary = Summary::of(report.findings);
    schema::Report {
        root: report.root.to_string(),
        cmdline: schema::Cmdline {
            source: report.cmdline_source.map(str::to_string),
            running: report.cmdline_running,
        },
        findings: report.findings.iter().map(finding).collect(),
        summary: schema::Summary {
            ok: summary.count(Severity::Ok),
            info: summary.count(Severity::Info),
            warn: summary.count(Severity::Warn),
            fail: summary.count(Severity::Fail),
            worst: summary.worst.map(|s| s.name().to_string()),
            exit_status: summary.exit_status(),
        },
    }
}

/// The report as pretty-printed JSON text, with a final newline.
pub fn render(report: &Report<'_>) -> String {
    let mut text = serde_json::to_string_pretty(&value(report)).unwrap_or_else(|_| "null".into());
    text.push('\n');
    text
}

/// The suggestion for machines.
pub fn suggestion(suggestion: &Suggestion) -> schema::Suggestion {
    schema::Suggestion {
        isolate: suggestion.isolate.to_string(),
        housekeeping: suggestion.housekeeping.to_string(),
        source: suggestion.source.clone(),
        cmdline: suggestion.line.to_string(),
        grub_cmdline_linux_default: suggestion.grub_value.clone(),
        grub_line: suggestion.grub_line(),
        changes: suggestion
            .changes
            .iter()
            .map(|c| schema::Change {
                action: c.action.to_string(),
                param: c.param.clone(),
                reason: c.reason.clone(),
            })
            .collect(),
        notes: suggestion.notes.clone(),
        apply: suggestion.apply(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn shape() {
        let findings = [Finding::new("mm.swap", Severity::Warn, "Swap is active")
            .evidence("/proc/swaps", "/dev/sda3")
            .remedy("swapoff -a")];
        let report = Report {
            root: "/r",
            cmdline_source: None,
            cmdline_running: false,
            findings: &findings,
        };
        let value: Value = serde_json::from_str(&render(&report)).unwrap();
        assert_eq!(value["root"], "/r");
        assert_eq!(value["cmdline"]["source"], Value::Null);
        assert_eq!(value["findings"][0]["id"], "mm.swap");
        assert_eq!(value["findings"][0]["evidence"][0]["value"], "/dev/sda3");
        assert_eq!(value["summary"]["warn"], 1);
        assert_eq!(value["summary"]["worst"], "warn");
        assert_eq!(value["summary"]["exit_status"], 1);
        let keys: Vec<&String> = value["summary"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["ok", "info", "warn", "fail", "worst", "exit_status"]);
    }
}
