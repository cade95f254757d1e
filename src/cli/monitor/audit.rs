//! The audit's worst severity as a gauge: `rtlat-tools audit --json` run as a child (as
//! `rtlat run --profile` runs its checks), once at start and then once per window, on the
//! monitor's housekeeping thread, so that a machine whose tuning drifted (an IRQ moved back,
//! the governor changed) shows. Without rtlat-tools beside the binary, or when its report
//! cannot be read, the gauge says -1 and `rtlat_audit_up` 0, and the reason is logged once
//! per change; the monitor carries on.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use rtlat_formats::schema::audit::Report;

/// The audit's worst severity: 0 ok (or no finding), 1 info, 2 warn, 3 fail.
pub fn severity(name: Option<&str>) -> i64 {
    match name {
        None | Some("ok") => 0,
        Some("info") => 1,
        Some("warn") => 2,
        _ => 3,
    }
}

/// Runs the audit once: the worst severity, or why there is none.
pub fn run(tools: Option<&PathBuf>) -> Result<i64, String> {
    let tools = tools.ok_or_else(|| {
        "rtlat-tools is not beside rtlat-monitor: rtlat_audit_worst_severity stays -1 (install both; cargo build builds both)".to_string()
    })?;
    let output = Command::new(tools)
        .args(["audit", "--json"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {} audit: {e}", tools.display()))?;
    let report: Report = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "{} audit --json gave no report ({}): {e}",
            tools.display(),
            output.status
        )
    })?;
    Ok(severity(report.summary.worst.as_deref()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn severities() {
        assert_eq!(super::severity(None), 0);
        assert_eq!(super::severity(Some("warn")), 2);
        assert_eq!(super::severity(Some("fail")), 3);
        assert!(super::run(None).unwrap_err().contains("rtlat-tools"));
    }
}
