//! The options of `rtlat run` (and of rtlat invoked as `cyclictest`): cyclictest's options,
//! same spellings, same meanings, same defaults, parsed into a [`RunConfig`] and resolved into
//! a per-thread [`Plan`].
//!
//! Two steps:
//!
//! 1. [`parse`] reads the words of the command line (no system access): every value is checked
//!    and every contradiction refused here, as one [`UsageError`] line naming the option and
//!    what it accepts. The CLI prints it and exits with status 2.
//! 2. [`RunConfig::plan`] takes the CPUs the threads may use (the process's affinity mask
//!    intersected with the online CPUs; tests pass a fixed set) and derives what cyclictest
//!    derives after parsing: the thread count for bare `-t` and `-S`, each thread's CPU,
//!    priority and interval, and the CPUs of `-a`/`--mainaffinity` (refused if not available).
//!
//! Values of `-b`, `-h`/`-H` and `--spike` are in the display unit, as in cyclictest: µs, or ns
//! with `-N` (or `--unit ns`). `-i`, `-d`, `-A`, `--secaligned` and `--fail-above` are always µs.
//!
//! # Where rtlat deliberately differs from cyclictest 2.40
//!
//! cyclictest reads numbers with `atoi` and quietly corrects or ignores many inputs; rtlat
//! refuses what cyclictest would silently get wrong, because a latency run that silently
//! measured something else is worse than no run, and otherwise does what cyclictest does:
//! it reads numbers as `strtol` does (white space and `+` first), warns where cyclictest warns
//! and carries on with cyclictest's settings (`-S` with `-t`/`-a`, `-p` with a non-real-time
//! `--policy`, `-d` with `-h`, `-s` with `-x`), and under the name cyclictest ends where
//! cyclictest ends, with its lines and statuses ([`cyclictest_refusal`]). The differences
//! that remain are listed in one place, [`super::usage::DIFFERENCES`] (printed by
//! `cyclictest --help`, and in the README).
//!
//! rtlat's own options (`--fail-above`, `--unit`, `--timer`, `--governor`, `--profile`) must
//! be spelled in full, so that `rtlat run` abbreviates long options exactly as cyclictest
//! does; invoked as `cyclictest`, rtlat refuses them. `--profile NAME` fills in the settings
//! the command line leaves out from a board profile (see [`super::profile`]).
//!
//! Kept as cyclictest does it (checked against cyclictest 2.40): without `-a`, thread `i` is
//! still pinned to the `i`-th available CPU (round-robin); `-S` keeps the default distance of
//! 500 µs (only `-h`/`-H` force 0) and does not stop `--priospread`; `--policy fifo|rr`
//! without `-p`, and `--priospread` without `-p`, use priority threads + 1 (reported as a
//! notice); the last of a repeated option wins; `-D 0` and `-l 0` mean no limit.

use core::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rtlat_arm64::BoardProfile;
use rtlat_linux::ClockId;
use rtlat_linux::cpuset::CpuSet;

use rtlat::options::{self as getopt, Describe, HasArg, Peek, Spec};
// The one usage error of every command, re-exported where the run's code finds it.
pub use rtlat::options::UsageError;
use super::profile::{self, Given, RunProfile};
use super::values::{self, NumberError};

/// Default `-i`: 1000 µs.
pub const DEFAULT_INTERVAL_US: u64 = 1000;
/// Default `-d`: 500 µs.
pub const DEFAULT_DISTANCE_US: u64 = 500;
/// Largest `-i` (and per-thread interval, `-A` and `--secaligned` offset): one hour in µs.
pub const MAX_INTERVAL_US: u64 = 3_600_000_000;
/// Largest `-b`, `--spike` and `--fail-above` threshold (in their unit).
pub const MAX_THRESHOLD: u64 = 3_600_000_000;
/// Largest `-t`: one thread per CPU of the largest CpuSet.
pub const MAX_THREADS: u32 = rtlat_linux::cpuset::MAX_CPUS as u32;
/// Largest `-h`/`-H` (cyclictest's `HIST_MAX`).
pub const MAX_HISTOGRAM_BUCKETS: u32 = 1_000_000;
/// Default `--spike-nodes` (cyclictest's).
pub const DEFAULT_SPIKE_NODES: u32 = 1024;
/// Largest `--spike-nodes`.
pub const MAX_SPIKE_NODES: u32 = 1 << 20;
/// Largest `-D`, in seconds (about 136 years).
pub const MAX_DURATION_SECS: u64 = u32::MAX as u64;
/// Largest `--latency` (a PM QoS value is a signed 32-bit µs count).
pub const MAX_PM_QOS_US: u32 = i32::MAX as u32;
/// Highest real-time priority.
pub const MAX_RT_PRIORITY: u8 = 99;
/// Largest `--deepest-idle-state` (the kernel has at most a few dozen idle states).
pub const MAX_IDLE_STATE: u32 = 1023;

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
// Made once per process and matched at once: boxing the config would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    /// `--help` or `-?`: print [`super::usage::usage`] and exit 0.
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
    /// `--governor` (rtlat): the cpufreq governor the run's CPUs get for the run only.
    pub governor: Option<String>,
    /// `--profile` (rtlat): the board profile whose settings filled in `threads`, `affinity`,
    /// `policy` and `priority` where the command line left them out, and whose cpufreq
    /// settings are held for the run (`--governor` overrides its governor).
    pub profile: Option<RunProfile>,
    /// Whether rtlat was invoked as `cyclictest` (then rtlat's own options were refused).
    pub invoked_as_cyclictest: bool,
    /// What cyclictest warns about and carries on (`-S -t 1`, `-p 80 --policy batch`, ...),
    /// worded as cyclictest words it; printed on stderr before the run (see [`Plan::notices`]).
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
            deepest_idle_state: None,
            verbose: false,
            unbuffered: false,
            refresh_on_max: false,
            fail_above_us: None,
            governor: None,
            profile: None,
            invoked_as_cyclictest: false,
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

