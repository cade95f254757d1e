//! Hardware and firmware noise from the kernel's hwlat tracer (`rtlat hwnoise`): a kernel
//! thread spins with interrupts off for `width` of every `window` and records each gap in its
//! clock reads longer than `tracing_thresh`: time the CPU spent where Linux cannot see, in
//! SMIs, firmware or a hypervisor. hwlatdetect (rt-tests) drives the same tracer.
//!
//! | step                         | items                                                 |
//! |------------------------------|-------------------------------------------------------|
//! | is it there                  | [`probe`]                                             |
//! | switch it on, and back off   | [`HwlatTrace::plan`], [`HwlatTrace::start`], [`HwlatTrace::stop`] (and `Drop`) |
//! | read it                      | [`parse`] → [`HwlatSample`]s                          |
//!
//! Every setting changed is a [`Change`] (printed by the CLI) put back in reverse order. A
//! tracer already running (`current_tracer` other than `nop`) is never taken over.
//!
//! # Tested on real kernels
//!
//! The development machines' kernel has no hwlat tracer: [`probe`] is tested there for its
//! reason, the parser on lines of Debian's 6.1 and 6.12 RT kernels, and start, sampling and
//! restore on those kernels under QEMU (`tests/rt_guest`).

use std::path::{Path, PathBuf};

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::ftrace::{FtraceError, find_tracefs};

use super::tracer::{Change, Changes, MAX_TRACE, Planner, TracerError, read_bounded, read_setting};

/// Where the tracer is, or why it cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HwlatPath {
    /// The tracefs directory, which offers `hwlat`.
    Available(PathBuf),
    /// Why not, one line.
    Absent(String),
}

/// Whether the hwlat tracer can be used under `root` (`/` on a live system): tracefs mounted,
/// `hwlat` in `available_tracers`. Changes nothing.
pub fn probe(root: &Path) -> HwlatPath {
    let tracefs = match find_tracefs(root) {
        Ok(dir) => dir,
        Err(FtraceError::TracefsNotFound { .. }) => {
            return HwlatPath::Absent(
                "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)".into(),
            );
        }
        Err(e) => return HwlatPath::Absent(e.to_string()),
    };
    match read_setting(&tracefs.join("available_tracers")) {
        Ok(list) if list.split_whitespace().any(|t| t == "hwlat") => HwlatPath::Available(tracefs),
        Ok(list) => HwlatPath::Absent(format!(
            "this kernel has no hwlat tracer (CONFIG_HWLAT_TRACER; available: {})",
            list.split_whitespace().collect::<Vec<_>>().join(" ")
        )),
        Err(e) => HwlatPath::Absent(e.to_string()),
    }
}

/// How the tracer samples: µs, as its files take them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwlatSettings {
    /// `tracing_thresh`: gaps above it are samples.
    pub threshold_us: u64,
    /// `hwlat_detector/window`.
    pub window_us: u64,
    /// `hwlat_detector/width` (at most the window).
    pub width_us: u64,
    /// `tracing_cpumask` (`None`: left as it is).
    pub cpus: Option<CpuSet>,
}

/// The hwlat tracer running; dropping it puts every setting back.
#[derive(Debug)]
pub struct HwlatTrace {
    changes: Changes,
}

