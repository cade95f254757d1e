//! Spike evidence, with or without a tracer: what ran and what fired on the measured CPUs, sampled
//! cheaply and often by a non-real-time thread, and a [verdict](verdict::explain) that names
//! the likely causes of a late wake-up ("why did it spike", issue 16).
//!
//! | idea                           | items                                                   |
//! |--------------------------------|---------------------------------------------------------|
//! | parsers ([`counters`])         | one CPU's column of `/proc/interrupts`, `/proc/softirqs`, `/proc/schedstat`; task `schedstat`/`stat`/`status` fields |
//! | intervals ([`interval`])       | [`Interval`] (per-CPU deltas), [`IntervalRing`] (bounded) |
//! | the sampler ([`sampler`])      | [`Sampler`], [`SamplerThread`], [`Config`], [`Catalog`] |
//! | the verdict ([`verdict`])      | [`Spike`], [`Cause`], [`explain`]     |
//! | the watch ([`watch`])          | [`SpikeWatch`], [`Threshold`], [`Findings`] |
//! | the tracer path ([`tracer`])   | [`tracer::probe`], [`NoiseTrace`], [`tracer::causes`] |
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
//! The loop does not read any of this and adds one store per cycle: its wake-up time into
//! slot `k mod 4096` of its tap (rtlat-engine `tap`). The main thread reads the taps every
//! 10 ms, rebuilds each cycle's deadline exactly as the cycle engine moves it (so every
//! latency is the engine's own), and gives every cycle to a [`SpikeWatch`]: a latency above
//! the threshold, or a new maximum, waits there until the sampler has sampled past its
//! wake-up, then becomes a [`Spike`] (the previous deadline to the late wake-up) and is
//! explained while its evidence is in the ring (2 s). Verdicts take at most 2 ms of the main
//! thread per pass (the sampler waits meanwhile) and are reused for spikes in the same
//! sampler interval.
//!
//! The run's clock must be `CLOCK_MONOTONIC` (the default; `rtlat run --explain` refuses
//! another), the clock the samples are taken on.
//!
//! # The tracer path
//!
//! Where the kernel has the osnoise tracer (with its `OSNOISE_WORKLOAD` option), [`tracer`]
//! runs it on the measured CPUs without its own workload, and its irq, softirq, thread and
//! NMI noise events within a spike's window are added to the verdict (exact times and
//! durations, and no blind spot for short tasks); on a break (`-b`) its trace is saved. This
//! machine's kernel has no osnoise tracer: that path is tested against a constructed tracefs
//! tree only (rtlat-system `tests/tracer.rs`).

pub mod breakdown;
pub mod counters;
pub mod hwlat;
pub mod interval;
pub mod linux_events;
pub mod sampler;
mod source;
pub mod timerlat;
pub mod tracer;
pub mod verdict;
pub mod watch;

pub use interval::{CpuInterval, Interval, IntervalRing, TaskRun, ThreadInterval};
pub use sampler::{Catalog, Config, IdleName, IrqLine, Sampler, SamplerThread, Watched};
pub use tracer::{NoiseEvent, NoiseKind, NoiseTrace, TracerPath};
pub use verdict::{Cause, Spike, explain};
pub use watch::{Findings, SpikeRecord, SpikeWatch, Threshold, Verdict, WatchedThread};