/// A CPU list as given to `-a` or `--mainaffinity`, resolved against the available CPUs by
/// [`RunConfig::plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuSpec {
    /// `0-3,5`: these CPUs.
    List(CpuSet),
    /// `all`: every available CPU.
    All,
    /// `!LIST`: every available CPU but these.
    AllBut(CpuSet),
    /// `+LIST`: the available CPUs at these positions (0 = the lowest available CPU).
    Relative(CpuSet),
}

impl fmt::Display for CpuSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuSpec::List(set) => write!(f, "{set}"),
            CpuSpec::All => f.write_str("all"),
            CpuSpec::AllBut(set) => write!(f, "!{set}"),
            CpuSpec::Relative(set) => write!(f, "+{set}"),
        }
    }
}

impl CpuSpec {
    /// Parses `all`, `!LIST`, `+LIST` or `LIST`.
    fn parse(given: &str, option: &str) -> Result<CpuSpec, UsageError> {
        // As cyclictest (libnuma) reads it, white space around the list is skipped.
        let text = values::trim_c_space(given);
        let list = |body: &str| {
            CpuSet::parse(body).map_err(|err| UsageError::InvalidCpuList {
                option: option.to_owned(),
                value: given.to_owned(),
                reason: err.to_string(),
            })
        };
        if text == "all" {
            Ok(CpuSpec::All)
        } else if let Some(body) = text.strip_prefix('!') {
            Ok(CpuSpec::AllBut(list(body)?))
        } else if let Some(body) = text.strip_prefix('+') {
            Ok(CpuSpec::Relative(list(body)?))
        } else {
            Ok(CpuSpec::List(list(text)?))
        }
    }

    /// The CPUs this names among `available`; an error if it names an unavailable CPU or none.
    pub fn resolve(&self, available: &CpuSet, option: &str) -> Result<CpuSet, UsageError> {
        let refuse = |reason: String| UsageError::InvalidCpuList {
            option: option.to_owned(),
            value: self.to_string(),
            reason,
        };
        let set = match self {
            CpuSpec::List(set) => {
                let missing = set.difference(available);
                if !missing.is_empty() {
                    return Err(refuse(format!(
                        "CPU {missing} is not online or not allowed for this process (available CPUs: {available})"
                    )));
                }
                set.clone()
            }
            CpuSpec::All => available.clone(),
            CpuSpec::AllBut(set) => available.difference(set),
            CpuSpec::Relative(positions) => {
                let mut set = CpuSet::new();
                for position in positions {
                    let Some(cpu) = available.nth(position) else {
                        return Err(refuse(format!(
                            "position {position} is past the {} available CPUs ({available}); positions start at 0",
                            available.len()
                        )));
                    };
                    // `cpu` comes from a CpuSet, so it is in range.
                    let _ = set.insert(cpu);
                }
                set
            }
        };
        if set.is_empty() {
            return Err(refuse(format!(
                "that leaves no CPU (available CPUs: {available})"
            )));
        }
        Ok(set)
    }
}

/// The resolved run: one entry per measuring thread, plus what the main thread does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The measuring threads, in index order.
    pub threads: Vec<ThreadPlan>,
    /// CPUs for the main thread (`--mainaffinity`), if asked.
    pub main_affinity: Option<CpuSet>,
    /// Defaults rtlat chose that cyclictest reports on stderr (e.g. the priority it uses for
    /// `--policy fifo` without `-p`); the CLI prints each on its own line to stderr.
    pub notices: Vec<String>,
}

