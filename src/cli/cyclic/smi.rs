//! `--smi`: each measuring thread reads its CPU's SMI counter (`MSR_SMI_COUNT`, through the
//! msr driver's `/dev/cpu/N/msr`: rtlat-linux's `msr`) before its first cycle and after every
//! wake-up, as cyclictest 2.40 does, and the run prints the count on each `T:` line
//! (` SMI:%8ld`), each `-v` line and the histogram's `# SMIs:` line.
//!
//! Where cyclictest cannot count either, the front ends as it does under its name:
//!
//! - a processor it guesses has no counter (not GenuineIntel family 6 with the MSR
//!   feature): `FATAL: SMI counter is not supported on this processor`, status 1, before
//!   anything is done (the option refusal); under rtlat's name, one line naming why;
//! - one it guesses has a counter, whose `/dev/cpu/N/msr` cannot be opened (no msr driver,
//!   no permission): after the run's set-up (the `/dev/cpu_dma_latency` line), its WARN line
//!   and `FATAL: Could not open MSR interface, errno: E`, status 1 ([`unreadable`]).

use std::path::Path;

use rtlat_linux::msr::{SmiCounter, SmiError};

/// Whether cyclictest 2.40 takes this processor to have an SMI counter, from the first
/// processor of `/proc/cpuinfo` (what CPUID says: vendor, family, the `msr` flag).
pub fn cyclictest_sees_a_counter() -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|text| sees_a_counter(&text))
}

fn sees_a_counter(cpuinfo: &str) -> bool {
    let first = cpuinfo.split("\n\n").next().unwrap_or("");
    let field = |name: &str| {
        first.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim())
        })
    };
    field("vendor_id") == Some("GenuineIntel")
        && field("cpu family") == Some("6")
        && field("flags").is_some_and(|flags| flags.split_whitespace().any(|f| f == "msr"))
}

/// The counters of the threads' CPUs, in thread order, opened before the run. An error is
/// the lines to print: cyclictest's two (its status 1) under its name, else rtlat's one.
pub fn open(cpus: &[usize], as_cyclictest: bool) -> Result<Vec<SmiCounter>, String> {
    cpus.iter()
        .map(|&cpu| {
            SmiCounter::open(Path::new("/"), cpu).map_err(|e| match e {
                SmiError::Unreadable { .. } if as_cyclictest => unreadable(cpu),
                e => format!("--smi: {e}"),
            })
        })
        .collect()
}

/// The lines cyclictest ends with when the measuring thread on `cpu` cannot open its
/// `/dev/cpu/N/msr` (stderr, then status 1).
pub fn unreadable(cpu: usize) -> String {
    let path = format!("/dev/cpu/{cpu}/msr");
    let errno = std::fs::File::open(&path)
        .err()
        .and_then(|e| e.raw_os_error())
        .unwrap_or(0);
    format!(
        "WARN: {path} open failed, try chown or chmod +r /dev/cpu/*/msr, or run as root\nFATAL: Could not open MSR interface, errno: {errno}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTEL: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 167\nflags\t\t: fpu vme de pse tsc msr pae mce\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\n";

    #[test]
    fn intel_family_6_with_msr_is_taken_to_have_a_counter() {
        assert!(sees_a_counter(INTEL));
        assert!(!sees_a_counter(&INTEL.replace(" msr ", " ")));
        assert!(!sees_a_counter(
            &INTEL.replace("cpu family\t: 6", "cpu family\t: 15")
        ));
        assert!(!sees_a_counter(
            &INTEL.replace("GenuineIntel", "AuthenticAMD")
        ));
        assert!(!sees_a_counter(""));
    }

    #[test]
    fn an_unopenable_msr_file_ends_as_cyclictest_does() {
        // No machine has a CPU numbered this high, so the file cannot be opened.
        let lines = unreadable(1 << 20);
        assert_eq!(lines.lines().count(), 2, "{lines}");
        assert!(lines.starts_with("WARN: /dev/cpu/1048576/msr open failed"));
        assert!(lines.ends_with("FATAL: Could not open MSR interface, errno: 2"));
        assert_eq!(open(&[1 << 20], true).unwrap_err(), lines);
        let ours = open(&[1 << 20], false).unwrap_err();
        assert!(
            ours.starts_with("--smi: cannot read /dev/cpu/1048576/msr"),
            "{ours}"
        );
        assert!(ours.contains("modprobe msr"), "{ours}");
        assert_eq!(ours.lines().count(), 1);
    }
}
