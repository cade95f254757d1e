//! The audit's worst severity as a gauge, and `--profile-verify`'s items: `rtlat-tools audit
//! --json` and `rtlat-tools verify PROFILE --json` run as children (as
//! `rtlat run --profile` runs its checks), once at start and then once per window, on the
//! monitor's housekeeping thread, so that a machine whose tuning drifted (an IRQ moved back,
//! the governor changed) shows. Without rtlat-tools beside the binary, or when its report
//! cannot be read, the gauge says -1 and `rtlat_audit_up` 0, and the reason is logged once
//! per change; the monitor carries on.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rtlat_formats::schema::audit::Report;
use rtlat_formats::schema::verify::Report as VerifyReport;

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

/// Verifies `profile` once (`rtlat-tools verify PROFILE --json`): each item's id and
/// whether it drifted, or why there is no report.
pub fn verify(tools: Option<&PathBuf>, profile: &Path) -> Result<Vec<(String, bool)>, String> {
    let tools = tools.ok_or_else(|| {
        "rtlat-tools is not beside rtlat-monitor: rtlat_tuning_drifted_items stays -1 (install both; cargo build builds both)".to_string()
    })?;
    let output = Command::new(tools)
        .arg("verify")
        .arg(profile)
        .arg("--json")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {} verify: {e}", tools.display()))?;
    let report: VerifyReport = serde_json::from_slice(&output.stdout).map_err(|_| {
        let said = String::from_utf8_lossy(&output.stderr);
        format!(
            "{} verify {} gave no report ({}): {}",
            tools.display(),
            profile.display(),
            output.status,
            said.trim()
        )
    })?;
    Ok(report.items.into_iter().map(|i| (i.id, i.drift)).collect())
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