/// One measuring thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadPlan {
    /// Thread number (`T:` in the report).
    pub index: u32,
    /// The CPU it is pinned to.
    pub cpu: usize,
    /// Its scheduling policy.
    pub policy: Policy,
    /// Its priority (1..=99 for fifo/rr, 0 otherwise).
    pub priority: u8,
    /// Its interval in µs: `-i` + index × distance.
    pub interval_us: u64,
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

    /// Resolves the run against `available`, the CPUs the threads may use: the process's
    /// affinity mask intersected with the online CPUs (cyclictest uses the calling thread's
    /// affinity mask). Fails, with a usage error, if `-a`/`--mainaffinity` name CPUs that are
    /// not available or the priorities or intervals derived from the thread count are out of
    /// range.
    pub fn plan(&self, available: &CpuSet) -> Result<Plan, UsageError> {
        if available.is_empty() {
            return Err(UsageError::NoCpus);
        }
        if let Some(profile) = &self.profile {
            profile.check_cpus(available)?;
        }
        let pinned = match &self.affinity {
            Some(spec) => Some(spec.resolve(available, "-a/--affinity")?),
            None => None,
        };
        let pool = pinned.as_ref().unwrap_or(available);
        let count = match self.threads {
            Threads::Count(n) => n,
            // A CpuSet holds at most MAX_CPUS CPUs, which fits a u32.
            Threads::PerCpu => u32::try_from(pool.len()).unwrap_or(MAX_THREADS),
        };
        let main_affinity = match &self.main_affinity {
            Some(spec) => Some(spec.resolve(available, "--mainaffinity")?),
            None => None,
        };

        let policy = self.policy();
        let mut notices = self.warnings.clone();
        let base = if policy.is_realtime() {
            match self.priority {
                Some(priority) => u32::from(priority),
                None => {
                    let default = count + 1;
                    if default > u32::from(MAX_RT_PRIORITY) {
                        let option = match self.policy {
                            Some(policy) => format!("--policy {}", policy.name()),
                            None => "--priospread".into(),
                        };
                        return Err(UsageError::Conflict {
                            option,
                            with: format!("{count} threads"),
                            reason: format!(
                                "without -p the priority is threads + 1 = {default}, above {MAX_RT_PRIORITY}; give -p/--priority"
                            ),
                        });
                    }
                    // cyclictest's own words, so that its stderr is the same.
                    notices.push(format!("defaulting realtime priority to {default}"));
                    if self.policy.is_none() {
                        notices.push(
                            "policy and priority don't match: setting policy to SCHED_FIFO".into(),
                        );
                    }
                    default
                }
            }
        } else {
            0
        };
        // `count` is at least 1: -t refuses 0 and `pool` is never empty.
        let last = count.saturating_sub(1);
        if self.priospread && count > base {
            return Err(UsageError::Conflict {
                option: "--priospread".into(),
                with: format!("-p {base} and {count} threads"),
                reason: format!(
                    "thread {last} would get priority {}, below 1; use -p {count} or more, or fewer threads",
                    i64::from(base) - i64::from(last),
                ),
            });
        }

        let distance = self.distance_us();
        let last_interval = u64::from(last)
            .checked_mul(distance)
            .and_then(|spread| spread.checked_add(self.interval_us));
        if last_interval.is_none_or(|last| last > MAX_INTERVAL_US) {
            return Err(UsageError::Conflict {
                option: format!("-i {}", self.interval_us),
                with: format!("-d {distance} and {count} threads"),
                reason: format!(
                    "the last thread's interval (-i + {last} × -d) would exceed {MAX_INTERVAL_US} µs; use a smaller -d"
                ),
            });
        }

        let threads = (0..count)
            .map(|index| {
                let spread = if self.priospread { index } else { 0 };
                // Checked above: base - spread >= 1 when spreading, and base <= 99.
                let priority = u8::try_from(base.saturating_sub(spread)).unwrap_or(MAX_RT_PRIORITY);
                // `pool` is non-empty (resolve refuses empty sets), so nth finds a CPU.
                let cpu = pool.nth(index as usize % pool.len()).unwrap_or(0);
                ThreadPlan {
                    index,
                    cpu,
                    policy,
                    priority,
                    interval_us: self.interval_us + u64::from(index) * distance,
                }
            })
            .collect();
        Ok(Plan {
            threads,
            main_affinity,
            notices,
        })
    }

    /// Checks that the `--json` and `--histfile` files can be written (see
    /// [`check_writable_parent`]).
    pub fn check_output_paths(&self) -> Result<(), UsageError> {
        if let Some(path) = self.json.as_ref().filter(|p| p.as_os_str() != "-") {
            check_writable_parent(path, "--json")?;
        }
        if let Some(path) = &self.histfile {
            check_writable_parent(path, "--histfile")?;
        }
        if let Some(path) = &self.fifo {
            super::fifo::check(path).map_err(|reason| UsageError::NotHere {
                option: name(Opt::Fifo),
                reason,
            })?;
        }
        Ok(())
    }
}

/// Checks, before a run, that `path` (the value of `option`) can be written at its end, as
/// [`rtlat::output`] will write it: its kind (a directory, block device, socket, kernel
/// interface file or another user's symlink is refused), its directory (exists and is
/// writable) and, for a file that is replaced, that it can keep its owner. Nothing is
/// written and a FIFO is not opened.
pub fn check_writable_parent(path: &Path, option: &str) -> Result<(), UsageError> {
    rtlat::output::check(path).map_err(|err| UsageError::NotWritable {
        option: option.to_owned(),
        path: path.to_owned(),
        reason: err.to_string(),
    })
}


/// Every option's identity (cyclictest's, in its order, then rtlat's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Affinity,
    /// `-n`/`--nanosleep`: cyclictest before 2.0 (clock_nanosleep, now the default).
    Nanosleep,
    Aligned,
    Breaktrace,
    Clock,
    DefaultSystem,
    Distance,
    Duration,
    Latency,
    Fifo,
    Histogram,
    Histofall,
    Histfile,
    Interval,
    Json,
    Laptop,
    Loops,
    MainAffinity,
    Mlockall,
    RefreshOnMax,
    Nsecs,
    Oscope,
    Priority,
    Quiet,
    Priospread,
    Relative,
    Resolution,
    Secaligned,
    System,
    Smi,
    Smp,
    Spike,
    SpikeNodes,
    Threads,
    Tracemark,
    Unbuffered,
    Verbose,
    DbgCyclictest,
    Policy,
    Help,
    PosixTimers,
    DeepestIdleState,
    FailAbove,
    Unit,
    Timer,
    Governor,
    Profile,
}

const fn spec(
    id: Opt,
    short: Option<char>,
    long: &'static str,
    has_arg: HasArg,
    abbreviable: bool,
) -> Spec<Opt> {
    Spec {
        id,
        short,
        long: Some(long),
        has_arg,
        abbreviable,
        ..Spec::new(id)
    }
}

use HasArg::{No, Optional, Required};

