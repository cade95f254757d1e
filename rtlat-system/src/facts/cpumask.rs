//! Hexadecimal CPU masks, as in `/proc/irq/default_smp_affinity`,
//! `/proc/irq/N/smp_affinity` and `/sys/devices/virtual/workqueue/cpumask`: 32-bit groups
//! of hex digits separated by commas, most significant group first (`ff,ffffffff` is CPUs
//! 0–39).

use std::fmt::Write as _;

use super::error::Malformed;
use rtlat_linux::cpuset::{CpuSet, MAX_CPUS};

/// What a CPU mask looks like, for error messages.
const EXPECTED: &str = "a hex CPU mask: groups of up to 8 hex digits separated by commas, most significant first (e.g. 00000000,0000000f)";

/// Parses a hex CPU mask; surrounding whitespace is ignored. Each comma-separated group holds
/// 1 to 8 hex digits (32 CPUs). A set bit at or above [`MAX_CPUS`] is refused; leading zero
/// groups of any number are accepted.
pub fn parse_cpu_mask(text: &str) -> Result<CpuSet, Malformed> {
    let trimmed = text.trim();
    let bad = || Malformed::new(EXPECTED, trimmed);
    if trimmed.is_empty() {
        return Err(bad());
    }
    let groups: Vec<&str> = trimmed.split(',').collect();
    let mut set = CpuSet::new();
    for (i, group) in groups.iter().enumerate() {
        if group.is_empty() || group.len() > 8 || !group.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        let bits = u32::from_str_radix(group, 16).map_err(|_| bad())?;
        // Group 0 is the most significant: the last group holds CPUs 0–31.
        let base = (groups.len() - 1 - i).saturating_mul(32);
        for bit in 0..32 {
            if bits & (1 << bit) != 0 {
                let cpu = base.saturating_add(bit);
                if cpu >= MAX_CPUS || set.insert(cpu).is_err() {
                    return Err(bad());
                }
            }
        }
    }
    Ok(set)
}

/// The mask of `set` as the kernel writes one: 32-bit groups of 8 hex digits separated by
/// commas, the first group without leading zeros (`0` for the empty set). The kernel's
/// `bitmap_parse()` reads it back (e.g. written to `/proc/irq/N/smp_affinity`).
pub fn format_cpu_mask(set: &CpuSet) -> String {
    let groups = set.last().map_or(1, |last| last / 32 + 1);
    let mut words = vec![0u32; groups];
    for cpu in set {
        if let Some(word) = words.get_mut(cpu / 32) {
            *word |= 1 << (cpu % 32);
        }
    }
    let mut text = String::new();
    for (i, word) in words.iter().rev().enumerate() {
        if i == 0 {
            let _ = write!(text, "{word:x}");
        } else {
            let _ = write!(text, ",{word:08x}");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn mask(text: &str) -> String {
        parse_cpu_mask(text).unwrap().to_string()
    }

    #[test]
    fn parses_kernel_masks() {
        assert_eq!(mask("3\n"), "0-1");
        assert_eq!(mask("f"), "0-3");
        assert_eq!(mask("0"), "");
        assert_eq!(mask("00000000,00000008"), "3");
        assert_eq!(mask("1,00000000"), "32");
        assert_eq!(mask("ff,ffffffff"), "0-39");
        assert_eq!(mask("80000000,00000001"), "0,63");
        assert_eq!(mask("A"), "1,3");
        assert_eq!(mask(&format!("1{}", ",00000000".repeat(255))), "8160");
    }

    #[test]
    fn refuses_what_is_not_a_mask() {
        let too_high = format!("1{}", ",00000000".repeat(256));
        for bad in [
            "",
            " ",
            "g",
            "0x3",
            "1,,2",
            ",1",
            "1,",
            "123456789",
            "-1",
            "1 2",
            &too_high,
        ] {
            let err = parse_cpu_mask(bad).unwrap_err();
            assert!(err.to_string().contains("hex CPU mask"), "{bad:?}: {err}");
        }
        // Zero groups above the limit are fine: no CPU is named there.
        assert_eq!(mask(&format!("0{}", ",00000000".repeat(300))), "");
    }

    #[test]
    fn formats_like_the_kernel() {
        let set = |list: &str| CpuSet::parse_allowing_empty(list).unwrap();
        assert_eq!(format_cpu_mask(&set("")), "0");
        assert_eq!(format_cpu_mask(&set("0-1")), "3");
        assert_eq!(format_cpu_mask(&set("3")), "8");
        assert_eq!(format_cpu_mask(&set("0,32")), "1,00000001");
        assert_eq!(format_cpu_mask(&set("0-39")), "ff,ffffffff");
    }

    proptest! {
        #[test]
        fn never_panics(text in "[0-9a-fA-Fx, \n-]{0,40}") {
            let _ = parse_cpu_mask(&text);
        }

        #[test]
        fn format_parses_back(cpus in proptest::collection::btree_set(0..MAX_CPUS, 0..40)) {
            let set = CpuSet::from_cpus(cpus.iter().copied()).unwrap();
            prop_assert_eq!(parse_cpu_mask(&format_cpu_mask(&set)).unwrap(), set);
        }
    }
}