impl HwlatTrace {
    /// The changes [`HwlatTrace::start`] makes, in order, without making any: tracing
    /// stopped, the threshold, the window and width (in the order the kernel accepts: the
    /// width never above the window in between), the CPU mask, `current_tracer` = `hwlat`,
    /// tracing started. Settings that hold their value already are left out. Refuses a
    /// tracefs where a tracer other than `nop` runs.
    pub fn plan(tracefs: &Path, settings: &HwlatSettings) -> Result<Vec<Change>, TracerError> {
        let mut plan = Planner::new(tracefs)?;
        plan.set("tracing_thresh", settings.threshold_us.to_string())?;
        let window = plan.read("hwlat_detector/window")?;
        let width = plan.read("hwlat_detector/width")?;
        let window_now = window.parse::<u64>().unwrap_or(u64::MAX);
        let (window_set, width_set) = (
            settings.window_us.to_string(),
            settings.width_us.to_string(),
        );
        // The kernel refuses a width above the window and a window below the width: widen
        // the window first when the new width would not fit the window of now.
        if settings.width_us > window_now {
            plan.step("hwlat_detector/window", window, window_set);
            plan.step("hwlat_detector/width", width, width_set);
        } else {
            plan.step("hwlat_detector/width", width, width_set);
            plan.step("hwlat_detector/window", window, window_set);
        }
        if let Some(cpus) = &settings.cpus {
            plan.set("tracing_cpumask", cpu_mask(cpus))?;
        }
        Ok(plan.start("hwlat"))
    }

    /// Starts the tracer in `tracefs` (from [`probe`]) with `settings`: the changes of
    /// [`HwlatTrace::plan`], each recorded as it is made; on an error, those made are put
    /// back.
    pub fn start(tracefs: &Path, settings: &HwlatSettings) -> Result<HwlatTrace, TracerError> {
        Ok(HwlatTrace {
            changes: Changes::apply(tracefs, HwlatTrace::plan(tracefs, settings)?)?,
        })
    }

    /// The settings changed, in order.
    pub fn changes(&self) -> &[Change] {
        self.changes.as_slice()
    }

    /// The samples recorded so far ([`parse`] of `trace`).
    pub fn samples(&self) -> Result<Vec<HwlatSample>, TracerError> {
        Ok(parse(&read_bounded(
            &self.changes.tracefs().join("trace"),
            MAX_TRACE,
        )?))
    }

    /// Puts every changed setting back, in reverse order; all are tried.
    pub fn stop(mut self) -> Result<(), TracerError> {
        self.changes.restore()
    }
}

/// `tracing_cpumask`'s text for `cpus`: hex, in comma-separated groups of 32 CPUs, the
/// highest first (the kernel's `%*pb`).
pub fn cpu_mask(cpus: &CpuSet) -> String {
    let groups = cpus.last().map_or(1, |last| last / 32 + 1);
    let mut words = vec![0u32; groups];
    for cpu in cpus.iter() {
        words[cpu / 32] |= 1 << (cpu % 32);
    }
    let mut text: Vec<String> = words.iter().rev().map(|w| format!("{w:08x}")).collect();
    // The highest group without its leading zeros, as the kernel prints it.
    if let Some(first) = text.first_mut() {
        let trimmed = first.trim_start_matches('0');
        *first = if trimmed.is_empty() {
            "0".into()
        } else {
            trimmed.into()
        };
    }
    text.join(",")
}

/// One hwlat sample: a gap above the threshold in one width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwlatSample {
    /// The CPU the tracer's thread ran on.
    pub cpu: usize,
    /// The sample's sequence number (`#N`).
    pub seq: u64,
    /// The largest gap inside the loop, µs.
    pub inner_us: u64,
    /// The largest gap between two loop iterations, µs.
    pub outer_us: u64,
    /// When, as the tracer stamps it (`ts:`), ns since the epoch (0 when absent).
    pub ts_ns: u128,
    /// Gaps above the threshold in the width (`count:`; 1 when the kernel does not say).
    pub count: u64,
    /// NMI time in the width, µs (`nmi-total:`; the kernel divides its ns by 1000).
    pub nmi_total_us: u64,
    /// NMIs in the width (`nmi-count:`).
    pub nmi_count: u64,
}

impl HwlatSample {
    /// The sample's latency: the larger of inner and outer (hwlatdetect's).
    pub fn latency_us(&self) -> u64 {
        self.inner_us.max(self.outer_us)
    }
}

