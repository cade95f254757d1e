//! How the machine was tuned when a result was measured: the run object's `provenance`
//! (`rtlat run --json`), written from [`Provenance`] and read back as settings named
//! `provenance.KEY` (nested maps as `provenance.KEY.NAME`), so that `rtlat compare` can say
//! what changed between two runs beside the latency change.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::objects;

/// The machine's state as a run found it, before its first cycle. A value that could not be
/// read is left out (empty, or absent from its map), never guessed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    /// The host name.
    pub hostname: String,
    /// The kernel release (`uname -r`).
    pub kernel_release: String,
    /// The kernel's version string (`uname -v`: `#1 SMP PREEMPT_RT …`).
    pub kernel_version: String,
    /// The kernel command line (`/proc/cmdline`).
    pub kernel_cmdline: String,
    /// Where the kernel configuration was read (`/boot/config-…`, `/proc/config.gz`; empty:
    /// it could not be).
    pub kernel_config_source: String,
    /// The options of the configuration that decide real-time behaviour, as it has them
    /// (`y`, `n`, `250`; absent when it does not mention one).
    pub kernel_config: BTreeMap<String, String>,
    /// The CPUs the kernel isolates (`/sys/devices/system/cpu/isolated`; empty: none).
    pub isolated_cpus: String,
    /// The CPUs without the tick (`/sys/devices/system/cpu/nohz_full`; empty: none).
    pub nohz_full_cpus: String,
    /// Each measured CPU's cpufreq governor (`cpuN` → governor; absent without cpufreq).
    pub governors: BTreeMap<String, String>,
    /// Each measured CPU's idle states turned off (`cpuN` → their names; absent without
    /// cpuidle, `none` when every state is allowed).
    pub idle_states_off: BTreeMap<String, String>,
    /// The IRQs that may run on a measured CPU (their number → their affinity list), the
    /// CPU's own per-CPU interrupts aside.
    pub irqs_on_measured_cpus: BTreeMap<u32, String>,
    /// What ran beside the measurement (`--load`; empty: not said).
    pub load: String,
}

objects!(Provenance);

impl Provenance {
    /// The settings a reader lists: `(KEY, value)`, maps as `(KEY.NAME, value)`, empty
    /// values left out, in the struct's order.
    pub fn settings(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut one = |key: &str, value: &str| {
            if !value.is_empty() {
                out.push((key.to_owned(), value.to_owned()));
            }
        };
        one("hostname", &self.hostname);
        one("kernel_release", &self.kernel_release);
        one("kernel_version", &self.kernel_version);
        one("kernel_cmdline", &self.kernel_cmdline);
        one("kernel_config_source", &self.kernel_config_source);
        for (name, value) in &self.kernel_config {
            one(&format!("kernel_config.{name}"), value);
        }
        one("isolated_cpus", &self.isolated_cpus);
        one("nohz_full_cpus", &self.nohz_full_cpus);
        for (cpu, governor) in &self.governors {
            one(&format!("governors.{cpu}"), governor);
        }
        for (cpu, states) in &self.idle_states_off {
            one(&format!("idle_states_off.{cpu}"), states);
        }
        let irqs: Vec<String> = self
            .irqs_on_measured_cpus
            .keys()
            .map(u32::to_string)
            .collect();
        one("irqs_on_measured_cpus", &irqs.join(" "));
        one("load", &self.load);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_flatten_the_maps_and_leave_out_what_was_not_read() {
        let p = Provenance {
            hostname: "cnc-1".into(),
            kernel_cmdline: "quiet isolcpus=1".into(),
            kernel_config: [("PREEMPT_RT".to_owned(), "y".to_owned())].into(),
            governors: [("cpu1".to_owned(), "performance".to_owned())].into(),
            irqs_on_measured_cpus: [(24, "0-3".to_owned()), (9, "1".to_owned())].into(),
            ..Provenance::default()
        };
        let settings = p.settings();
        let keys: Vec<&str> = settings.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "hostname",
                "kernel_cmdline",
                "kernel_config.PREEMPT_RT",
                "governors.cpu1",
                "irqs_on_measured_cpus"
            ]
        );
        assert_eq!(settings[4].1, "9 24");
        let back: Provenance = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back, p);
    }
}
