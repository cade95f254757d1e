//! `rtlat verify PROFILE --json`: the profile against the running machine, item by item.

use serde::{Deserialize, Serialize};

/// The document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The profile file checked.
    pub profile: String,
    /// How many items differ from the profile.
    pub drifted: usize,
    /// Every item checked, in the profile's order.
    pub items: Vec<Item>,
    /// What was noted but is not drift.
    pub notes: Vec<String>,
}

/// One thing the profile sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Stable id: `cmdline.NAME`, `irq.N`, `irq.default`, `irq.all`, `cpufreq.cpuN`,
    /// `idle.cpuN`, `thread.RULE.TID`.
    pub id: String,
    /// What the profile wants.
    pub want: String,
    /// What the machine has.
    pub have: String,
    /// Whether they differ.
    pub drift: bool,
}