/// The samples of a trace's text: every line with `inner/outer(us):`; other lines (headers,
/// lost-event notes) are passed over, as are malformed ones.
pub fn parse(trace: &str) -> Vec<HwlatSample> {
    trace.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<HwlatSample> {
    let at = line.find("inner/outer(us):")?;
    let cpu = line[..at]
        .split_whitespace()
        .find_map(|w| w.strip_prefix('[')?.strip_suffix(']')?.parse().ok())?;
    let seq = line[..at]
        .split_whitespace()
        .find_map(|w| w.strip_prefix('#')?.parse().ok())
        .unwrap_or(0);
    let mut words = line[at + "inner/outer(us):".len()..].split_whitespace();
    let (inner, outer) = words.next()?.split_once('/')?;
    let mut sample = HwlatSample {
        cpu,
        seq,
        inner_us: inner.parse().ok()?,
        outer_us: outer.parse().ok()?,
        ts_ns: 0,
        count: 1,
        nmi_total_us: 0,
        nmi_count: 0,
    };
    for word in words {
        let Some((key, value)) = word.split_once(':') else {
            continue;
        };
        match key {
            "ts" => {
                let (s, frac) = value.split_once('.').unwrap_or((value, "0"));
                let digits = frac.len().min(9) as u32;
                let frac: u128 = frac[..digits as usize].parse().unwrap_or(0);
                sample.ts_ns =
                    s.parse::<u128>().unwrap_or(0) * 1_000_000_000 + frac * 10u128.pow(9 - digits);
            }
            "count" => sample.count = value.parse().unwrap_or(1),
            "nmi-total" => sample.nmi_total_us = value.parse().unwrap_or(0),
            "nmi-count" => sample.nmi_count = value.parse().unwrap_or(0),
            _ => {}
        }
    }
    Some(sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as Debian's 6.12 RT kernel writes them under QEMU (TCG), with the header.
    const TRACE: &str = "\
# tracer: hwlat
#
# entries-in-buffer/entries-written: 3/3   #P:2
#
#                                _-----=> irqs-off/BH-disabled
#                           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#                              | |         |   |||||     |         |
           <...>-121     [001] d....    12.583012: #1     inner/outer(us):  113/98     ts:1765030000.183215009 count:7
           <...>-121     [000] dn...    13.583113: #2     inner/outer(us):   12/1046   ts:1765030001.183300011 count:2 nmi-total:41 nmi-count:1
           <...>-121     [001] d....    14.5831: #3     inner/outer(us):  bad
";

    #[test]
    fn samples_are_read_from_the_kernels_lines() {
        let samples = parse(TRACE);
        assert_eq!(samples.len(), 2, "{samples:?}");
        assert_eq!(
            samples[0],
            HwlatSample {
                cpu: 1,
                seq: 1,
                inner_us: 113,
                outer_us: 98,
                ts_ns: 1_765_030_000_183_215_009,
                count: 7,
                nmi_total_us: 0,
                nmi_count: 0,
            }
        );
        assert_eq!(samples[0].latency_us(), 113);
        assert_eq!(samples[1].cpu, 0);
        assert_eq!(samples[1].latency_us(), 1046);
        assert_eq!((samples[1].nmi_total_us, samples[1].nmi_count), (41, 1));
    }

    #[test]
    fn cpu_masks_are_written_as_the_kernel_prints_them() {
        let mask = |list: &str| cpu_mask(&CpuSet::parse(list).unwrap());
        assert_eq!(mask("0"), "1");
        assert_eq!(mask("1"), "2");
        assert_eq!(mask("0-3"), "f");
        assert_eq!(mask("31"), "80000000");
        assert_eq!(mask("32"), "1,00000000");
        assert_eq!(mask("1,33"), "2,00000002");
    }

    #[test]
    fn this_machines_kernel_is_probed_for_its_reason() {
        // The development machines' kernel has no hwlat tracer (or no tracefs mounted): the
        // reason names what is missing. On a kernel with it, the tracefs is found.
        match probe(Path::new("/")) {
            HwlatPath::Available(dir) => assert!(dir.join("available_tracers").exists()),
            HwlatPath::Absent(why) => {
                assert!(why.contains("hwlat") || why.contains("tracefs"), "{why}")
            }
        }
    }
}
