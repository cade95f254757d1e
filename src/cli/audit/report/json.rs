//! The report for machines:
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

use serde_json::{Map, Value, json};

use super::Report;
use crate::cli::audit::finding::{Finding, Severity, Summary};

/// One finding as JSON: `{ "id", "severity", "title", "evidence": [{ "source", "value" }], "remedy" }`.
pub fn finding(finding: &Finding) -> Value {
    let evidence: Vec<Value> = finding
        .evidence
        .iter()
        .map(|e| json!({ "source": e.source, "value": e.value }))
        .collect();
    json!({
        "id": finding.id,
        "severity": finding.severity.name(),
        "title": finding.title,
        "evidence": evidence,
        "remedy": finding.remedy,
    })
}

/// The report as a JSON value.
pub fn value(report: &Report<'_>) -> Value {
    let summary = Summary::of(report.findings);
    let mut counts = Map::new();
    for severity in Severity::ALL {
        counts.insert(severity.name().to_owned(), json!(summary.count(severity)));
    }
    counts.insert("worst".to_owned(), json!(summary.worst.map(Severity::name)));
    counts.insert("exit_status".to_owned(), json!(summary.exit_status()));
    json!({
        "root": report.root,
        "cmdline": { "source": report.cmdline_source, "running": report.cmdline_running },
        "findings": report.findings.iter().map(finding).collect::<Vec<_>>(),
        "summary": counts,
    })
}

/// The report as pretty-printed JSON text, with a final newline.
pub fn render(report: &Report<'_>) -> String {
    let mut text = serde_json::to_string_pretty(&value(report)).unwrap_or_else(|_| "null".into());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

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
