//! `rtlat servo --json`: each thread's interval jitter (LinuxCNC's definition) and lateness,
//! the verdict against LinuxCNC's thresholds. Times in ns.

use serde::Serialize;

use super::Entries;

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// rtlat's version.
    pub rtlat_version: String,
    /// `"servo"`.
    pub command: String,
    /// `"ns"`.
    pub unit: String,
    /// The CPU the threads ran on.
    pub cpu: u64,
    /// How long the run took, seconds.
    pub duration_s: f64,
    /// How long it was asked to take (`-D`), seconds.
    pub requested_duration_s: Option<u64>,
    /// The threads by name (`servo`, `base`).
    pub threads: Entries<Thread>,
    /// The verdict (`null` when the run was too short to measure an interval).
    pub verdict: Option<Verdict>,
    /// LinuxCNC's thresholds on the maximum jitter.
    pub thresholds_ns: Thresholds,
    /// With `--timerlat`: the timerlat tracer's figures on the threads' CPU, its own threads
    /// woken at the servo period (left out without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timerlat: Option<super::rtlat::Timerlat>,
    /// How the machine was tuned as the threads started ([`super::provenance`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<super::provenance::Provenance>,
}

/// One thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thread {
    /// Its period.
    pub period_ns: u64,
    /// The period asked for.
    pub requested_period_ns: u64,
    /// `"SCHED_FIFO"`.
    pub policy: String,
    /// Its real-time priority.
    pub priority: i32,
    /// Periods run.
    pub ticks: u64,
    /// Shortest interval between two ticks.
    pub min_interval: Option<u64>,
    /// Longest interval between two ticks.
    pub max_interval: Option<u64>,
    /// Largest departure of an interval from the period (LinuxCNC's max jitter).
    pub max_jitter: Option<u64>,
    /// The last interval.
    pub last_interval: Option<u64>,
    /// Missed periods.
    pub overruns: u64,
    /// Sum of the intervals' departures from the period.
    pub cumulative_error: i64,
    /// Lateness against the ideal schedule.
    pub lateness: Lateness,
    /// The rating of the max jitter (`null` without an interval).
    pub rating: Option<String>,
    /// Allocations while measuring.
    pub allocations_while_measuring: u64,
    /// Minor page faults while measuring.
    pub minor_page_faults_while_measuring: u64,
    /// `--explain` only: how the causes were looked for (the sampler's period and CPUs, the
    /// tracer path's state), as `rtlat run`'s `explain` object without its threshold (servo
    /// explains each thread's worst run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<super::rtlat::Explain>,
    /// `--explain` only: the run whose late wake-up made the max jitter (`cycle`: its tick,
    /// `latency`: its lateness), with its likely causes, as `rtlat run`'s spikes (one entry;
    /// none without an interval).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spikes: Option<Vec<super::rtlat::Spike>>,
}

/// Lateness against the ideal schedule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lateness {
    /// Smallest.
    pub min: Option<i64>,
    /// Largest.
    pub max: Option<i64>,
    /// Mean.
    pub mean: Option<f64>,
    /// The first tick's.
    pub first: Option<i64>,
    /// The last tick's.
    pub last: Option<i64>,
}

/// The verdict on the worst thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The thread judged.
    pub thread: String,
    /// Its max jitter.
    pub max_jitter: u64,
    /// Its rating key (`good`, `no-software-stepping`, …).
    pub rating: String,
    /// What the rating means.
    pub text: String,
    /// Where the thresholds come from.
    pub documentation: String,
}

/// LinuxCNC's thresholds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thresholds {
    /// Good below this.
    pub good_below: u64,
    /// No software stepping from this.
    pub no_software_stepping_from: u64,
    /// Unusable above this.
    pub unusable_above: u64,
}
