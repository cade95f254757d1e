//! A tuning profile: one TOML file naming what the tuning protocol sets, for `rtlat tune
//! apply` to set and `rtlat verify` to check against the running machine.
//!
//! ```toml
//! version = 1                        # this format's version; another is refused
//!
//! [kernel]                           # the command line the machine must boot with
//! cmdline = ["isolcpus=managed_irq,domain,2-3", "nohz_full=2-3", "rcu_nocbs=2-3",
//!            "irqaffinity=0-1"]
//!
//! [irq]
//! away_from = "2-3"                  # no movable IRQ may run on these CPUs
//!
//! [cpufreq]
//! cpus = "2-3"
//! governor = "performance"
//! frequency_khz = 2000000            # optional: held fixed (scaling_min = scaling_max)
//!
//! [idle]
//! cpus = "2-3"
//! deepest_state = 0                  # states deeper than this off (-1: every state)
//!
//! [cpu_dma_latency]                  # held by the real-time application (or rtlat run)
//! max_us = 0                         # /dev/cpu_dma_latency's value must be at most this
//!
//! [[threads]]                        # e.g. a QEMU guest's vCPU threads
//! name = "^CPU [0-9]+/KVM$"          # a regular expression on the thread's name
//! policy = "fifo"                    # fifo, rr, other, batch, idle
//! priority = 98
//! cpus = "2-3"                       # optional: the CPUs it may run on
//! ```
//!
//! Every section is optional. A profile is bounded (64 KiB, 64 command-line parameters, 64
//! thread rules) and checked whole when read: an unknown key, a wrong type, a CPU list or
//! a priority out of range is refused in one line naming the key and what it accepts.

use serde::{Deserialize, Serialize};

use rtlat_linux::cpuset::CpuSet;

pub mod plan;
pub mod verify;

/// The format's version this build reads and writes.
pub const VERSION: u32 = 1;

/// The largest profile file read.
pub const MAX_BYTES: usize = 64 << 10;

/// The most command-line parameters and thread rules a profile holds.
pub const MAX_ITEMS: usize = 64;

/// A tuning profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The format's version ([`VERSION`]).
    pub version: u32,
    /// The kernel command line's part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<Kernel>,
    /// IRQs kept off CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq: Option<Irq>,
    /// A cpufreq governor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpufreq: Option<CpuFreq>,
    /// Idle states turned off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle: Option<Idle>,
    /// The `/dev/cpu_dma_latency` limit in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_dma_latency: Option<DmaLatency>,
    /// Threads' policy, priority and CPUs, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<ThreadRule>,
}

/// `[kernel]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kernel {
    /// Parameters the running kernel's command line must have, each `name` or `name=value`.
    pub cmdline: Vec<String>,
}

/// `[irq]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Irq {
    /// The CPUs no movable IRQ may run on (a CPU list: `2-3`).
    pub away_from: String,
}

/// `[cpufreq]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuFreq {
    /// The CPUs (a CPU list).
    pub cpus: String,
    /// Their governor (`performance`).
    pub governor: String,
    /// A frequency held fixed, kHz (`scaling_min_freq` = `scaling_max_freq`); left as it is
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_khz: Option<u64>,
}

/// `[cpu_dma_latency]`: the wake-up latency from idle the kernel's PM QoS must hold to. It
/// holds only while a process keeps `/dev/cpu_dma_latency` open with the value written (the
/// real-time application, or `rtlat run`, which holds 0 during a run): `rtlat tune` cannot
/// make it at boot, `rtlat verify` checks it is in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DmaLatency {
    /// The most the value in force may be, µs.
    pub max_us: u32,
}

/// `[idle]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Idle {
    /// The CPUs (a CPU list).
    pub cpus: String,
    /// The deepest idle state left on (states above it are off); -1: every state off.
    pub deepest_state: i32,
}

/// `[[threads]]`: what every thread whose name matches must have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadRule {
    /// A regular expression on the thread's name (`comm`).
    pub name: String,
    /// `fifo`, `rr`, `other`, `batch` or `idle`.
    pub policy: String,
    /// The real-time priority (1 to 99 for fifo and rr; 0 otherwise).
    #[serde(default)]
    pub priority: u8,
    /// The CPUs it may run on (a CPU list; left as it is when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
}

