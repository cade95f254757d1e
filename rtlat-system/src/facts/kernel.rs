//! The kernel: its command line, release, version string, and whether it is PREEMPT_RT.

use super::error::{FactError, FactResultExt};
use super::read;
use super::root::Facts;
use crate::cmdline::KernelCmdline;

/// The preemption model a kernel's version string (`uname -v`, `/proc/sys/kernel/version`)
/// names, e.g. `#1 SMP PREEMPT_RT Debian 6.1.76-1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PreemptModel {
    /// `PREEMPT_RT` (or `PREEMPT RT`, as older RT patches wrote it): fully preemptible.
    Rt,
    /// `PREEMPT_DYNAMIC`: the model is chosen at boot (`preempt=`), not fixed at build.
    Dynamic,
    /// `PREEMPT_LAZY`.
    Lazy,
    /// `PREEMPT`: low-latency desktop preemption.
    Preempt,
    /// No preemption flag: `PREEMPT_NONE` or `PREEMPT_VOLUNTARY` (the string does not say
    /// which).
    NotShown,
}

impl PreemptModel {
    /// The model a version string names; the strongest flag wins.
    pub fn from_version(version: &str) -> PreemptModel {
        let words: Vec<&str> = version.split_whitespace().collect();
        let has = |word: &str| words.contains(&word);
        let old_rt = words.windows(2).any(|pair| pair == ["PREEMPT", "RT"]);
        if has("PREEMPT_RT") || old_rt {
            PreemptModel::Rt
        } else if has("PREEMPT_DYNAMIC") {
            PreemptModel::Dynamic
        } else if has("PREEMPT_LAZY") {
            PreemptModel::Lazy
        } else if has("PREEMPT") {
            PreemptModel::Preempt
        } else {
            PreemptModel::NotShown
        }
    }
}

/// The evidence for (or against) a PREEMPT_RT kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreemptRt {
    /// `/sys/kernel/realtime` (`1` on PREEMPT_RT), `None` where the file does not exist (every
    /// kernel without PREEMPT_RT, and RT kernels before the file existed).
    pub realtime_file: Option<bool>,
    /// `/proc/sys/kernel/version`, e.g. `#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)`.
    pub version: String,
    /// The model `version` names.
    pub model: PreemptModel,
}

impl PreemptRt {
    /// Whether the kernel is PREEMPT_RT: `/sys/kernel/realtime` says `1`, or the version
    /// string says `PREEMPT_RT`.
    pub fn is_rt(&self) -> bool {
        self.realtime_file == Some(true) || self.model == PreemptModel::Rt
    }
}

impl Facts {
    /// `/proc/cmdline`, parsed.
    pub fn cmdline(&self) -> Result<KernelCmdline, FactError> {
        Ok(KernelCmdline::parse(&read::text(
            &self.path("proc/cmdline"),
        )?))
    }

    /// `/proc/sys/kernel/osrelease` (`uname -r`), e.g. `6.1.0-18-rt-amd64`.
    pub fn os_release(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("proc/sys/kernel/osrelease"))
    }

    /// `/proc/sys/kernel/version` (`uname -v`), e.g. `#1 SMP PREEMPT_DYNAMIC …`.
    pub fn kernel_version(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("proc/sys/kernel/version"))
    }

    /// `/proc/version`: release, compiler and version in one line.
    pub fn proc_version(&self) -> Result<String, FactError> {
        read::trimmed(&self.path("proc/version"))
    }

    /// `/sys/kernel/realtime`: `true` for `1` (PREEMPT_RT). Absent on other kernels.
    pub fn realtime(&self) -> Result<bool, FactError> {
        read::switch(&self.path("sys/kernel/realtime"))
    }

    /// Whether the kernel is PREEMPT_RT, with the evidence: `/sys/kernel/realtime` (optional)
    /// and the version string (required).
    pub fn preempt_rt(&self) -> Result<PreemptRt, FactError> {
        let realtime_file = self.realtime().optional()?;
        let version = self.kernel_version()?;
        Ok(PreemptRt {
            realtime_file,
            model: PreemptModel::from_version(&version),
            version,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_strings_name_the_model() {
        let cases = [
            (
                "#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)",
                PreemptModel::Rt,
            ),
            (
                "#1 SMP PREEMPT RT Tue Jan 1 00:00:00 UTC 2019",
                PreemptModel::Rt,
            ),
            ("#1 SMP PREEMPT_DYNAMIC @0", PreemptModel::Dynamic),
            ("#1 SMP PREEMPT_LAZY Thu", PreemptModel::Lazy),
            ("#57-Ubuntu SMP PREEMPT Fri", PreemptModel::Preempt),
            ("#1 SMP Debian 5.10.209-2", PreemptModel::NotShown),
            ("#1 SMP PREEMPT_RTX", PreemptModel::NotShown),
            ("", PreemptModel::NotShown),
        ];
        for (version, model) in cases {
            assert_eq!(PreemptModel::from_version(version), model, "{version}");
        }
    }

    #[test]
    fn rt_from_either_source() {
        let rt = |file, model| {
            PreemptRt {
                realtime_file: file,
                version: String::new(),
                model,
            }
            .is_rt()
        };
        assert!(rt(Some(true), PreemptModel::NotShown));
        assert!(rt(None, PreemptModel::Rt));
        assert!(!rt(Some(false), PreemptModel::Dynamic));
        assert!(!rt(None, PreemptModel::Preempt));
    }
}
