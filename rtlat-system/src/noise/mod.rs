//! Spike evidence without a tracer: what ran and what fired on the measured CPUs, sampled
//! cheaply and often by a non-real-time thread, and a [verdict](verdict::explain) that names
//! the likely causes of a late wake-up ("why did it spike", issue 16).
//!
//! | idea                           | items                                                   |
//! |--------------------------------|---------------------------------------------------------|
//! | parsers ([`counters`])         | one CPU's column of `/proc/interrupts`, `/proc/softirqs`, `/proc/schedstat`; task `schedstat`/`stat`/`status` fields |
//! | intervals ([`interval`])       | [`Interval`] (per-CPU deltas), [`IntervalRing`] (bounded) |
//! | the sampler ([`sampler`])      | [`Sampler`], [`SamplerThread`], [`Config`], [`Catalog`] |
//! | the verdict ([`verdict`])      | [`Spike`], [`Cause`], [`explain`]     |
//!
//! Files are read through a [`Facts`](crate::Facts) root, so tests can use captured trees;
//! every file is read into a buffer of fixed size (4 MiB for `/proc/interrupts`, 4 KiB for
//! the others).
//!
//! # What one interval holds, per measured CPU
//!
//! Interrupts per IRQ line and softirqs per type (deltas of that CPU's column), `schedule()`
//! calls (`/proc/schedstat`, with `CONFIG_SCHEDSTATS`), the tasks that ran there with their
//! policy, priority and time on a CPU (each task's `schedstat` delta, placed by the CPU its
//! `stat` names at the end of the interval: a task that moved during the interval is placed
//! on its last CPU), idle-state entries and residency, `scaling_cur_freq`, thermal throttling
//! counts; and per measuring thread, its preemptions (`nonvoluntary_ctxt_switches`) and its CPU
//! at both ends (a migration).
//!
//! # Period and cost
//!
//! The default period is 5 ms ([`Config::default`]): a spike's window is widened to the 5 ms
//! intervals around it, and a verdict compares that window with the usual rates of the 2 s
//! kept ([`Config::history`]). Finer periods place a spike better and cost in proportion.
//!
//! The cost is dominated by one `pread` of each task's `schedstat` (files kept open, about
//! 1.1–1.5 µs a task). Measured on the 2-CPU KVM guest these were written on (load 3–4 from
//! other builds, ~100 tasks), release build: **110–150 µs of CPU per sample, 2.2–3.0 % of
//! one housekeeping CPU at 5 ms** (`cargo test --release -p rtlat-system --test tests
//! noise::the_sampler -- --nocapture`; a debug build takes about twice that). The cost grows
//! with the number of tasks on the machine (not with the number of measured CPUs, beyond
//! their idle-state files), and with how often tasks are created (each creation triggers a
//! rescan of `/proc`).
//!
//! Known blind spots: a task created and gone within one period, the last interval of a task
//! that ended before the next sample, and a task that ran on the measured CPU and moved
//! within the interval (it is placed on the CPU its `stat` names at the sample). The
//! tracer path of issue 16 (osnoise/timerlat) has none of these.
//!
//! # Correlation with the measuring loop
//!
//! The loop does not read any of this and must not change beyond one store per cycle. A
//! spike is given to [`explain`] as [`Spike`]: its CPU, the previous wake-up and the late
//! one on `CLOCK_MONOTONIC` (the samples' clock).
//!
//! - **The run's maximum needs no store at all**: rtlat-core's `CycleEngine::max()` already
//!   keeps the worst latency and its cycle `k`; the schedule is `deadline(k) = start +
//!   k·interval`, so the late wake-up is `deadline(k) + max` and the previous wake-up is no
//!   earlier than `deadline(k − 1)`, which gives the window `[deadline(k−1), deadline(k) +
//!   max]` ([`Spike::of_cycle`]). The main thread asks the sampler when the run ends (the
//!   ring keeps 2 s: see "What is left" 1).
//! - **Every spike above a threshold needs no store either**: `rtlat run --spike=<µs>`
//!   (cyclictest's option) already makes the loop keep `(latency, wake-up ticks)` of every
//!   cycle above the trigger, up to `--spike-nodes`, on the path of its optional features
//!   (rtlat-engine `run/thread.rs`, `RunCycle::after`, `spike_above_ns`). `--explain` can set
//!   that trigger to `--explain-above` and turn each entry into a spike with
//!   [`Spike::of_wake`]. The loop is unchanged: a run with `--explain` runs the code of a run
//!   with `--spike`. The list is read when the thread ends, so the evidence must still be
//!   there then: see "What is left" 1.
//! - **Only if evidence must be matched while the run goes** (a live verdict in `rtlat
//!   monitor`): one store per cycle, the loop writing its latency (an `AtomicI32`, relaxed)
//!   into slot `k mod 1024` of a ring the sampler scans each period. Not built: it must pass
//!   `benches/vs-cyclictest.sh` (instructions ≤ 0.70× cyclictest's). A cheaper variant for
//!   "each second's worst": the per-second window already compares each latency with its
//!   maximum; keeping that maximum's cycle is a store only when the maximum grows.
//!
//! The run's clock must be `CLOCK_MONOTONIC` (the default) for the times to match; with
//! another clock, offset them by the difference of the two clocks read together.
//!
//! # What is left (issue 16)
//!
//! 1. Evidence for a whole run: the ring keeps 2 s, a run lasts longer. Keep, beside the ring,
//!    the *notable* intervals only (those the verdict's bars would flag against the running
//!    baseline, and any with a preemption, a migration or throttling), in a second bounded
//!    ring, plus the baseline rates; explain the `--spike` list at the end against them.
//! 2. `rtlat run --explain [--explain-above µs]`: start [`SamplerThread`] on the housekeeping
//!    CPUs for the measured CPUs and threads (their tids come from the engine's set-up), print
//!    one verdict per spike and for the maximum; then `thread.N.rtlat.spikes[]` in the JSON,
//!    `rtlat compare`, `rtlat plot`, `rtlat monitor` and `rtlat servo`.
//! 3. The tracer path (osnoise/timerlat) where the kernel has it.
//! 4. Accuracy over 20 injected spikes of each kind (the live tests pass 20 of 20 each here).

pub mod counters;
pub mod interval;
pub mod sampler;
mod source;
pub mod tracer;
pub mod verdict;
pub mod watch;

pub use interval::{CpuInterval, Interval, IntervalRing, TaskRun, ThreadInterval};
pub use sampler::{Catalog, Config, IdleName, IrqLine, Sampler, SamplerThread, Watched};
pub use tracer::{NoiseEvent, NoiseKind, NoiseTrace, TracerPath};
pub use verdict::{Cause, Spike, explain};
pub use watch::{Findings, SpikeRecord, SpikeWatch, Threshold, Verdict, WatchedThread};