/// Why a profile cannot be used: one line, naming the file's key and what it accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProfileError(pub String);

/// The policies a thread rule accepts.
pub const POLICIES: [&str; 5] = ["fifo", "rr", "other", "batch", "idle"];

impl Profile {
    /// Reads a profile's text, checked whole.
    pub fn parse(text: &str) -> Result<Profile, ProfileError> {
        if text.len() > MAX_BYTES {
            return Err(ProfileError(format!(
                "the profile is {} bytes; at most {MAX_BYTES} are read",
                text.len()
            )));
        }
        let profile: Profile = toml::from_str(text).map_err(|e| {
            // toml's message spans lines (the line quoted, a caret): its first line and
            // the position are what matters.
            let first = e
                .message()
                .lines()
                .next()
                .unwrap_or("malformed TOML")
                .to_owned();
            let at = e
                .span()
                .map(|s| {
                    let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                    format!(" (line {line})")
                })
                .unwrap_or_default();
            ProfileError(format!("{first}{at}"))
        })?;
        profile.check()?;
        Ok(profile)
    }

    /// Reads the profile file at `path`: at most [`MAX_BYTES`], UTF-8, checked whole; the
    /// error names the file.
    pub fn read(path: &std::path::Path) -> Result<Profile, ProfileError> {
        use std::io::Read;
        let named = |why: String| ProfileError(format!("{}: {why}", path.display()));
        let file = std::fs::File::open(path).map_err(|e| named(e.to_string()))?;
        let mut bytes = Vec::new();
        file.take(MAX_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| named(e.to_string()))?;
        if bytes.len() > MAX_BYTES {
            return Err(named(format!(
                "larger than {MAX_BYTES} bytes; a profile is at most that"
            )));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| named("not UTF-8 text (a TOML profile)".into()))?;
        Profile::parse(&text).map_err(|e| named(e.0))
    }

