//! The audit's report: what it describes, and its text for people ([`table`]).

pub mod table;

use crate::finding::Finding;

/// What a report describes besides its findings.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    /// The root read (`/` on the live system).
    pub root: &'a str,
    /// Where the command line came from.
    pub cmdline_source: Option<&'a str>,
    /// Whether the command line is the running kernel's.
    pub cmdline_running: bool,
    /// The findings, in check order.
    pub findings: &'a [Finding],
}
