//! Whether the kernel's clocksource watchdog checks the TSC: the rules of
//! `arch/x86/kernel/tsc.c`, applied to what `/proc/cpuinfo` and the kernel release show.
//!
//! The watchdog is a timer-wheel timer (`clocksource_watchdog`, every 0.5 s, moving from CPU
//! to CPU), not an hrtimer, so `/proc/timer_list` never lists it: whether it runs has to be
//! worked out from the same facts the kernel decided it from. It runs only while some
//! registered clocksource must be verified, which on x86 means the TSC; the kernel exempts
//! the TSC when
//! - the command line says `tsc=reliable` or `tsc=nowatchdog`;
//! - the CPU flag `tsc_reliable` is set (a hypervisor or platform vouches for the TSC);
//! - since Linux 5.16, the TSC is constant (`constant_tsc`), does not stop in idle
//!   (`nonstop_tsc`) and has the `TSC_ADJUST` register (`tsc_adjust`), on at most two
//!   packages (four since Linux 6.6).

use rtlat_system::facts::CpuInfo;

/// What the audit can tell about the TSC's watchdog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TscWatchdog {
    /// The kernel exempts the TSC; why, in words.
    Exempt(String),
    /// The kernel watches the TSC; why, in words.
    Watched(String),
    /// Not enough facts (no `/proc/cpuinfo`, an unknown kernel release).
    Unknown,
}

/// `6.18` from `6.18.44-fc-v1045`.
fn major_minor(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(['.', '-']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The TSC's watchdog on a kernel `release` with `cpuinfo` (the command line's `tsc=` is
/// checked by the caller).
pub fn tsc_watchdog(cpuinfo: Option<&CpuInfo>, release: Option<&str>) -> TscWatchdog {
    let Some(info) = cpuinfo else {
        return TscWatchdog::Unknown;
    };
    if info.has("tsc_reliable") {
        return TscWatchdog::Exempt(
            "the CPU flag tsc_reliable says the TSC needs no checking".to_owned(),
        );
    }
    let missing: Vec<&str> = ["constant_tsc", "nonstop_tsc", "tsc_adjust"]
        .into_iter()
        .filter(|f| !info.has(f))
        .collect();
    if !missing.is_empty() {
        return TscWatchdog::Watched(format!(
            "the CPU lacks {} (the kernel exempts only a constant, nonstop TSC with TSC_ADJUST)",
            missing.join(" and ")
        ));
    }
    let packages = info.packages.unwrap_or(1);
    let Some(version) = release.and_then(major_minor) else {
        return TscWatchdog::Unknown;
    };
    let limit = if version >= (6, 6) {
        4
    } else if version >= (5, 16) {
        2
    } else {
        return TscWatchdog::Watched(format!(
            "Linux {}.{} predates the exemption of a constant, nonstop TSC with TSC_ADJUST (5.16)",
            version.0, version.1
        ));
    };
    let plural = if packages == 1 { "" } else { "s" };
    if packages <= limit {
        TscWatchdog::Exempt(format!(
            "constant_tsc, nonstop_tsc and tsc_adjust on {packages} package{plural}: Linux {}.{} exempts such a TSC",
            version.0, version.1
        ))
    } else {
        TscWatchdog::Watched(format!(
            "{packages} packages: Linux {}.{} exempts a constant, nonstop TSC with TSC_ADJUST only on up to {limit}",
            version.0, version.1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(flags: &str, packages: Option<usize>) -> CpuInfo {
        CpuInfo {
            flags: flags.split_whitespace().map(str::to_owned).collect(),
            model_name: None,
            packages,
        }
    }

    #[test]
    fn the_kernels_rules() {
        let modern = info("tsc constant_tsc nonstop_tsc tsc_adjust", Some(1));
        assert!(matches!(
            tsc_watchdog(Some(&modern), Some("6.18.44-fc-v1045")),
            TscWatchdog::Exempt(_)
        ));
        assert!(matches!(
            tsc_watchdog(Some(&modern), Some("5.15.0-91-generic")),
            TscWatchdog::Watched(_)
        ));
        let four = info("tsc constant_tsc nonstop_tsc tsc_adjust", Some(4));
        assert!(matches!(
            tsc_watchdog(Some(&four), Some("6.1.0-18-amd64")),
            TscWatchdog::Watched(_)
        ));
        assert!(matches!(
            tsc_watchdog(Some(&four), Some("6.8.0-45-generic")),
            TscWatchdog::Exempt(_)
        ));
        let core2 = info("tsc constant_tsc", Some(1));
        match tsc_watchdog(Some(&core2), Some("6.1.0-18-rt-amd64")) {
            TscWatchdog::Watched(why) => {
                assert!(why.contains("nonstop_tsc and tsc_adjust"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        let vouched = info("tsc tsc_reliable", None);
        assert!(matches!(
            tsc_watchdog(Some(&vouched), None),
            TscWatchdog::Exempt(_)
        ));
        assert_eq!(tsc_watchdog(None, Some("6.8.0")), TscWatchdog::Unknown);
        assert_eq!(
            tsc_watchdog(Some(&modern), Some("garbage")),
            TscWatchdog::Unknown
        );
    }
}