    /// The profile as TOML (what `rtlat audit --suggest --profile-out` writes).
    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).unwrap_or_default();
        format!(
            "# rtlat tuning profile: rtlat tune apply FILE sets it, rtlat verify FILE checks it\n{body}"
        )
    }

    fn check(&self) -> Result<(), ProfileError> {
        let bad = |key: &str, why: String| Err(ProfileError(format!("{key}: {why}")));
        if self.version != VERSION {
            return bad(
                "version",
                format!(
                    "{} is not a version this rtlat reads (it reads {VERSION})",
                    self.version
                ),
            );
        }
        let cpu_list = |key: &str, text: &str| -> Result<CpuSet, ProfileError> {
            CpuSet::parse(text).map_err(|e| {
                ProfileError(format!("{key}: {e}; expected a CPU list such as \"2-3\""))
            })
        };
        if let Some(kernel) = &self.kernel {
            if kernel.cmdline.len() > MAX_ITEMS {
                return bad("kernel.cmdline", format!("at most {MAX_ITEMS} parameters"));
            }
            for p in &kernel.cmdline {
                if p.is_empty() || p.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return bad(
                        "kernel.cmdline",
                        format!("{p:?} is not one parameter (name or name=value, no spaces)"),
                    );
                }
            }
        }
        if let Some(irq) = &self.irq {
            cpu_list("irq.away_from", &irq.away_from)?;
        }
        if let Some(f) = &self.cpufreq {
            cpu_list("cpufreq.cpus", &f.cpus)?;
            let name_ok = !f.governor.is_empty()
                && f.governor.len() <= 15
                && f.governor
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !name_ok {
                return bad(
                    "cpufreq.governor",
                    format!(
                        "{:?} is not a governor name (letters, digits, _ or -, at most 15)",
                        f.governor
                    ),
                );
            }
        }
        if let Some(khz) = self.cpufreq.as_ref().and_then(|f| f.frequency_khz)
            && !(1..=100_000_000).contains(&khz)
        {
            return bad(
                "cpufreq.frequency_khz",
                format!("{khz} is out of range: 1 to 100000000 kHz"),
            );
        }
        if let Some(idle) = &self.idle {
            cpu_list("idle.cpus", &idle.cpus)?;
            if !(-1..=9).contains(&idle.deepest_state) {
                return bad(
                    "idle.deepest_state",
                    format!(
                        "{} is out of range: -1 (every state off) to 9",
                        idle.deepest_state
                    ),
                );
            }
        }
        if self.threads.len() > MAX_ITEMS {
            return bad("threads", format!("at most {MAX_ITEMS} rules"));
        }
        for (i, rule) in self.threads.iter().enumerate() {
            let key = |k: &str| format!("threads[{i}].{k}");
            if rule.name.is_empty() || rule.name.len() > 256 {
                return bad(
                    &key("name"),
                    "a regular expression of 1 to 256 characters".into(),
                );
            }
            if !POLICIES.contains(&rule.policy.as_str()) {
                return bad(
                    &key("policy"),
                    format!("{:?}: expected one of {}", rule.policy, POLICIES.join(", ")),
                );
            }
            let realtime = matches!(rule.policy.as_str(), "fifo" | "rr");
            if realtime && !(1..=99).contains(&rule.priority) {
                return bad(
                    &key("priority"),
                    format!("{}: fifo and rr take 1 to 99", rule.priority),
                );
            }
            if !realtime && rule.priority != 0 {
                return bad(
                    &key("priority"),
                    format!("{}: {} takes no priority (0)", rule.priority, rule.policy),
                );
            }
            if let Some(cpus) = &rule.cpus {
                cpu_list(&key("cpus"), cpus)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = r#"
version = 1
[kernel]
cmdline = ["isolcpus=managed_irq,domain,2-3", "nohz_full=2-3", "rcu_nocbs=2-3", "irqaffinity=0-1"]
[irq]
away_from = "2-3"
[cpufreq]
cpus = "2-3"
governor = "performance"
frequency_khz = 2000000
[idle]
cpus = "2-3"
deepest_state = 0
[cpu_dma_latency]
max_us = 0
[[threads]]
name = "^CPU [0-9]+/KVM$"
policy = "fifo"
priority = 98
cpus = "2-3"
"#;

    #[test]
    fn a_full_profile_reads_and_writes_back_the_same() {
        let p = Profile::parse(FULL).unwrap();
        assert_eq!(p.kernel.as_ref().unwrap().cmdline.len(), 4);
        assert_eq!(p.threads[0].priority, 98);
        let again = Profile::parse(&p.to_toml()).unwrap();
        assert_eq!(again, p);
        // Every section is optional.
        assert_eq!(Profile::parse("version = 1").unwrap().threads.len(), 0);
    }

    #[test]
    fn each_bad_profile_is_one_line_naming_the_key() {
        let cases = [
            ("version = 2", "version: 2 is not a version"),
            ("", "missing field `version`"),
            ("version = 1\nbogus = 3", "unknown field `bogus`"),
            ("version = 1\n[irq]\naway_from = \"2-x\"", "irq.away_from:"),
            (
                "version = 1\n[cpufreq]\ncpus = \"1\"\ngovernor = \"a b\"",
                "cpufreq.governor:",
            ),
            (
                "version = 1\n[idle]\ncpus = \"1\"\ndeepest_state = 12",
                "idle.deepest_state:",
            ),
            (
                "version = 1\n[[threads]]\nname = \"x\"\npolicy = \"fifo\"\npriority = 0",
                "threads[0].priority: 0: fifo and rr take 1 to 99",
            ),
            (
                "version = 1\n[[threads]]\nname = \"x\"\npolicy = \"deadline\"",
                "threads[0].policy:",
            ),
            (
                "version = 1\n[kernel]\ncmdline = [\"a b\"]",
                "kernel.cmdline:",
            ),
            ("version = \"one\"", "invalid type"),
            ("version = 1\n[kernel", "(line 2)"),
        ];
        for (text, want) in cases {
            let e = Profile::parse(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
            assert_eq!(e.lines().count(), 1, "{text:?}: {e}");
        }
        let huge = format!("version = 1\n#{}", "x".repeat(MAX_BYTES));
        assert!(
            Profile::parse(&huge)
                .unwrap_err()
                .to_string()
                .contains("at most")
        );
    }
}
