//! What a run's command line asks for, checked: [`RunConfig`] and the values it holds, with
//! cyclictest's defaults (the first step; the machine is not looked at).

use std::path::PathBuf;
use std::time::Duration;

use rtlat_arm64::BoardProfile;
use rtlat_linux::ClockId;
use rtlat_linux::cpuset::CpuSet;

use super::{CpuSpec, DEFAULT_DISTANCE_US, DEFAULT_INTERVAL_US, DEFAULT_SPIKE_NODES};
use crate::cli::backend::Backend;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
// Made once per process and matched at once: boxing the config would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    /// `--help` or `-?`: print `rtlat run`'s usage (`cli::run::usage`) and exit 0.
    Help,
    /// A measurement run.
    Run(RunConfig),
}

/// Every option of a run, as given (after validation), with cyclictest's defaults.
///
/// Derived values that need the system's CPUs (thread count, per-thread CPU, priority and
/// interval) come from [`RunConfig::plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunConfig {
    /// `-t [N]`, `-S`: how many measuring threads. Default one.
    pub threads: Threads,
    /// `-a [CPUSET]`: the CPUs threads are pinned to, round-robin (thread `i` on the
    /// `i % len`-th CPU of the set). `None` (no `-a`, bare `-a`, or `-S`): round-robin over
    /// all available CPUs, which is what cyclictest does in all three cases.
    pub affinity: Option<CpuSpec>,
    /// `-S`/`--smp`: one thread per available CPU, pinned (sets `threads` and `affinity`).
    pub smp: bool,
    /// `-p`/`--priority` as given (1..=99 for fifo/rr; 0 only with a non-real-time policy).
    pub priority: Option<u8>,
    /// `--policy` as given. See [`RunConfig::policy`] for the one applied.
    pub policy: Option<Policy>,
    /// `--priospread`: thread `i` gets priority `base - i`.
    pub priospread: bool,
    /// `-i`/`--interval`: base interval in µs (thread 0's). Default 1000.
    pub interval_us: u64,
    /// `-d`/`--distance` as given, in µs. See [`RunConfig::distance_us`] for the one applied
    /// (default 500; 0 with a histogram).
    pub distance: Option<u64>,
    /// `-l`/`--loops`: cycles per thread; the run ends when the first thread has done them.
    /// 0 (default): no limit.
    pub loops: u64,
    /// `-D`/`--duration`: run length; `None` (default, or `-D 0`): no limit.
    pub duration: Option<Duration>,
    /// `-m`/`--mlockall`: lock current and future memory.
    pub mlockall: bool,
    /// `-q`/`--quiet`: print the summary only at the end.
    pub quiet: bool,
    /// `-N`/`--nsecs` or `--unit`: the unit of printed values and of the `-b`, `-h`/`-H` and
    /// `--spike` values. Default µs.
    pub unit: Unit,
    /// `-h`/`--histogram`, `-H`/`--histofall`: the histogram, if any.
    pub histogram: Option<Histogram>,
    /// `--histfile`: write the histogram to this file instead of stdout (needs a histogram).
    pub histfile: Option<PathBuf>,
    /// `--json`: write the final results to this file, in cyclictest's JSON format.
    pub json: Option<PathBuf>,
    /// `-F`/`--fifo`: a named pipe that hands out the current statistics while the run runs.
    pub fifo: Option<PathBuf>,
    /// `-b`/`--breaktrace`: stop the run when a latency exceeds this (in `unit`).
    pub breaktrace: Option<u64>,
    /// `--tracemark`: with `-b`, write the break to ftrace's trace_marker and stop tracing.
    pub tracemark: bool,
    /// `--latency`: the /dev/cpu_dma_latency value in µs, as given. See
    /// [`RunConfig::dma_latency_us`] for the one applied (default 0).
    pub latency_target_us: Option<u32>,
    /// `--laptop`: do not write /dev/cpu_dma_latency (save battery).
    pub laptop: bool,
    /// `--default-system`: do not write /dev/cpu_dma_latency (measure the system as tuned).
    pub default_system: bool,
    /// How threads sleep: `-r`, `-s`, `-x` or `--timer`. Default absolute clock_nanosleep.
    pub timer: TimerKind,
    /// `-c`/`--clock`: 0 monotonic (default), 1 realtime.
    pub clock: Clock,
    /// `-A`/`--aligned`, `--secaligned`: aligned thread start, if asked.
    pub align: Option<Align>,
    /// `--mainaffinity`: CPUs for the main (reporting) thread.
    pub main_affinity: Option<CpuSpec>,
    /// `--spike`: record every latency above this (in `unit`).
    pub spike: Option<u64>,
    /// `--spike-nodes`: how many spikes to keep (default 1024; needs `--spike`).
    pub spike_nodes: u32,
    /// `--explain`: a record of what happened on the CPU before each spike, and its likely
    /// causes (rtlat-system's noise sampler and spike watch).
    pub explain: bool,
    /// `--timerlat`: the kernel's timerlat tracer runs on the measured CPUs and, where the
    /// kernel lets it, wakes the measuring threads itself (`timerlat_fd`); each thread's IRQ
    /// and thread latencies (and return from user space) are reported beside its own.
    pub timerlat: bool,
    /// `--explain-above`: explain every latency above this (in `unit`); default `-b`'s value,
    /// else each thread's p99.9 once known.
    pub explain_above: Option<u64>,
    /// `--explain-nodes`: the spike records `--explain` keeps per thread, the worst (default
    /// 1024, as `--spike-nodes`).
    pub explain_nodes: u32,
    /// `--deepest-idle-state N`: the deepest CPU idle state the run's CPUs may enter (states
    /// numbered above N are disabled for the run, restored after); -1 disables them all.
    pub deepest_idle_state: Option<i32>,
    /// `-v`/`--verbose`: print every sample as `thread:cycle:value`.
    pub verbose: bool,
    /// `-u`/`--unbuffered`: unbuffered stdout.
    pub unbuffered: bool,
    /// `-M`/`--refresh_on_max`: redraw the live lines only when a new maximum is hit.
    pub refresh_on_max: bool,
    /// `--fail-above` (rtlat): exit status 1 if any thread's maximum exceeds this many µs.
    pub fail_above_us: Option<u64>,
    /// `--load`: what runs beside the measurement, for the JSON's provenance; `stress-ng`
    /// starts rtlat's built-in load for the run (`run::load`).
    pub load: Option<String>,
    /// `--governor` (rtlat): the cpufreq governor the run's CPUs get for the run only.
    pub governor: Option<String>,
    /// `--backend` (rtlat): what the measuring threads sleep on.
    pub backend: Backend,
    /// `--profile` (rtlat): the board profile whose settings filled in `threads`, `affinity`,
    /// `policy` and `priority` where the command line left them out, and whose cpufreq
    /// settings are held for the run (`--governor` overrides its governor).
    pub profile: Option<RunProfile>,
    /// Whether rtlat was invoked as `cyclictest` (then rtlat's own options were refused).
    pub invoked_as_cyclictest: bool,
    /// `--smi`: each thread counts the System Management Interrupts of its CPU
    /// (`MSR_SMI_COUNT`, see `cyclic::smi`), on a processor that has the counter.
    pub smi: bool,
    /// What cyclictest warns about and carries on (`-S -t 1`, `-p 80 --policy batch`, ...),
    /// worded as cyclictest words it; printed on stderr before the run (see [`super::Plan::notices`]).
    pub warnings: Vec<String>,
}

