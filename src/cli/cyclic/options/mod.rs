//! The options of `rtlat run` (and of rtlat invoked as `cyclictest`): cyclictest's options,
//! same spellings, same meanings, same defaults, parsed into a [`RunConfig`] and resolved into
//! a per-thread [`Plan`].
//!
//! Two steps:
//!
//! 1. [`parse()`] reads the words of the command line (no system access): every value is checked
//!    and every contradiction refused here, as one [`UsageError`] line naming the option and
//!    what it accepts. The CLI prints it and exits with status 2.
//! 2. [`RunConfig::plan`] takes the machine's CPUs ([`rtlat_linux::ProcessCpus`]: the online
//!    CPUs, which `-a`/`--mainaffinity` may name, isolated ones included, and the process's
//!    default set, its affinity mask; tests pass fixed sets) and derives what cyclictest
//!    derives after parsing: the thread count for bare `-t` and `-S`, each thread's CPU,
//!    priority and interval, and the CPUs of `-a`/`--mainaffinity` (refused if not online).
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
//! that remain are listed in one place, `cli::run::usage::DIFFERENCES` (printed by
//! `cyclictest --help`, and in the README).
//!
//! rtlat's own options (`--fail-above`, `--unit`, `--timer`, `--governor`, `--profile`) must
//! be spelled in full, so that `rtlat run` abbreviates long options exactly as cyclictest
//! does; invoked as `cyclictest`, rtlat refuses them. `--profile NAME` fills in the settings
//! the command line leaves out from a board profile (see [`profile`]).
//!
//! Kept as cyclictest does it (checked against cyclictest 2.40): without `-a`, thread `i` is
//! still pinned to the `i`-th CPU of the default set (round-robin), so an isolated CPU is
//! measured only when named; `-S` keeps the default distance of
//! 500 µs (only `-h`/`-H` force 0) and does not stop `--priospread`; `--policy fifo|rr`
//! without `-p`, and `--priospread` without `-p`, use priority threads + 1 (reported as a
//! notice); the last of a repeated option wins; `-D 0` and `-l 0` mean no limit.

// The one usage error of every command, re-exported where the run's code finds it.
pub use rtlat::options::UsageError;

use super::values;

mod config;
mod cpu_spec;
mod parse;
mod plan;
mod settle;
// --profile NAME: a board profile as the run's defaults.
pub mod profile;
mod table;

pub use config::{
    Align, Clock, Histogram, Parsed, Policy, RunConfig, RunProfile, Threads, TimerKind, Unit,
    board_names, timer_name,
};
pub use cpu_spec::{CpuSpec, Unusable};
pub use parse::{given, parse};
pub use plan::{Plan, ThreadPlan, check_writable_parent, cpuset_refused};
use table::{Expectations, Opt, specs};
#[cfg(test)]
use table::{SPECS, spec_of};

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

// How cyclictest ends on the command lines it refuses (the cyclictest front's statuses).
mod refusal;
pub use refusal::{NO_ALLOWABLE_CPUS, Refusal, cyclictest_refusal};

#[cfg(test)]
mod tests;
