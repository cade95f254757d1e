//! `/proc/cpuinfo`: the CPU's feature flags (`hypervisor` on an x86 guest; `constant_tsc`,
//! `nonstop_tsc`, `tsc_adjust`, `tsc_reliable`, which decide whether the kernel watches the
//! TSC), the model name, and the number of packages (sockets).

use std::collections::BTreeSet;

use super::error::{FactError, Malformed};
use super::read;
use super::root::Facts;

/// What the audit reads of `/proc/cpuinfo`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuInfo {
    /// The feature flags of the first processor (`flags` on x86, `Features` on ARM).
    pub flags: BTreeSet<String>,
    /// The first processor's `model name`, if the file has one.
    pub model_name: Option<String>,
    /// How many distinct `physical id` values (packages) the processors name (`None` where
    /// the file has no `physical id`, as on ARM).
    pub packages: Option<usize>,
}

impl CpuInfo {
    /// Parses `/proc/cpuinfo`'s `key : value` lines.
    pub fn parse(text: &str) -> Result<CpuInfo, Malformed> {
        let mut info = CpuInfo::default();
        let mut flags_seen = false;
        let mut packages = BTreeSet::new();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let (key, value) = (key.trim(), value.trim());
            match key {
                "flags" | "Features" if !flags_seen => {
                    flags_seen = true;
                    info.flags = value.split_whitespace().map(str::to_owned).collect();
                }
                "model name" if info.model_name.is_none() => {
                    info.model_name = Some(value.to_owned());
                }
                "physical id" => {
                    let _ = packages.insert(value.to_owned());
                }
                _ => {}
            }
        }
        if !flags_seen && info.model_name.is_none() && !text.contains("processor") {
            return Err(Malformed::new(
                "lines `processor : N`, `flags : …`",
                text.lines().next().unwrap_or(""),
            ));
        }
        info.packages = (!packages.is_empty()).then_some(packages.len());
        Ok(info)
    }

    /// Whether the CPU has feature flag `flag`.
    pub fn has(&self, flag: &str) -> bool {
        self.flags.contains(flag)
    }
}

impl Facts {
    /// `/proc/cpuinfo`.
    pub fn cpuinfo(&self) -> Result<CpuInfo, FactError> {
        let path = self.path("proc/cpuinfo");
        let text = read::text(&path)?;
        CpuInfo::parse(&text).map_err(|e| FactError::malformed(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_model_and_packages() {
        let text = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz\nphysical id\t: 0\nflags\t\t: fpu tsc constant_tsc hypervisor\n\nprocessor\t: 1\nphysical id\t: 0\nflags\t\t: fpu\n";
        let info = CpuInfo::parse(text).unwrap();
        assert!(info.has("hypervisor") && info.has("constant_tsc") && !info.has("fpu2"));
        assert_eq!(info.flags.len(), 4, "the first processor's flags");
        assert_eq!(info.packages, Some(1));
        assert_eq!(
            info.model_name.as_deref(),
            Some("Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz")
        );
        let arm = CpuInfo::parse("processor\t: 0\nFeatures\t: fp asimd evtstrm\n").unwrap();
        assert!(arm.has("asimd") && arm.packages.is_none());
        assert!(CpuInfo::parse("").is_err() && CpuInfo::parse("garbage").is_err());
    }
}