/// cyclictest 2.40's options (getopt string `a::A::b:c:d:D:F:h:H:i:l:MNo:p:mqrRsSt::uvx` plus
/// its long-option table), then rtlat's own. `-?` is help, as in cyclictest.
const SPECS: &[Spec<Opt>] = &[
    spec(
        Opt::Affinity,
        Some('a'),
        "affinity",
        Optional(Peek::CpuList),
        true,
    ),
    spec(
        Opt::Aligned,
        Some('A'),
        "aligned",
        Optional(Peek::Number),
        true,
    ),
    spec(Opt::Breaktrace, Some('b'), "breaktrace", Required, true),
    spec(Opt::Clock, Some('c'), "clock", Required, true),
    spec(Opt::DefaultSystem, None, "default-system", No, true),
    spec(Opt::Distance, Some('d'), "distance", Required, true),
    spec(Opt::Duration, Some('D'), "duration", Required, true),
    spec(Opt::Latency, None, "latency", Required, true),
    spec(Opt::Fifo, Some('F'), "fifo", Required, true),
    spec(Opt::Histogram, Some('h'), "histogram", Required, true),
    spec(Opt::Histofall, Some('H'), "histofall", Required, true),
    spec(Opt::Histfile, None, "histfile", Required, true),
    spec(Opt::Interval, Some('i'), "interval", Required, true),
    spec(Opt::Json, None, "json", Required, true),
    spec(Opt::Laptop, None, "laptop", No, true),
    spec(Opt::Loops, Some('l'), "loops", Required, true),
    spec(Opt::MainAffinity, None, "mainaffinity", Required, true),
    spec(Opt::Mlockall, Some('m'), "mlockall", No, true),
    spec(Opt::RefreshOnMax, Some('M'), "refresh_on_max", No, true),
    spec(Opt::Nsecs, Some('N'), "nsecs", No, true),
    spec(Opt::Oscope, Some('o'), "oscope", Required, true),
    spec(Opt::Priority, Some('p'), "priority", Required, true),
    spec(Opt::Quiet, Some('q'), "quiet", No, true),
    spec(Opt::Priospread, None, "priospread", No, true),
    spec(Opt::Relative, Some('r'), "relative", No, true),
    spec(Opt::Resolution, Some('R'), "resolution", No, true),
    spec(Opt::Nanosleep, Some('n'), "nanosleep", No, true),
    spec(
        Opt::Secaligned,
        None,
        "secaligned",
        Optional(Peek::Number),
        true,
    ),
    spec(Opt::System, Some('s'), "system", No, true),
    spec(Opt::Smi, None, "smi", No, true),
    spec(Opt::Smp, Some('S'), "smp", No, true),
    spec(Opt::Spike, None, "spike", Required, true),
    spec(Opt::SpikeNodes, None, "spike-nodes", Required, true),
    spec(
        Opt::Threads,
        Some('t'),
        "threads",
        Optional(Peek::Number),
        true,
    ),
    spec(Opt::Tracemark, None, "tracemark", No, true),
    spec(Opt::Unbuffered, Some('u'), "unbuffered", No, true),
    spec(Opt::Verbose, Some('v'), "verbose", No, true),
    spec(Opt::DbgCyclictest, None, "dbg_cyclictest", No, true),
    spec(Opt::Policy, None, "policy", Required, true),
    spec(Opt::Help, Some('?'), "help", No, true),
    spec(Opt::PosixTimers, Some('x'), "posix_timers", No, true),
    // Newer cyclictest (built with libcpupower) has it; 2.40 as packaged does not.
    spec(
        Opt::DeepestIdleState,
        None,
        "deepest-idle-state",
        Required,
        true,
    ),
    // rtlat's own: full names only, so abbreviations resolve exactly as in cyclictest.
    spec(Opt::FailAbove, None, "fail-above", Required, false),
    spec(Opt::Unit, None, "unit", Required, false),
    spec(Opt::Timer, None, "timer", Required, false),
    spec(Opt::Governor, None, "governor", Required, false),
    spec(Opt::Profile, None, "profile", Required, false),
];

/// The option table as a name reads it: under the name cyclictest, `-n`/`--nanosleep` (gone
/// from cyclictest 2.x) and `-?` (not in cyclictest's option string; `--help` is) are unknown
/// options, as getopt tells them in cyclictest.
fn specs(invoked_as_cyclictest: bool) -> Vec<Spec<Opt>> {
    SPECS
        .iter()
        .filter(|s| !(invoked_as_cyclictest && s.id == Opt::Nanosleep))
        .map(|s| match s.id {
            Opt::Help if invoked_as_cyclictest => Spec { short: None, ..*s },
            _ => *s,
        })
        .collect()
}

fn spec_of(id: Opt) -> &'static Spec<Opt> {
    // Every Opt has exactly one entry (checked by a test); the fallback is never used.
    SPECS.iter().find(|s| s.id == id).unwrap_or(&SPECS[0])
}

fn name(id: Opt) -> String {
    spec_of(id).name()
}

