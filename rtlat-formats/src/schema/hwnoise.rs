//! `rtlat hwnoise --json`: hardware and firmware noise per CPU, with hwlatdetect's figures
//! under its names (`max_latency_us`, `samples_recorded`, `samples_exceeding`) and the
//! samples as the hwlat tracer gave them. Times in µs, as the tracer and hwlatdetect give
//! them; the poll method's figures are lower bounds (`lower_bounds: true`).

use serde::Serialize;

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// `"rtlat hwnoise"`.
    pub tool: String,
    /// rtlat's version.
    pub version: String,
    /// The command line, argv joined by spaces.
    pub cmdline: String,
    /// `"hwlat"` (the kernel's tracer, interrupts off) or `"poll"` (rtlat's busy loop, Linux's
    /// own events taken out).
    pub method: String,
    /// Why the other method was not used, when `--method auto` chose poll.
    pub method_reason: Option<String>,
    /// Seconds the run lasted.
    pub duration_s: f64,
    /// Gaps above it are samples, µs.
    pub threshold_us: u64,
    /// The sampling window, µs.
    pub window_us: u64,
    /// The sampling width in each window, µs.
    pub width_us: u64,
    /// The CPUs sampled.
    pub cpus: Vec<usize>,
    /// Whether the figures are lower bounds (the poll method) or as measured (hwlat).
    pub lower_bounds: bool,
    /// The largest sample, µs (`null`: none above the threshold).
    pub max_latency_us: Option<u64>,
    /// Samples recorded (hwlat: trace lines; poll: widths with unexplained gaps).
    pub samples_recorded: u64,
    /// Gaps above the threshold (hwlat: the sum of the samples' `count`).
    pub samples_exceeding: u64,
    /// SMIs during the run from `MSR_SMI_COUNT`, per CPU, or why none were counted.
    pub smi: Smi,
    /// `--fail-above`, µs (`null`: not given).
    pub fail_above_us: Option<u64>,
    /// Per CPU.
    pub per_cpu: Vec<Cpu>,
    /// The hwlat tracer's samples, in order (empty with the poll method).
    pub samples: Vec<Sample>,
}

/// The SMI counter's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Smi {
    /// SMIs during the run, all CPUs (`null`: not counted).
    pub total: Option<u64>,
    /// `[cpu, SMIs]` for each CPU counted.
    pub per_cpu: Vec<(usize, u64)>,
    /// Why not counted.
    pub unavailable: Option<String>,
}

/// One CPU's noise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cpu {
    /// The CPU.
    pub cpu: usize,
    /// Samples recorded on it.
    pub samples: u64,
    /// Gaps above the threshold.
    pub spikes: u64,
    /// The largest, µs (`null`: none).
    pub max_us: Option<u64>,
    /// Their sum, µs.
    pub total_us: u64,
    /// The run's duration over `spikes`, s (`null`: no spike).
    pub mean_time_between_spikes_s: Option<f64>,
    /// NMIs the tracer saw in its samples (hwlat), or the CPU's NMI count during the widths
    /// (poll).
    pub nmi_count: u64,
    /// NMI time inside the samples, µs (hwlat; 0 for poll, which cannot time them).
    pub nmi_total_us: u64,
    /// Poll only: what Linux did on the CPU during the widths (interrupts and the loop's
    /// context switches), each of which may explain one gap.
    pub linux_events: Option<u64>,
    /// Poll only: gaps above the threshold in all, Linux's and the rest.
    pub gaps_above_threshold: Option<u64>,
    /// Poll only: the largest gap of all, Linux's included, µs.
    pub largest_gap_us: Option<u64>,
    /// Poll only: allocations while polling (always 0).
    pub allocations: Option<u64>,
    /// Seconds sampled on the CPU (the widths' sum; hwlat: not known per CPU, `null`).
    pub sampled_s: Option<f64>,
}

/// One hwlat tracer sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// The CPU.
    pub cpu: usize,
    /// The tracer's sequence number.
    pub seq: u64,
    /// The largest gap inside the loop, µs.
    pub inner_us: u64,
    /// The largest gap between loop iterations, µs.
    pub outer_us: u64,
    /// The tracer's timestamp, as it prints it (seconds.nanoseconds, wall clock).
    pub ts: String,
    /// Gaps above the threshold in the width.
    pub count: u64,
    /// NMIs in the width.
    pub nmi_count: u64,
    /// Their time, µs.
    pub nmi_total_us: u64,
}
