//! `--smi` under the name cyclictest. rtlat reads no SMI counter; cyclictest 2.40 reads
//! MSR_SMI_COUNT from `/dev/cpu/N/msr` on every processor it guesses has one (GenuineIntel,
//! family 6, with the MSR feature: its check needs no model list since 2.x). The front ends
//! as cyclictest does wherever cyclictest cannot read it either:
//!
//! - a processor it guesses has no counter: `FATAL: SMI counter is not supported on this
//!   processor`, status 1, before anything is done (the option refusal);
//! - one it guesses has a counter, whose `/dev/cpu/N/msr` cannot be opened (no msr driver,
//!   no permission): after the run's set-up (the `/dev/cpu_dma_latency` line), its WARN line
//!   and `FATAL: Could not open MSR interface, errno: E`, status 1 ([`unreadable`]);
//! - one whose counter cyclictest would read: a FATAL line saying rtlat does not, status 1.

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

/// With `--smi` on a processor cyclictest reads a counter on: the lines cyclictest ends with
/// for the measuring thread on `cpu` (stderr, then status 1).
pub fn unreadable(cpu: usize) -> String {
    let path = format!("/dev/cpu/{cpu}/msr");
    match std::fs::File::open(&path) {
        Err(e) => format!(
            "WARN: {path} open failed, try chown or chmod +r /dev/cpu/*/msr, or run as root\nFATAL: Could not open MSR interface, errno: {}",
            e.raw_os_error().unwrap_or(0)
        ),
        Ok(_) => format!(
            "FATAL: --smi: rtlat reads no SMI counter ({path} could be read; cyclictest reads MSR_SMI_COUNT there): run without --smi"
        ),
    }
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
    }
}