/// What each option's value should be, for error messages.
fn expected(id: Opt) -> String {
    match id {
        Opt::Affinity | Opt::MainAffinity => {
            "a CPU list such as 0-3,5 (or all, !LIST, +LIST)".into()
        }
        Opt::Aligned | Opt::Secaligned => {
            format!("an offset of 0 to {MAX_INTERVAL_US} µs")
        }
        Opt::Breaktrace | Opt::Spike => {
            format!("a latency threshold of 1 to {MAX_THRESHOLD} (µs, or ns with -N/--unit ns)")
        }
        Opt::Clock => {
            if rtlat_arm64::HAS_GENERIC_TIMER {
                "0 or monotonic (CLOCK_MONOTONIC), 1 or realtime (CLOCK_REALTIME), or cntvct (the ARM generic timer)".into()
            } else {
                format!(
                    "0 or monotonic (CLOCK_MONOTONIC), 1 or realtime (CLOCK_REALTIME); cntvct (the ARM \
                     generic timer) exists only on aarch64 and this rtlat is built for {}",
                    rtlat_arm64::TARGET_ARCH
                )
            }
        }
        Opt::Distance => format!("a distance of 0 to {MAX_INTERVAL_US} µs"),
        Opt::Duration => format!(
            "a whole number of seconds, optionally followed by s, m, h or d (e.g. 30, 10s, 5m, 2h, 1d), at most {MAX_DURATION_SECS} s"
        ),
        Opt::Latency => format!("a PM QoS latency of 0 to {MAX_PM_QOS_US} µs"),
        Opt::Histogram | Opt::Histofall => format!(
            "a histogram size of 1 to {MAX_HISTOGRAM_BUCKETS} buckets (µs, or ns with -N/--unit ns)"
        ),
        Opt::Histfile | Opt::Json | Opt::Fifo => "a file path".into(),
        Opt::Interval => format!("an interval of 1 to {MAX_INTERVAL_US} µs"),
        Opt::Loops => "a number of loops, 0 for no limit".into(),
        Opt::Oscope => "a reduction factor".into(),
        Opt::Priority => format!("a priority of 1 to {MAX_RT_PRIORITY}"),
        Opt::SpikeNodes => format!("a number of spikes to keep, 1 to {MAX_SPIKE_NODES}"),
        Opt::Threads => format!("a thread count of 1 to {MAX_THREADS} (bare -t: one per CPU)"),
        Opt::Policy => "one of other, normal, batch, idle, fifo, rr".into(),
        Opt::DeepestIdleState => format!(
            "an idle state number of 0 to {MAX_IDLE_STATE} (states above it are disabled for the run), or -1 (all of them)"
        ),
        Opt::FailAbove => format!("a latency of 0 to {MAX_THRESHOLD} µs"),
        Opt::Unit => "us or ns".into(),
        Opt::Timer => "one of abs, rel, nanosleep, posix, timerfd".into(),
        Opt::Governor => {
            "a cpufreq governor name: letters, digits, _ or -, at most 15 characters (e.g. performance)".into()
        }
        Opt::Profile => format!("a board profile: {}", profile::names()),
        Opt::DefaultSystem
        | Opt::Laptop
        | Opt::Mlockall
        | Opt::RefreshOnMax
        | Opt::Nsecs
        | Opt::Quiet
        | Opt::Priospread
        | Opt::Relative
        | Opt::Resolution
        | Opt::System
        | Opt::Smi
        | Opt::Smp
        | Opt::Tracemark
        | Opt::Unbuffered
        | Opt::Verbose
        | Opt::DbgCyclictest
        | Opt::Nanosleep
        | Opt::Help
        | Opt::PosixTimers => "no value".into(),
    }
}

struct Expectations;

impl Describe<Opt> for Expectations {
    fn expected(&self, id: Opt) -> String {
        expected(id)
    }
}

fn invalid(id: Opt, value: &str) -> UsageError {
    UsageError::InvalidValue {
        option: name(id),
        value: value.to_owned(),
        expected: expected(id),
    }
}

/// A whole number within `min..=max`, or the option's usage error.
fn number(id: Opt, value: &str, min: u64, max: u64) -> Result<u64, UsageError> {
    match values::c_number(value) {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(_) | Err(NumberError::NotANumber | NumberError::TooLarge) => Err(invalid(id, value)),
    }
}

/// A number that fits u32 (callers pass `max` within u32).
fn number_u32(id: Opt, value: &str, min: u32, max: u32) -> Result<u32, UsageError> {
    let n = number(id, value, u64::from(min), u64::from(max))?;
    u32::try_from(n).map_err(|_| invalid(id, value))
}

/// A path value: non-empty and not looking like a forgotten value (`--json -q`).
fn path(id: Opt, value: &str) -> Result<PathBuf, UsageError> {
    if value.is_empty() {
        return Err(invalid(id, value));
    }
    if value.starts_with('-') {
        return Err(UsageError::InvalidValue {
            option: name(id),
            value: value.to_owned(),
            expected: format!(
                "a file path, not something that looks like an option (write ./{value} if that is the file)"
            ),
        });
    }
    Ok(PathBuf::from(value))
}

fn policy(value: &str) -> Option<Policy> {
    match value.to_ascii_lowercase().as_str() {
        "other" | "normal" => Some(Policy::Other),
        "batch" => Some(Policy::Batch),
        "idle" => Some(Policy::Idle),
        "fifo" => Some(Policy::Fifo),
        "rr" => Some(Policy::RoundRobin),
        _ => None,
    }
}

