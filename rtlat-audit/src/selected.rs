//! `rtlat audit --only IDS`: the findings a command asked for by id. `rtlat run --profile`
//! asks for the checks its board profile names (`rtlat_arm64::BoardProfile::audit_checks`)
//! this way, as `rtlat-tools audit --only IDS --json`, and reports them beside the run.

use crate::finding::{Finding, Severity};

/// The title of the finding that stands for an id no check reported.
pub const NOTHING_TO_JUDGE: &str =
    "nothing to judge on this machine (the check found no case to report)";

/// The findings whose id is in `ids`, in the order `rtlat audit` reports them (every check
/// ran; the rest are dropped). An id the machine gave no finding for (`irq.on_isolated` with
/// no CPU isolated) is reported as such, `info`, so that the report accounts for every id
/// asked for.
pub fn only(mut findings: Vec<Finding>, ids: &[String]) -> Vec<Finding> {
    findings.retain(|finding| ids.iter().any(|id| *id == finding.id));
    for id in ids {
        if !findings.iter().any(|finding| finding.id == id.as_str()) {
            findings.push(Finding::new(id.clone(), Severity::Info, NOTHING_TO_JUDGE));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|id| id.to_string()).collect()
    }

    #[test]
    fn only_the_ids_asked_for_each_accounted_for() {
        let findings = vec![
            Finding::new("kernel.clocksource", Severity::Ok, "tsc"),
            Finding::new("mm.swap", Severity::Warn, "swap on"),
            Finding::new("cpus.online", Severity::Info, "2 CPUs"),
        ];
        let kept = only(
            findings.clone(),
            &ids(&["cpus.online", "irq.on_isolated", "kernel.clocksource"]),
        );
        let got: Vec<(&str, Severity)> = kept.iter().map(|f| (&*f.id, f.severity)).collect();
        assert_eq!(
            got,
            [
                ("kernel.clocksource", Severity::Ok),
                ("cpus.online", Severity::Info),
                ("irq.on_isolated", Severity::Info),
            ]
        );
        assert_eq!(kept[2].title, NOTHING_TO_JUDGE);
        assert!(only(findings, &[]).is_empty());
    }
}
