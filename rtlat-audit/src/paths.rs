//! Files as the machine names them: the audit reads them under its root, and its evidence
//! names them as they are on the machine audited.

/// The system path of `relative` (for evidence: `/proc/cmdline`, not the root-joined path).
pub fn system_path(relative: &str) -> String {
    format!("/{}", relative.trim_start_matches('/'))
}