/// Parses the words after `rtlat run` (or after `cyclictest`), without the program name.
///
/// `invoked_as_cyclictest`: rtlat was run under the name `cyclictest`; its own options
/// (`--fail-above`, `--unit`, `--timer`, `--governor`, `--profile`) are then refused.
pub fn parse(args: &[String], invoked_as_cyclictest: bool) -> Result<Parsed, UsageError> {
    let found = getopt::scan(args, &specs(invoked_as_cyclictest), &Expectations)?;
    if found.iter().any(|f| f.id == Opt::Help) {
        return Ok(Parsed::Help);
    }

    let mut config = RunConfig {
        invoked_as_cyclictest,
        ..RunConfig::default()
    };
    // What the post-parse checks need to know beyond the config itself.
    let mut thread_count_given = None;
    let mut affinity_set_given = None;
    let mut affinity_after_smp = false;
    let (mut relative, mut system, mut posix) = (false, false, false);
    let mut timer = None;
    let mut nsecs = false;
    let mut unit = None;
    let mut aligned = false;
    let mut secaligned = false;
    let mut spike_nodes_given = false;
    let mut histogram_size = None;
    let mut with_total = false;
    let mut priority_text = None;
    let mut board = None;
    // The settings a profile fills in, where the command line gave them (in any order).
    let gave = |id: Opt| found.iter().any(|f| f.id == id);
    let given = Given {
        threads: gave(Opt::Threads),
        affinity: gave(Opt::Affinity),
        smp: gave(Opt::Smp),
        priority: gave(Opt::Priority),
        policy: gave(Opt::Policy),
    };

    for item in found {
        let id = item.id;
        // An optional value left out (`-t`), as opposed to given empty (`--threads=`).
        let bare = item.value.is_none();
        let value = item.value.unwrap_or_default();
        let value = value.as_str();
        match id {
            Opt::Help => {}
            // cyclictest ignores -a after -S (and warns below).
            Opt::Affinity if config.smp => affinity_after_smp = true,
            Opt::Affinity => {
                if bare {
                    config.affinity = None;
                    affinity_set_given = None;
                } else {
                    config.affinity = Some(CpuSpec::parse(value, &name(id))?);
                    affinity_set_given = Some(value.to_owned());
                }
            }
            Opt::Aligned | Opt::Secaligned => {
                let offset_us = if bare {
                    0
                } else {
                    number(id, value, 0, MAX_INTERVAL_US)?
                };
                if id == Opt::Aligned {
                    aligned = true;
                    config.align = Some(Align::Aligned { offset_us });
                } else {
                    secaligned = true;
                    config.align = Some(Align::SecAligned { offset_us });
                }
            }
            Opt::Breaktrace => config.breaktrace = Some(number(id, value, 1, MAX_THRESHOLD)?),
            Opt::Clock => {
                let trimmed = values::trim_c_space(value);
                config.clock = match trimmed {
                    _ if values::c_number(trimmed) == Ok(0) => Clock::Monotonic,
                    _ if values::c_number(trimmed) == Ok(1) => Clock::Realtime,
                    // Symbolic names, as newer cyclictest and clock_gettime(2) call them.
                    _ if trimmed.eq_ignore_ascii_case("monotonic")
                        || trimmed.eq_ignore_ascii_case("CLOCK_MONOTONIC") =>
                    {
                        Clock::Monotonic
                    }
                    _ if trimmed.eq_ignore_ascii_case("realtime")
                        || trimmed.eq_ignore_ascii_case("CLOCK_REALTIME") =>
                    {
                        Clock::Realtime
                    }
                    // rtlat's own value: cyclictest's -c takes a number only.
                    #[cfg(target_arch = "aarch64")]
                    "cntvct" if invoked_as_cyclictest => {
                        return Err(UsageError::RtlatOnly {
                            option: "-c cntvct".into(),
                        });
                    }
                    #[cfg(target_arch = "aarch64")]
                    "cntvct" => Clock::Cntvct,
                    _ => return Err(invalid(id, value)),
                }
            }
            Opt::DefaultSystem => config.default_system = true,
            Opt::Distance => config.distance = Some(number(id, value, 0, MAX_INTERVAL_US)?),
            Opt::Duration => {
                let duration =
                    values::duration(value, MAX_DURATION_SECS).ok_or_else(|| invalid(id, value))?;
                config.duration = (!duration.is_zero()).then_some(duration);
            }
            Opt::Latency => {
                config.latency_target_us = Some(number_u32(id, value, 0, MAX_PM_QOS_US)?);
            }
            Opt::Histogram | Opt::Histofall => {
                histogram_size = Some(number_u32(id, value, 1, MAX_HISTOGRAM_BUCKETS)?);
                with_total |= id == Opt::Histofall;
            }
            Opt::Histfile => config.histfile = Some(path(id, value)?),
            Opt::Interval => config.interval_us = number(id, value, 1, MAX_INTERVAL_US)?,
            // `--json -` writes the document to stdout, as cyclictest does.
            Opt::Json if value == "-" => config.json = Some(PathBuf::from("-")),
            Opt::Json => config.json = Some(path(id, value)?),
            Opt::Laptop => config.laptop = true,
            Opt::Loops => config.loops = number(id, value, 0, u64::MAX)?,
            Opt::MainAffinity => {
                config.main_affinity = Some(CpuSpec::parse(value, &name(id))?);
            }
            Opt::Mlockall => config.mlockall = true,
            Opt::RefreshOnMax => config.refresh_on_max = true,
            Opt::Nsecs => nsecs = true,
            // Checked after the loop, against the final --policy.
            Opt::Priority => priority_text = Some(value.to_owned()),
            Opt::Quiet => config.quiet = true,
            Opt::Priospread => config.priospread = true,
            Opt::Relative => relative = true,
            Opt::System => system = true,
            Opt::PosixTimers => posix = true,
            // rtlat reads no SMI counter: it fails as cyclictest does on a processor without
            // one (under the name cyclictest, with cyclictest's FATAL line and status 1).
            Opt::Smi => {
                return Err(UsageError::NotHere {
                    option: name(id),
                    reason: if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
                        "SMI counting is not supported here: rtlat reads no SMI counter (cyclictest reads one on Intel CPUs with the msr driver); run without --smi".into()
                    } else {
                        "SMI counting is not supported: it needs an x86 processor; run without --smi".into()
                    },
                });
            }
            Opt::DeepestIdleState => {
                // -1: no idle state at all; N: none deeper than state N.
                let state = match values::trim_c_space(value) {
                    "-1" => -1,
                    _ => number_u32(id, value, 0, MAX_IDLE_STATE)? as i32,
                };
                config.deepest_idle_state = Some(state);
            }
            Opt::Smp => config.smp = true,
            Opt::Spike => config.spike = Some(number(id, value, 1, MAX_THRESHOLD)?),
            Opt::SpikeNodes => {
                config.spike_nodes = number_u32(id, value, 1, MAX_SPIKE_NODES)?;
                spike_nodes_given = true;
            }
            Opt::Threads if config.smp => {
                config
                    .warnings
                    .push("WARN: -t ignored due to smp mode".into());
            }
            Opt::Threads => {
                if bare {
                    config.threads = Threads::PerCpu;
                    thread_count_given = None;
                } else {
                    config.threads = Threads::Count(number_u32(id, value, 1, MAX_THREADS)?);
                    thread_count_given = Some(value.to_owned());
                }
            }
            Opt::Tracemark => config.tracemark = true,
            Opt::Unbuffered => config.unbuffered = true,
            Opt::Verbose => config.verbose = true,
            Opt::Policy => config.policy = Some(policy(value).ok_or_else(|| invalid(id, value))?),
            Opt::Fifo => config.fifo = Some(path(id, value)?),
            Opt::Oscope | Opt::Resolution | Opt::Nanosleep | Opt::DbgCyclictest => {
                return Err(unsupported(id));
            }
            Opt::FailAbove | Opt::Unit | Opt::Timer | Opt::Governor | Opt::Profile
                if invoked_as_cyclictest =>
            {
                return Err(UsageError::RtlatOnly { option: name(id) });
            }
            Opt::Profile => {
                board = Some(BoardProfile::by_name(value).ok_or_else(|| invalid(id, value))?);
            }
            Opt::FailAbove => config.fail_above_us = Some(number(id, value, 0, MAX_THRESHOLD)?),
            Opt::Governor if !crate::cli::cpufreq::is_governor_name(value) => {
                return Err(invalid(id, value));
            }
            Opt::Governor => config.governor = Some(value.to_owned()),
            Opt::Unit => {
                unit = Some(match value {
                    "us" | "µs" => Unit::Us,
                    "ns" => Unit::Ns,
                    _ => return Err(invalid(id, value)),
                });
            }
            Opt::Timer => {
                timer = Some(match value {
                    "abs" | "absolute" => TimerKind::Absolute,
                    "rel" | "relative" => TimerKind::Relative,
                    "nanosleep" => TimerKind::NanoSleep,
                    "posix" => TimerKind::PosixTimer,
                    "timerfd" => TimerKind::TimerFd,
                    _ => return Err(invalid(id, value)),
                });
            }
        }
    }

    // -S: one thread per available CPU, pinned round-robin. As in cyclictest, -t and -a are
    // ignored with a warning (a -t N before -S is ignored silently by cyclictest; rtlat warns
    // too). Under the name cyclictest, -a before -S is cyclictest's fatal error (see
    // `cyclictest_refusal`).
    if config.smp {
        if thread_count_given.is_some() {
            config
                .warnings
                .push("WARN: -t ignored due to smp mode".into());
        }
        if affinity_after_smp || affinity_set_given.is_some() {
            config
                .warnings
                .push("WARN: -a ignored due to smp mode".into());
        }
        config.threads = Threads::PerCpu;
        config.affinity = None;
    }

    if let Some(buckets) = histogram_size {
        config.histogram = Some(Histogram {
            buckets,
            with_total,
        });
        // With a histogram every thread uses the same interval (distance 0), as cyclictest
        // says when -d was given.
        if config.distance.is_some() {
            config
                .warnings
                .push("WARN: distance is ignored and set to 0, if histogram enabled".into());
        }
    }

    if let Some(text) = priority_text {
        let priority = number(Opt::Priority, &text, 0, u64::from(MAX_RT_PRIORITY))
            .map_err(|_| priority_error(&text, config.policy))?;
        // At most 99, so it fits.
        config.priority = Some(u8::try_from(priority).unwrap_or(MAX_RT_PRIORITY));
    }
    if let Some(board) = board {
        profile::fill_in(&mut config, board, &given);
    }
    settle_priority(&mut config);
    if system && posix {
        // cyclictest's words; -s wins.
        config.warnings.extend(
            [
                "WARN: The system option requires clock_nanosleep",
                "WARN: and is not compatible with posix_timers",
                "WARN: Using clock_nanosleep",
            ]
            .map(String::from),
        );
        posix = false;
    }
    config.timer = resolve_timer(relative, system, posix, timer)?;
    #[cfg(target_arch = "aarch64")]
    if config.clock == Clock::Cntvct && config.timer != TimerKind::Absolute {
        // Named as typed: -s, -x, -r, or --timer KIND.
        let with = [
            (system, Opt::System),
            (posix, Opt::PosixTimers),
            (relative, Opt::Relative),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then(|| name(flag)))
        .unwrap_or_else(|| format!("--timer {}", timer_name(config.timer)));
        return Err(UsageError::Conflict {
            option: "-c/--clock cntvct".into(),
            with,
            reason: "the generic-timer clock sleeps to absolute deadlines only (--timer abs)"
                .into(),
        });
    }
    config.unit = match (nsecs, unit) {
        (true, Some(Unit::Us)) => {
            return Err(UsageError::Conflict {
                option: "--unit us".into(),
                with: name(Opt::Nsecs),
                reason: "-N prints nanoseconds; drop one of them".into(),
            });
        }
        (true, _) => Unit::Ns,
        (false, unit) => unit.unwrap_or(Unit::Us),
    };

    if aligned && secaligned {
        return Err(UsageError::Conflict {
            option: name(Opt::Aligned),
            with: name(Opt::Secaligned),
            reason: "a run is aligned one way; keep one of them".into(),
        });
    }
    if config.latency_target_us.is_some() && (config.laptop || config.default_system) {
        let with = if config.laptop {
            "--laptop"
        } else {
            "--default-system"
        };
        return Err(UsageError::Conflict {
            option: name(Opt::Latency),
            with: with.into(),
            reason: format!("{with} leaves /dev/cpu_dma_latency alone; drop one of them"),
        });
    }
    let requires = |option: Opt, needs: &str| {
        Err(UsageError::Requires {
            option: name(option),
            needs: needs.into(),
        })
    };
    if config.histfile.is_some() && config.histogram.is_none() {
        return requires(Opt::Histfile, "-h/--histogram or -H/--histofall");
    }
    if config.tracemark && config.breaktrace.is_none() {
        return requires(Opt::Tracemark, "-b/--breaktrace");
    }
    if spike_nodes_given && config.spike.is_none() {
        return requires(Opt::SpikeNodes, "--spike");
    }
    Ok(Parsed::Run(config))
}