impl Default for RunConfig {
    /// cyclictest with no options: one SCHED_OTHER thread, 1000 µs, absolute sleeps, forever.
    fn default() -> Self {
        RunConfig {
            threads: Threads::Count(1),
            affinity: None,
            smp: false,
            priority: None,
            policy: None,
            priospread: false,
            interval_us: DEFAULT_INTERVAL_US,
            distance: None,
            loops: 0,
            duration: None,
            mlockall: false,
            quiet: false,
            unit: Unit::Us,
            histogram: None,
            histfile: None,
            json: None,
            fifo: None,
            breaktrace: None,
            tracemark: false,
            latency_target_us: None,
            laptop: false,
            default_system: false,
            timer: TimerKind::Absolute,
            clock: Clock::Monotonic,
            align: None,
            main_affinity: None,
            spike: None,
            spike_nodes: DEFAULT_SPIKE_NODES,
            explain: false,
            timerlat: false,
            explain_above: None,
            explain_nodes: DEFAULT_SPIKE_NODES,
            deepest_idle_state: None,
            verbose: false,
            unbuffered: false,
            refresh_on_max: false,
            fail_above_us: None,
            load: None,
            governor: None,
            backend: Backend::Linux,
            profile: None,
            invoked_as_cyclictest: false,
            smi: false,
            warnings: Vec::new(),
        }
    }
}

/// How many measuring threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// `-t N` (default 1).
    Count(u32),
    /// Bare `-t` or `-S`: one per CPU of the `-a` set if given, else per available CPU.
    PerCpu,
}

/// A scheduling policy, as `--policy` names it: the backend's type.
pub use rtlat_linux::Policy;

