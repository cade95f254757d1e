//! The hwlat method: the kernel's hwlat tracer (rtlat-system's `noise::hwlat`) set up as
//! hwlatdetect sets it up, each change printed, the run waited out (a stop signal ends it
//! early), the samples read, every setting put back.

use std::path::Path;
use std::time::{Duration, Instant};

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::signals;
use rtlat_system::noise::hwlat::{HwlatSample, HwlatSettings, HwlatTrace};

use super::CpuNoise;
use super::options::Config;

/// Runs the tracer in `tracefs` on `cpus` (`None`: its mask as it is); the samples and how
/// long the run lasted.
pub fn run(
    config: &Config,
    tracefs: &Path,
    cpus: Option<&CpuSet>,
) -> Result<(Vec<HwlatSample>, Duration), String> {
    let settings = HwlatSettings {
        threshold_us: config.threshold_us,
        window_us: config.window_us,
        width_us: config.width_us,
        cpus: cpus.cloned(),
    };
    let trace = HwlatTrace::start(tracefs, &settings).map_err(|e| e.to_string())?;
    for change in trace.changes() {
        errln!("rtlat hwnoise: tracefs {change}");
    }
    let started = Instant::now();
    while !signals::stop_requested() {
        let left = config.duration.saturating_sub(started.elapsed());
        if left.is_zero() {
            break;
        }
        signals::sleep_or_signal(left.min(Duration::from_millis(100)));
    }
    let lasted = started.elapsed();
    let samples = trace.samples();
    // Put back before anything else can fail.
    let restored = trace.stop();
    let samples = samples.map_err(|e| e.to_string())?;
    restored.map_err(|e| e.to_string())?;
    Ok((samples, lasted))
}

/// Each CPU of `cpus`' figures from the tracer's samples (a sample on a CPU outside `cpus`
/// adds that CPU). The total is at least the sum of each sample's largest gap and its other
/// gaps at the threshold: the tracer keeps only the largest of a width.
pub fn per_cpu(samples: &[HwlatSample], cpus: &[usize], threshold_us: u64) -> Vec<CpuNoise> {
    let mut out: Vec<CpuNoise> = cpus
        .iter()
        .map(|&cpu| CpuNoise {
            cpu,
            exact: false,
            ..CpuNoise::default()
        })
        .collect();
    for sample in samples {
        let at = match out.iter().position(|c| c.cpu == sample.cpu) {
            Some(at) => at,
            None => {
                out.push(CpuNoise {
                    cpu: sample.cpu,
                    ..CpuNoise::default()
                });
                out.len() - 1
            }
        };
        let noise = &mut out[at];
        let latency_ns = sample.latency_us() * 1000;
        noise.samples += 1;
        noise.spikes += sample.count;
        noise.max_ns = noise.max_ns.max(Some(latency_ns));
        noise.total_ns += latency_ns + sample.count.saturating_sub(1) * threshold_us * 1000;
        noise.nmi_count += sample.nmi_count;
        noise.nmi_total_ns += sample.nmi_total_us * 1000;
    }
    out.sort_by_key(|c| c.cpu);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(cpu: usize, inner: u64, outer: u64, count: u64) -> HwlatSample {
        HwlatSample {
            cpu,
            seq: 0,
            inner_us: inner,
            outer_us: outer,
            ts_ns: 0,
            count,
            nmi_total_us: 0,
            nmi_count: 0,
        }
    }

    #[test]
    fn samples_add_up_per_cpu() {
        let samples = [
            sample(1, 113, 98, 7),
            sample(0, 12, 1046, 2),
            sample(1, 20, 3, 1),
        ];
        let cpus = per_cpu(&samples, &[0, 1, 2], 10);
        assert_eq!(cpus.len(), 3);
        assert_eq!((cpus[0].samples, cpus[0].spikes), (1, 2));
        assert_eq!(cpus[0].max_ns, Some(1_046_000));
        assert_eq!(cpus[0].total_ns, 1_046_000 + 10_000);
        assert_eq!((cpus[1].samples, cpus[1].spikes), (2, 8));
        assert_eq!(cpus[1].max_ns, Some(113_000));
        assert_eq!(cpus[1].total_ns, 113_000 + 6 * 10_000 + 20_000);
        assert_eq!((cpus[2].samples, cpus[2].max_ns), (0, None));
        // A sample on a CPU not asked for (the tracer's mask was wider) is kept.
        assert_eq!(per_cpu(&samples, &[1], 10).len(), 2);
    }
}