fn unsupported(id: Opt) -> UsageError {
    let reason = match id {
        Opt::Oscope => "use -v and reduce the samples with another tool",
        Opt::Resolution => "rtlat reports clock facts in `rtlat audit`",
        Opt::DbgCyclictest => "it prints cyclictest's internal state",
        Opt::Nanosleep => {
            "cyclictest 2.0 removed it, as clock_nanosleep is the default sleep; drop -n"
        }
        _ => {
            "rtlat leaves idle states to the system; pin them with the kernel command line or tuned"
        }
    };
    UsageError::Unsupported {
        option: name(id),
        reason: reason.into(),
    }
}

fn priority_error(value: &str, policy: Option<Policy>) -> UsageError {
    let policy = policy.filter(|p| p.is_realtime()).unwrap_or(Policy::Fifo);
    UsageError::InvalidValue {
        option: name(Opt::Priority),
        value: value.to_owned(),
        expected: format!(
            "a priority of 1 to {MAX_RT_PRIORITY} for {} (0: the default)",
            policy.sched_name()
        ),
    }
}

/// `-p` and `--priospread` against `--policy`, whatever their order, as cyclictest settles
/// them: `-p 0` with no policy or a real-time one means the default priority (threads + 1,
/// told in a notice by [`RunConfig::plan`]); a priority (or `--priospread`) with
/// `--policy other|batch|idle` switches to SCHED_FIFO with cyclictest's warning.
fn settle_priority(config: &mut RunConfig) {
    match (config.policy, config.priority) {
        (None, Some(0)) => {
            config.priority = None;
            config.policy = Some(Policy::Fifo);
        }
        (Some(policy), Some(0)) if policy.is_realtime() => config.priority = None,
        (Some(policy), Some(priority))
            if !policy.is_realtime() && (priority != 0 || config.priospread) =>
        {
            config.warnings.push(POLICY_MISMATCH.into());
            config.policy = Some(Policy::Fifo);
            if priority == 0 {
                config.priority = None;
            }
        }
        (Some(policy), None) if !policy.is_realtime() && config.priospread => {
            config.warnings.push(POLICY_MISMATCH.into());
            config.policy = Some(Policy::Fifo);
        }
        _ => {}
    }
}

