//! `rtlat cpufreq` without `--governor`/`--freq`: each CPU's driver, governor, limits,
//! current and hardware frequencies; then the governors and frequencies on offer.

use std::process::ExitCode;

use rtlat_linux::cpuset::CpuSet;
use rtlat_system::facts::Facts;
use rtlat_system::tune::cpufreq::policies;
use rtlat_system::tune::format_khz;

/// Prints the table; returns the exit status (2 without cpufreq).
pub fn list(facts: &Facts, cpus: &CpuSet) -> ExitCode {
    if let Err(e) = policies(facts, cpus) {
        errln!("rtlat cpufreq: {e}");
        return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
    }
    outln!(
        "{:>4}  {:<14} {:<12} {:>9} {:>9} {:>9} {:>17}",
        "CPU",
        "DRIVER",
        "GOVERNOR",
        "MIN",
        "MAX",
        "NOW",
        "HARDWARE"
    );
    let mut offers: Vec<(String, CpuSet)> = Vec::new();
    for cpu in cpus {
        let policy = match facts.cpufreq(cpu).read() {
            Ok(policy) => policy,
            Err(e) => {
                errln!("rtlat cpufreq: CPU {cpu}: {e}");
                return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
            }
        };
        outln!(
            "{:>4}  {:<14} {:<12} {:>9} {:>9} {:>9} {:>17}",
            cpu,
            policy.driver,
            policy.governor,
            format_khz(policy.scaling_min_khz),
            format_khz(policy.scaling_max_khz),
            policy
                .scaling_cur_khz
                .map(format_khz)
                .unwrap_or_else(|| "-".into()),
            format!(
                "{}-{}",
                format_khz(policy.cpuinfo_min_khz),
                format_khz(policy.cpuinfo_max_khz)
            ),
        );
        let frequencies = match &policy.available_frequencies_khz {
            Some(list) if !list.is_empty() => list
                .iter()
                .map(|&f| format_khz(f))
                .collect::<Vec<_>>()
                .join(" "),
            _ => "any in the hardware range".into(),
        };
        let offer = format!(
            "governors {}; frequencies {frequencies}",
            policy.available_governors.join(" ")
        );
        match offers.iter_mut().find(|(o, _)| *o == offer) {
            // `cpu` comes from a CpuSet: in range.
            Some((_, set)) => {
                let _ = set.insert(cpu);
            }
            None => offers.push((offer, CpuSet::from_cpus([cpu]).unwrap_or_default())),
        }
    }
    for (offer, set) in offers {
        outln!("# CPUs {set}: {offer}");
    }
    ExitCode::SUCCESS
}
