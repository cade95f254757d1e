//! CPU lists (`rtlat_linux::cpuset::CpuSet::parse`, `parse_allowing_empty`, the kernel's
//! `parse_kernel_cpu_list`) and sysfs hex masks (`facts::cpumask::parse_cpu_mask`) on any
//! text: a set or a typed error, never a panic; a parsed set prints as a list that parses
//! back to the same set.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtlat_system::cmdline::parse_kernel_cpu_list;
use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::cpumask::parse_cpu_mask;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [
        CpuSet::parse(text),
        CpuSet::parse_allowing_empty(text),
        parse_kernel_cpu_list(text, None),
        parse_kernel_cpu_list(text, Some(3)),
    ] {
        match parsed {
            Ok(set) => {
                let printed = set.to_string();
                let back = CpuSet::parse_allowing_empty(&printed)
                    .unwrap_or_else(|e| panic!("{printed:?} does not parse back: {e}"));
                assert_eq!(back, set, "{printed:?}");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    match parse_cpu_mask(text) {
        Ok(set) => {
            let _ = set.to_string();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