/// cyclictest's words when a priority comes with a non-real-time policy.
const POLICY_MISMATCH: &str = "policy and priority don't match: setting policy to SCHED_FIFO";

/// `-r`, `-s`, `-x` and `--timer` into one timer, refusing contradictions.
fn resolve_timer(
    relative: bool,
    system: bool,
    posix: bool,
    timer: Option<TimerKind>,
) -> Result<TimerKind, UsageError> {
    if system && posix {
        return Err(UsageError::Conflict {
            option: name(Opt::System),
            with: name(Opt::PosixTimers),
            reason: "-s sleeps with nanosleep, -x with a POSIX timer; keep one".into(),
        });
    }
    if relative && posix {
        return Err(UsageError::Conflict {
            option: name(Opt::Relative),
            with: name(Opt::PosixTimers),
            reason:
                "a POSIX timer (-x) is periodic, so there is no relative mode to pick; keep one"
                    .into(),
        });
    }
    let (from_flags, flag) = if system {
        (TimerKind::NanoSleep, Some(Opt::System))
    } else if posix {
        (TimerKind::PosixTimer, Some(Opt::PosixTimers))
    } else if relative {
        (TimerKind::Relative, Some(Opt::Relative))
    } else {
        (TimerKind::Absolute, None)
    };
    match (timer, flag) {
        (None, _) => Ok(from_flags),
        (Some(timer), None) => Ok(timer),
        (Some(timer), Some(_)) if timer == from_flags => Ok(timer),
        (Some(timer), Some(flag)) => Err(UsageError::Conflict {
            option: format!("--timer {}", timer_name(timer)),
            with: name(flag),
            reason: format!(
                "{} means --timer {}; keep one",
                name(flag),
                timer_name(from_flags)
            ),
        }),
    }
}

// How cyclictest ends on the command lines it refuses (the cyclictest front's statuses).
mod refusal;
pub use refusal::{Refusal, cyclictest_refusal};

#[cfg(test)]
mod tests;