/// The unit of printed latencies and of the `-b`, `-h`, `--spike` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Microseconds (cyclictest's default).
    Us,
    /// Nanoseconds (`-N`).
    Ns,
}

/// A histogram request: `-h N` or `-H N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Histogram {
    /// Number of buckets, each one `unit` wide (values at or above go to the overflow count).
    pub buckets: u32,
    /// `-H`: add a column summing all threads.
    pub with_total: bool,
}

/// How a measuring thread waits for its next deadline (`--timer`; cyclictest's `-r/-s/-x`):
/// the backend's type.
pub use rtlat_linux::TimerKind;

/// The `--timer` name of a timer (`abs`, `rel`, `nanosleep`, `posix`, `timerfd`), as the
/// run's JSON and messages write it.
pub fn timer_name(timer: TimerKind) -> &'static str {
    match timer {
        TimerKind::Absolute => "abs",
        TimerKind::Relative => "rel",
        TimerKind::NanoSleep => "nanosleep",
        TimerKind::PosixTimer => "posix",
        TimerKind::TimerFd => "timerfd",
        TimerKind::Timerlat => "timerlat",
    }
}

/// The clock latencies are measured on (`-c`): one of the backend's POSIX clocks
/// ([`ClockId`], see [`Clock::posix`]) or, on aarch64, the ARM generic timer (rtlat-arm64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// `-c 0` (default): CLOCK_MONOTONIC.
    Monotonic,
    /// `-c 1`: CLOCK_REALTIME.
    Realtime,
    /// `-c cntvct` (rtlat, aarch64 only): the ARM generic timer's virtual count, read in user
    /// space; deadlines are translated to CLOCK_MONOTONIC for the sleep (rtlat-arm64's
    /// `GenericTimerSleep`). Absent, not faked, on other architectures.
    #[cfg(target_arch = "aarch64")]
    Cntvct,
}

impl Clock {
    /// The backend's POSIX clock, or `None` for the ARM generic timer.
    pub fn posix(self) -> Option<ClockId> {
        match self {
            Clock::Monotonic => Some(ClockId::Monotonic),
            Clock::Realtime => Some(ClockId::Realtime),
            #[cfg(target_arch = "aarch64")]
            Clock::Cntvct => None,
        }
    }

    /// The clock's name in reports: `CLOCK_MONOTONIC`, `CLOCK_REALTIME`, `CNTVCT_EL0`.
    pub fn c_name(self) -> &'static str {
        self.posix().map_or("CNTVCT_EL0", ClockId::c_name)
    }
}

/// An aligned start: all threads' first deadlines share a reference time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// `-A [US]`: threads start from a common reference time; thread `i`'s first deadline is
    /// offset from it by `i × offset_us` (as in cyclictest).
    Aligned {
        /// The offset in µs (0 if bare).
        offset_us: u64,
    },
    /// `--secaligned [US]`: the common reference is the next full second, plus `offset_us` for
    /// every thread.
    SecAligned {
        /// The offset in µs (0 if bare).
        offset_us: u64,
    },
}

impl RunConfig {
    /// The policy applied: `--policy` if given, else SCHED_FIFO if `-p` or `--priospread` was
    /// given (as in cyclictest), else SCHED_OTHER.
    pub fn policy(&self) -> Policy {
        match self.policy {
            Some(policy) => policy,
            None if self.priority.is_some() || self.priospread => Policy::Fifo,
            None => Policy::Other,
        }
    }

    /// The distance applied between thread intervals: 0 with a histogram, else `-d`
    /// (default 500 µs).
    pub fn distance_us(&self) -> u64 {
        if self.histogram.is_some() {
            0
        } else {
            self.distance.unwrap_or(DEFAULT_DISTANCE_US)
        }
    }

    /// The value to write to /dev/cpu_dma_latency, or `None` with `--laptop` or
    /// `--default-system` (leave power management alone).
    pub fn dma_latency_us(&self) -> Option<u32> {
        if self.laptop || self.default_system {
            None
        } else {
            Some(self.latency_target_us.unwrap_or(0))
        }
    }
}

/// The profile of a run, with the CPUs its layout chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunProfile {
    /// The board profile.
    pub board: &'static BoardProfile,
    /// The CPUs the profile's layout put the threads on (and so needs); `None` when `-a` or
    /// `-S` chose the CPUs.
    pub cpus: Option<CpuSet>,
}

/// The profile names, for usage text and errors: `bubblegum96`.
pub fn board_names() -> String {
    BoardProfile::names().collect::<Vec<_>>().join(", ")
}
