//! The audit of a few chosen findings on the live machine, for a command that checks what
//! matters to it before it starts: `rtlat run --profile` runs the checks its board profile
//! names ([`rtlat_arm64::BoardProfile::audit_checks`]) and reports them beside the run.

use rtlat::formats::schema::audit as schema;
use rtlat_system::facts::Facts;

use super::checks;
use super::context::Context;
use super::finding::{Finding, Severity};
use super::report;

/// Every finding of the live machine (`/`) whose id is in `ids`, in the order `rtlat audit`
/// reports them (every check runs; the rest are dropped). An id the machine gives no finding
/// (`irq.on_isolated` with no CPU isolated) is reported as such, `info`, so that the report
/// accounts for every check asked for.
pub fn live(ids: &[&'static str]) -> Vec<Finding> {
    let (ctx, mut findings) = Context::load(Facts::live(), None);
    findings.extend(checks::run(&ctx));
    findings.retain(|finding| ids.contains(&finding.id));
    for id in ids {
        if !findings.iter().any(|finding| finding.id == *id) {
            findings.push(Finding::new(
                id,
                Severity::Info,
                "nothing to judge on this machine (the check found no case to report)",
            ));
        }
    }
    findings
}

/// Whether `finding` asks for a change (`warn` or `fail`).
pub fn needs_attention(finding: &Finding) -> bool {
    finding.severity >= Severity::Warn
}

/// `finding` on one line for stderr:
/// `# audit warn cpufreq.governor: CPUs 0-1 run the ondemand governor: … (remedy: …)`.
pub fn line(finding: &Finding) -> String {
    let mut line = format!(
        "# audit {} {}: {}",
        finding.severity, finding.id, finding.title
    );
    if let Some(remedy) = &finding.remedy {
        line.push_str(&format!(" (remedy: {remedy})"));
    }
    // One line, whatever a title or remedy holds.
    line.replace(['\n', '\r'], " ")
}

/// `finding` as `rtlat audit --json` writes it (id, severity, title, evidence, remedy).
pub fn json(finding: &Finding) -> schema::Finding {
    report::json::finding(finding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_with_the_remedy() {
        let finding = Finding::new("mm.swap", Severity::Warn, "Swap is active\nhere")
            .evidence("/proc/swaps", "/dev/sda3")
            .remedy("swapoff -a");
        assert_eq!(
            line(&finding),
            "# audit warn mm.swap: Swap is active here (remedy: swapoff -a)"
        );
        assert!(needs_attention(&finding));
        let ok = Finding::new("mm.swap", Severity::Ok, "No swap");
        assert_eq!(line(&ok), "# audit ok mm.swap: No swap");
        assert!(!needs_attention(&ok));
        assert!(!needs_attention(&Finding::new("a.b", Severity::Info, "x")));
        assert!(needs_attention(&Finding::new("a.b", Severity::Fail, "x")));
        let value = serde_json::to_value(json(&finding)).unwrap();
        assert_eq!(value["id"], "mm.swap");
        assert_eq!(value["severity"], "warn");
        assert_eq!(value["evidence"][0]["source"], "/proc/swaps");
        assert_eq!(value["remedy"], "swapoff -a");
    }

    #[test]
    fn only_the_ids_asked_for() {
        let findings = live(&["kernel.clocksource", "cpus.online"]);
        // This VM isolates no CPU: the IRQ check has nothing to judge, and says so.
        let isolated = live(&["irq.on_isolated"]);
        assert_eq!(isolated.len(), 1, "{isolated:?}");
        assert_eq!(isolated[0].id, "irq.on_isolated");
        if isolated[0].severity == Severity::Info {
            assert!(isolated[0].title.starts_with("nothing to judge"));
        }
        assert!(
            findings.iter().any(|f| f.id == "kernel.clocksource"),
            "this machine has a clocksource: {findings:?}"
        );
        assert!(
            findings
                .iter()
                .all(|f| ["kernel.clocksource", "cpus.online"].contains(&f.id))
        );
        assert!(live(&[]).is_empty());
    }
}
