//! The kernel command-line parser (`rtlat_system::cmdline::KernelCmdline::parse`, which never
//! fails) on any text, and the parameter parsers behind it on every value it yields:
//! `isolcpus=` (`Isolcpus::parse`) and the kernel's CPU lists (`parse_kernel_cpu_list`, for
//! `nohz_full=`, `rcu_nocbs=`, `irqaffinity=` …). No panic; printing the result works.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtlat_system::cmdline::{Isolcpus, KernelCmdline, parse_kernel_cpu_list};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let line = KernelCmdline::parse(text);
    let _ = line.to_string();
    let _ = line.repeated_names();
    for w in line.warnings() {
        let _ = w.to_string();
    }
    for param in line.params().iter().chain(line.init_args()) {
        let _ = (param.name(), param.normalized_name(), param.raw());
        if let Some(value) = param.value() {
            for last_cpu in [None, Some(0), Some(7), Some(8191)] {
                if let Ok(isolcpus) = Isolcpus::parse(value, last_cpu) {
                    let _ = isolcpus.to_string();
                    let _ = isolcpus.effective_flags();
                }
                if let Ok(set) = parse_kernel_cpu_list(value, last_cpu) {
                    let _ = set.to_string();
                }
            }
        }
    }
});
