//! Spike evidence from the kernel's osnoise tracer, where the kernel has it (issue 16, "why did
//! it spike"): the noise events (`irq_noise`, `softirq_noise`, `thread_noise`, `nmi_noise`)
//! on the measured CPUs that overlap a late wake-up, ranked as [`Cause`]s, and the trace
//! saved to a file the user named (`-b`'s trace file).
//!
//! | step                         | items                                                  |
//! |------------------------------|--------------------------------------------------------|
//! | is it there                  | [`probe`] → [`TracerPath`]                             |
//! | switch it on, and back off   | [`NoiseTrace::start`], [`NoiseTrace::stop`] (and `Drop`), [`Change`] |
//! | read it                      | [`parse`] → [`Events`] of [`NoiseEvent`]s              |
//! | the evidence for a spike     | [`Events::overlapping`] / [`events_overlapping`], [`causes`] |
//! | keep it                      | [`NoiseTrace::read`] (the CLI writes it atomically)     |
//!
//! # What the tracer adds over the sampler
//!
//! The [sampler](super::sampler) counts what happened per 5 ms interval and guesses from
//! rates; the tracer records each noise event with its exact start and duration (ns), so:
//! the evidence is the events *inside* the spike's window, not the intervals around it;
//! durations are measured, not estimated (an IRQ is not "≈ 5 µs"); NMIs are seen (the sampler
//! cannot see them); and it has none of the sampler's blind spots (a task created and gone
//! within one period, a task that ran and moved within an interval): every thread that ran on
//! the CPU leaves a `thread_noise` event when it leaves it.
//!
//! # How it is used
//!
//! The osnoise tracer restricted to the measured CPUs (`osnoise/cpus`), its four noise events
//! enabled, and its own workload off (`osnoise/options` `NO_OSNOISE_WORKLOAD`, Linux 6.3+):
//! without that option the tracer would run its own busy-looping threads on the measured CPUs
//! and perturb the measurement, so [`NoiseTrace::start`] refuses ([`TracerError::NoWorkloadOption`]).
//! With the workload off, every task that runs on a traced CPU is noise to the tracer,
//! including the measuring thread itself: [`events_overlapping`] leaves out the spike's own
//! thread (`Spike::tid`). The timerlat tracer is not used: it measures with threads of its
//! own.
//!
//! Every setting changed is recorded as a [`Change`] (for the CLI to print) and put back, in
//! reverse order, by [`NoiseTrace::stop`] or when the [`NoiseTrace`] is dropped. Switching
//! `current_tracer` clears the top-level trace buffer (the kernel does so on any tracer
//! change); a trace already running (`current_tracer` other than `nop`) is never taken over,
//! nor is the osnoise family running in a tracefs instance (`rtla timerlat` or `rtla osnoise`
//! in an instance of their own): `osnoise/cpus` and `osnoise/options` are shared by every
//! instance.
//!
//! # Times
//!
//! The trace clock is set to `mono`, so each line's timestamp (when the event was recorded,
//! at the end of the noise) is on `CLOCK_MONOTONIC`, the clock of [`Spike`]. The events'
//! own `start` field is stamped by the tracer with `trace_clock_local()` (the scheduler
//! clock) whatever the trace clock; [`parse`] moves it onto the trace clock with the
//! smallest `timestamp − start − duration` of the events recorded within 10 ms of it: that
//! is the offset of the two clocks for a noise nothing interrupted (an NMI, most IRQs; the
//! tick gives one every few ms), to within the timestamp's 1 µs resolution; the two clocks
//! drift apart by tens of ppm, well under a µs in 10 ms. Where only interrupted noise is
//! near (a thread, with IRQs inside it), the start found is late by at most the time of the
//! noise inside it. Durations are the tracer's: net of the noise that interrupted the
//! noise.
//!
//! # Tested on real kernels
//!
//! The development machines' kernel has no osnoise tracer, so [`probe`] is tested live there
//! for its `Absent` reason, and start/stop against a directory tree built like tracefs. The
//! tracer itself is tested on Debian's 6.1 and 6.12 PREEMPT_RT kernels under QEMU (the
//! workspace's `tests/rt_guest`): a SCHED_FIFO hog on an isolated CPU named, every setting
//! put back, the trace kept. Two things only the real kernels showed: `osnoise/cpus` refuses
//! (`EINVAL`) a read whose buffer is not larger than its text, so settings are read as
//! [`rtlat_linux::kernel_file`] reads kernel files; and with the workload off the tracer
//! reports the idle task's time as `thread_noise swapper/N:0`, the first such event with
//! `start 0` and the uptime as its duration: neither is evidence. The parser is also tested
//! on an excerpt of a real trace (`tests/data/osnoise-6.12-rt-fifo-hog.trace`).

use std::collections::BTreeMap;
use std::fmt;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use rtlat_linux::Errno;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::ftrace::{FtraceError, find_tracefs};
use rtlat_linux::privileges::{access_hint, is_root};

use super::verdict::{Cause, Spike, duration};
use crate::Facts;

/// The tracer's noise events, under `events/osnoise/`.
pub const NOISE_EVENTS: [&str; 4] = ["irq_noise", "softirq_noise", "thread_noise", "nmi_noise"];

/// The most bytes of `trace` read (a trace of a long run can be large; the rest is not read).
pub const MAX_TRACE: usize = 256 << 20;
/// The most bytes of any other tracefs file read.
const MAX_SETTING: usize = 64 << 10;

/// Whether the osnoise tracer can be used on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TracerPath {
    /// It can: the tracefs directory (under the root probed).
    Available(PathBuf),
    /// It cannot, and why, in one line starting with `absent: `.
    Absent(String),
}

/// Whether the osnoise tracer can be used on the system under `facts`' root: tracefs
/// mounted (at `/sys/kernel/tracing` or `<debugfs>/tracing`, found as rtlat's `--tracemark`
/// finds it), `osnoise` in its `available_tracers`, and `osnoise/options` offering
/// `OSNOISE_WORKLOAD` (so the tracer's own workload can be left out). Mounts nothing and
/// changes nothing.
pub fn probe(facts: &Facts) -> TracerPath {
    let tracefs = match find_tracefs(facts.root()) {
        Ok(dir) => dir,
        Err(FtraceError::TracefsNotFound { .. }) => {
            return TracerPath::Absent(
                "absent: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
                    .to_owned(),
            );
        }
        Err(e) => return TracerPath::Absent(format!("absent: {e}")),
    };
    match check(&tracefs) {
        Ok(()) => TracerPath::Available(tracefs),
        Err(e) => TracerPath::Absent(format!("absent: {e}")),
    }
}

/// What [`probe`] and [`NoiseTrace::start`] both require of a tracefs directory.
fn check(tracefs: &Path) -> Result<(), TracerError> {
    let available = read_setting(&tracefs.join("available_tracers"))?;
    if !available.split_whitespace().any(|t| t == "osnoise") {
        return Err(TracerError::NoOsnoise {
            available: available.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }
    let options = read_setting(&tracefs.join("osnoise/options")).unwrap_or_default();
    if workload_option(&options).is_none() {
        return Err(TracerError::NoWorkloadOption);
    }
    Ok(())
}

/// `OSNOISE_WORKLOAD` or `NO_OSNOISE_WORKLOAD`, as `osnoise/options` lists it.
fn workload_option(options: &str) -> Option<&str> {
    options
        .split_whitespace()
        .find(|o| *o == "OSNOISE_WORKLOAD" || *o == "NO_OSNOISE_WORKLOAD")
}

/// The tracer could not be found, started, stopped, read or saved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TracerError {
    /// The kernel has no osnoise tracer.
    #[error("this kernel's tracefs lists no osnoise tracer (available: {available})")]
    NoOsnoise {
        /// The tracers it lists.
        available: String,
    },
    /// The kernel's osnoise tracer cannot leave out its own workload (before Linux 6.3).
    #[error(
        "this kernel's osnoise tracer has no NO_OSNOISE_WORKLOAD option (Linux 6.3+): it would run its own workload threads on the measured CPUs and perturb the measurement, so it is not started"
    )]
    NoWorkloadOption,
    /// Another tracer is running: it is not taken over.
    #[error(
        "{} is `{current}`: a trace is already running; stop it (echo nop > {}) or run without the tracer",
        path.display(),
        path.display()
    )]
    Busy {
        /// `current_tracer`.
        path: PathBuf,
        /// The tracer running.
        current: String,
    },
    /// Another tool runs a tracer of the osnoise family in a tracefs instance: the osnoise
    /// settings (`osnoise/cpus`, `osnoise/options`) are shared by every instance, so they are
    /// not changed under it.
    #[error(
        "{} is `{current}`: another tool (rtla runs its tracers in instances like this) traces with the osnoise family, whose settings every instance shares; not taken over: run --explain once it is done, or without the tracer",
        path.display()
    )]
    InstanceBusy {
        /// The instance's `current_tracer`.
        path: PathBuf,
        /// The tracer running there.
        current: String,
    },
    /// The trace clock `mono` is not offered.
    #[error("{} offers no `mono` clock: event times could not be matched to CLOCK_MONOTONIC", path.display())]
    NoMonoClock {
        /// `trace_clock`.
        path: PathBuf,
    },
    /// No CPU to trace.
    #[error("no CPU to trace")]
    NoCpus,
    /// A tracefs file could not be read or written.
    #[error(
        "cannot {call} {}: {source}{}",
        path.display(),
        access_hint(Errno::from_io(source), is_root(), "tracefs files are root-only")
    )]
    Io {
        /// `read` or `write`.
        call: &'static str,
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Restoring some settings failed (each is named).
    #[error("could not restore: {}", .0.join("; "))]
    Restore(Vec<String>),
}

/// One setting [`NoiseTrace::start`] changed, and what [`NoiseTrace::stop`] writes back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The tracefs file.
    pub path: PathBuf,
    /// What it held (as written back: the selected clock of `trace_clock`, the option's own
    /// word of `osnoise/options`).
    pub was: String,
    /// What was written.
    pub set: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} → {} (restored at the end)",
            self.path.display(),
            self.was,
            self.set
        )
    }
}

/// Settings changed in tracefs, in the order they were made; dropping them (or
/// [`Changes::restore`]) writes each one back, in reverse order. What the osnoise, hwlat and
/// timerlat paths all hold while their tracer runs.
#[derive(Debug)]
pub struct Changes {
    tracefs: PathBuf,
    made: Vec<Change>,
}

impl Changes {
    /// Makes the changes of `plan` in the tracefs directory `tracefs`, in order, each recorded as it is made; on an error, those
    /// already made are put back (the error returned is the write's).
    pub fn apply(tracefs: &Path, plan: Vec<Change>) -> Result<Changes, TracerError> {
        // Built first: if a step fails, dropping it puts back the steps before.
        let mut changes = Changes {
            tracefs: tracefs.to_path_buf(),
            made: Vec::with_capacity(plan.len()),
        };
        for change in plan {
            write_setting(&change.path, &change.set)?;
            changes.made.push(change);
        }
        Ok(changes)
    }

    /// The changes made, in order.
    pub fn as_slice(&self) -> &[Change] {
        &self.made
    }

    /// The tracefs directory they were made in.
    pub fn tracefs(&self) -> &Path {
        &self.tracefs
    }

    /// Puts every change back, in reverse order; all are tried, the failures named together.
    /// Nothing is left to restore afterwards.
    pub fn restore(&mut self) -> Result<(), TracerError> {
        let mut failed = Vec::new();
        while let Some(change) = self.made.pop() {
            if let Err(e) = write_setting(&change.path, &change.was) {
                failed.push(e.to_string());
            }
        }
        if failed.is_empty() {
            Ok(())
        } else {
            Err(TracerError::Restore(failed))
        }
    }
}

impl Drop for Changes {
    fn drop(&mut self) {
        // Nobody is left to tell: a failure was already reported by `restore` if it was called.
        let _ = self.restore();
    }
}

/// The changes that start a tracer, planned against tracefs as it is: what the osnoise, hwlat
/// and timerlat paths share. [`Planner::new`] refuses a tracefs where a tracer other than `nop`
/// runs and plans tracing stopped first; [`Planner::start`] ends with `current_tracer` set
/// and tracing started. A setting that already holds its value is left out.
pub(crate) struct Planner<'a> {
    tracefs: &'a Path,
    plan: Vec<Change>,
}

impl<'a> Planner<'a> {
    /// A plan in `tracefs`: refused where a tracer runs already; tracing stopped first.
    pub(crate) fn new(tracefs: &'a Path) -> Result<Planner<'a>, TracerError> {
        let current_path = tracefs.join("current_tracer");
        let current = read_setting(&current_path)?;
        if current != "nop" {
            return Err(TracerError::Busy {
                path: current_path,
                current,
            });
        }
        let mut planner = Planner {
            tracefs,
            plan: Vec::new(),
        };
        planner.set("tracing_on", "0")?;
        Ok(planner)
    }

    /// Refuses a tracefs where an instance runs a tracer of the osnoise family (its settings,
    /// `osnoise/*`, are every instance's).
    pub(crate) fn refuse_osnoise_instances(&self) -> Result<(), TracerError> {
        match osnoise_in_an_instance(self.tracefs) {
            Some((path, current)) => Err(TracerError::InstanceBusy { path, current }),
            None => Ok(()),
        }
    }

    /// The setting `file` holds now.
    pub(crate) fn read(&self, file: &str) -> Result<String, TracerError> {
        read_setting(&self.tracefs.join(file))
    }

    /// Plans `file` from `was` to `set` (nothing if they are the same).
    pub(crate) fn step(&mut self, file: &str, was: String, set: impl Into<String>) {
        let set = set.into();
        if was != set {
            self.plan.push(Change {
                path: self.tracefs.join(file),
                was,
                set,
            });
        }
    }

    /// Plans `file` from what it holds now to `set`.
    pub(crate) fn set(&mut self, file: &str, set: impl Into<String>) -> Result<(), TracerError> {
        let was = self.read(file)?;
        self.step(file, was, set);
        Ok(())
    }

    /// The plan, ended with `current_tracer` = `tracer` and tracing started.
    pub(crate) fn start(mut self, tracer: &str) -> Vec<Change> {
        self.step("current_tracer", "nop".into(), tracer);
        self.step("tracing_on", "0".into(), "1");
        self.plan
    }
}

/// The osnoise tracer running on the measured CPUs; dropping it restores every setting.
#[derive(Debug)]
pub struct NoiseTrace {
    changes: Changes,
}

impl NoiseTrace {
    /// The changes [`NoiseTrace::start`] would make on `cpus` in the tracefs directory
    /// `tracefs`, in order, without making any (for the CLI to print before a run, or with
    /// `--dry-run`): tracing stopped while it is set up, the trace clock set to `mono`,
    /// `osnoise/cpus` to `cpus`, `NO_OSNOISE_WORKLOAD`, the four noise events enabled,
    /// `current_tracer` set to `osnoise`, tracing started; a setting that already holds its
    /// value is left out. Refuses a kernel without the tracer or without
    /// `NO_OSNOISE_WORKLOAD`, and a tracefs where a tracer other than `nop` runs.
    pub fn plan(tracefs: &Path, cpus: &CpuSet) -> Result<Vec<Change>, TracerError> {
        if cpus.is_empty() {
            return Err(TracerError::NoCpus);
        }
        check(tracefs)?;
        let mut plan = Planner::new(tracefs)?;
        plan.refuse_osnoise_instances()?;
        let clock_path = tracefs.join("trace_clock");
        let clocks = read_setting(&clock_path)?;
        if !clocks
            .split_whitespace()
            .any(|c| c.trim_matches(['[', ']']) == "mono")
        {
            return Err(TracerError::NoMonoClock { path: clock_path });
        }
        let clock = selected_clock(&clocks);
        let options = read_setting(&tracefs.join("osnoise/options"))?;
        let workload = workload_option(&options)
            .ok_or(TracerError::NoWorkloadOption)?
            .to_owned();
        plan.step("trace_clock", clock, "mono");
        plan.set("osnoise/cpus", cpus.to_string())?;
        plan.step("osnoise/options", workload, "NO_OSNOISE_WORKLOAD");
        for event in NOISE_EVENTS {
            plan.set(&format!("events/osnoise/{event}/enable"), "1")?;
        }
        Ok(plan.start("osnoise"))
    }

    /// Starts the osnoise tracer on `cpus` in the tracefs directory `tracefs` (from
    /// [`probe`]): makes the changes of [`NoiseTrace::plan`], in order, each recorded as it
    /// is made ([`NoiseTrace::changes`]). On an error, what was already changed is put back.
    pub fn start(tracefs: &Path, cpus: &CpuSet) -> Result<NoiseTrace, TracerError> {
        Ok(NoiseTrace {
            changes: Changes::apply(tracefs, NoiseTrace::plan(tracefs, cpus)?)?,
        })
    }

    /// The settings changed, in the order they were changed.
    pub fn changes(&self) -> &[Change] {
        self.changes.as_slice()
    }

    /// The tracefs directory.
    pub fn tracefs(&self) -> &Path {
        self.changes.tracefs()
    }

    /// Stops recording (`tracing_on` = 0) and keeps what was recorded: what a break (`-b`)
    /// does before the trace is saved. `tracing_on` is put back by [`NoiseTrace::stop`].
    pub fn pause(&self) -> Result<(), TracerError> {
        write_setting(&self.tracefs().join("tracing_on"), "0")
    }

    /// The trace text (`trace`), at most [`MAX_TRACE`] bytes.
    pub fn read(&self) -> Result<String, TracerError> {
        read_bounded(&self.tracefs().join("trace"), MAX_TRACE)
    }

    /// The noise events recorded so far ([`parse`] of [`NoiseTrace::read`]).
    pub fn events(&self) -> Result<Events, TracerError> {
        Ok(parse(&self.read()?))
    }

    /// Puts every changed setting back, in reverse order; all are tried, the failures are
    /// named together.
    pub fn stop(mut self) -> Result<(), TracerError> {
        self.changes.restore()
    }
}

/// The first tracefs instance (`instances/NAME/`) whose current tracer is of the osnoise
/// family (`osnoise`, `timerlat`: `rtla` runs them in instances of its own), with that
/// tracer; instances that cannot be read are passed over.
fn osnoise_in_an_instance(tracefs: &Path) -> Option<(PathBuf, String)> {
    let mut instances: Vec<PathBuf> = std::fs::read_dir(tracefs.join("instances"))
        .ok()?
        .flatten()
        .map(|entry| entry.path().join("current_tracer"))
        .collect();
    instances.sort();
    instances.into_iter().find_map(|path| {
        let current = read_setting(&path).ok()?;
        matches!(current.as_str(), "osnoise" | "timerlat").then_some((path, current))
    })
}

/// A tracefs file's text, trimmed.
pub(crate) fn read_setting(path: &Path) -> Result<String, TracerError> {
    Ok(read_bounded(path, MAX_SETTING)?.trim().to_owned())
}

/// Read as the kernel expects: `osnoise/cpus` refuses (`EINVAL`) a read whose buffer is not
/// larger than its text ([`rtlat_linux::kernel_file`]).
pub(crate) fn read_bounded(path: &Path, max: usize) -> Result<String, TracerError> {
    rtlat_linux::kernel_file::read_text(path, max).map_err(|source| TracerError::Io {
        call: "read",
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a setting the way `echo value > file` does; never creates a file.
pub(crate) fn write_setting(path: &Path, value: &str) -> Result<(), TracerError> {
    OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .and_then(|mut f| f.write_all(format!("{value}\n").as_bytes()))
        .map_err(|source| TracerError::Io {
            call: "write",
            path: path.to_path_buf(),
            source,
        })
}

/// The kind of a noise event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NoiseKind {
    /// A hard interrupt (`irq_noise`).
    Irq,
    /// A softirq (`softirq_noise`).
    Softirq,
    /// A thread (`thread_noise`).
    Thread,
    /// A non-maskable interrupt (`nmi_noise`).
    Nmi,
}

impl NoiseKind {
    /// The event's name in the trace.
    pub fn event(self) -> &'static str {
        match self {
            NoiseKind::Irq => "irq_noise",
            NoiseKind::Softirq => "softirq_noise",
            NoiseKind::Thread => "thread_noise",
            NoiseKind::Nmi => "nmi_noise",
        }
    }
}

/// One noise event of the trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoiseEvent {
    /// The CPU it happened on.
    pub cpu: usize,
    /// Its kind.
    pub kind: NoiseKind,
    /// What it was: `local_timer:236` (IRQ description and vector), `TIMER:1` (softirq name
    /// and number), `kworker/2:1:147` (thread name and tid), empty for an NMI.
    pub name: String,
    /// The thread's tid (`thread_noise` only).
    pub pid: Option<u32>,
    /// When it started, ns on the trace clock (`CLOCK_MONOTONIC` with `mono`).
    pub start_ns: u64,
    /// How long it ran, ns, net of the noise that interrupted it.
    pub duration_ns: u64,
    /// When it ended (the line's timestamp, or `start + duration` if later), ns on the trace
    /// clock.
    pub end_ns: u64,
}

/// The noise events of a trace text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Events {
    /// The events, in the trace's order.
    pub events: Vec<NoiseEvent>,
    /// Lines naming a noise event that could not be read (ignored).
    pub malformed: usize,
    /// Events the kernel reported lost (`CPU:N [LOST M EVENTS]`).
    pub lost: u64,
}

impl Events {
    /// The events of `spike`'s window ([`events_overlapping`]).
    pub fn overlapping(&self, spike: &Spike) -> Vec<&NoiseEvent> {
        events_overlapping(&self.events, spike)
    }
}

/// A noise event read from one line, its `start` still on the tracer's local clock.
struct Raw<'a> {
    cpu: usize,
    kind: NoiseKind,
    name: &'a str,
    pid: Option<u32>,
    start_local: u64,
    duration_ns: u64,
    stamp_ns: u64,
}

impl Raw<'_> {
    /// The event, its span starting at `start_ns` on the trace clock and ending at the
    /// line's stamp, or `start + duration` if that is later.
    fn event(&self, start_ns: u64) -> NoiseEvent {
        NoiseEvent {
            cpu: self.cpu,
            kind: self.kind,
            name: self.name.to_owned(),
            pid: self.pid,
            start_ns,
            duration_ns: self.duration_ns,
            end_ns: self.stamp_ns.max(start_ns.saturating_add(self.duration_ns)),
        }
    }
}

/// The noise events of `trace` text (the tracefs `trace` file, or a saved copy). Other
/// lines (comments, other events, the tracer's summaries) are skipped; lines naming a noise
/// event that do not read are counted ([`Events::malformed`]). Each event's start is moved
/// onto the trace clock as the module docs ("Times") describe. Allocates one name a kept
/// event, nothing for a skipped line.
pub fn parse(trace: &str) -> Events {
    let mut raws = Vec::new();
    let mut out = Events::default();
    for line in trace.lines() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(lost) = lost_events(line) {
            out.lost += lost;
            continue;
        }
        let Some((kind, at)) = find_event(line) else {
            continue;
        };
        match parse_line(line, kind, at) {
            Some(raw) => raws.push(raw),
            None => out.malformed += 1,
        }
    }
    let offsets = clock_offsets(&raws);
    out.events = raws
        .into_iter()
        .zip(offsets)
        .map(|(raw, offset)| {
            raw.event((raw.start_local as i128 + offset).clamp(0, u64::MAX as i128) as u64)
        })
        .collect();
    out
}

/// The clock `trace_clock` selects (the one in brackets; `local`, the kernel's default, if
/// none is).
pub(crate) fn selected_clock(clocks: &str) -> String {
    clocks
        .split_whitespace()
        .find_map(|c| c.strip_prefix('[')?.strip_suffix(']'))
        .unwrap_or("local")
        .to_owned()
}

/// One noise event line read on its own, as a reader of `trace_pipe` meets it, in a trace on
/// the `local` clock, the one the tracer stamps each event's `start` with: the span starts
/// there (to the ns; a thread's span is longer than its duration, which is net of the
/// interrupts inside it) and ends at the line's stamp, or `start + duration` if that is
/// later. `None` for any other line.
pub fn noise_line_local(line: &str) -> Option<NoiseEvent> {
    let (kind, at) = find_event(line)?;
    let raw = parse_line(line, kind, at)?;
    // A start of 0 is no time (the idle task's first event after the tracer starts).
    Some(raw.event(if raw.start_local == 0 {
        raw.stamp_ns.saturating_sub(raw.duration_ns)
    } else {
        raw.start_local
    }))
}

/// How near an event the clocks' offset is looked for: the scheduler clock and
/// `CLOCK_MONOTONIC` drift apart by NTP's correction of the oscillator (tens of ppm), well
/// under a µs in this time.
const OFFSET_WINDOW_NS: u64 = 10_000_000;

/// For each event, the offset from the tracer's local clock to the trace clock: the smallest
/// `stamp − start − duration` of the events stamped within [`OFFSET_WINDOW_NS`] of it (its
/// own included), a sliding-window minimum over the events in stamp order; events with no
/// start (0) take part in no event's offset.
fn clock_offsets(raws: &[Raw<'_>]) -> Vec<i128> {
    let candidate =
        |r: &Raw<'_>| r.stamp_ns as i128 - r.start_local as i128 - r.duration_ns as i128;
    let mut order: Vec<usize> = (0..raws.len()).collect();
    order.sort_by_key(|&k| raws[k].stamp_ns);
    let mut offsets = vec![0; raws.len()];
    // Indices into `order`, their candidates increasing: the front is the window's minimum.
    let mut window = std::collections::VecDeque::new();
    let mut next = 0;
    for &k in &order {
        let stamp = raws[k].stamp_ns;
        while next < order.len() && raws[order[next]].stamp_ns <= stamp + OFFSET_WINDOW_NS {
            // A start of 0 is no time (the idle task's first event after the tracer starts
            // reads `start 0.000000000 duration <the uptime>` on Linux 6.1 and 6.12): it
            // says nothing of the clocks' offset.
            if raws[order[next]].start_local == 0 {
                next += 1;
                continue;
            }
            let c = candidate(&raws[order[next]]);
            while window
                .back()
                .is_some_and(|&b: &usize| candidate(&raws[order[b]]) >= c)
            {
                window.pop_back();
            }
            window.push_back(next);
            next += 1;
        }
        while window
            .front()
            .is_some_and(|&f| raws[order[f]].stamp_ns + OFFSET_WINDOW_NS < stamp)
        {
            window.pop_front();
        }
        offsets[k] = window
            .front()
            .map_or(candidate(&raws[k]), |&f| candidate(&raws[order[f]]));
    }
    offsets
}

/// `CPU:2 [LOST 123 EVENTS]`.
fn lost_events(line: &str) -> Option<u64> {
    let rest = line.trim_start().strip_prefix("CPU:")?;
    let rest = &rest[rest.find("[LOST ")? + 6..];
    rest.strip_suffix(" EVENTS]")?.trim().parse().ok()
}

/// The noise event a line names (`… irq_noise: …`), and where its name starts.
fn find_event(line: &str) -> Option<(NoiseKind, usize)> {
    // Every event's name ends in `_noise` and is followed by ": ": one search passes over
    // the other lines (the timerlat samples, most of a timerlat trace; four searches, one
    // per name, were a third of the trace reader's instructions under callgrind).
    const END: &str = "_noise: ";
    let mut from = 0;
    while let Some(found) = line[from..].find(END) {
        let end = from + found + END.len() - 2;
        for kind in [
            NoiseKind::Irq,
            NoiseKind::Softirq,
            NoiseKind::Thread,
            NoiseKind::Nmi,
        ] {
            let event = kind.event();
            // The event name follows the timestamp's colon and a space.
            if let Some(at) = end.checked_sub(event.len())
                && line.get(at..end) == Some(event)
                && line[..at].ends_with(": ")
            {
                return Some((kind, at));
            }
        }
        from = end;
    }
    None
}

/// `<task>-<pid> [CPU] <flags> <seconds>.<µs>: <event>: <fields>`.
fn parse_line(line: &str, kind: NoiseKind, at: usize) -> Option<Raw<'_>> {
    // The header: the timestamp is the last word before the event, the CPU the last
    // `[N]` word before it (a task name may hold spaces and brackets).
    let header = line[..at].trim_end().strip_suffix(':')?;
    let mut words = header.split_whitespace().rev();
    let stamp_ns = seconds_ns(words.next()?, 6)?;
    let cpu = words.find_map(|w| w.strip_prefix('[')?.strip_suffix(']')?.parse().ok())?;
    let fields = &line[at + kind.event().len() + 2..];
    // `<name> start <s>.<ns> duration <n> ns`; NMIs have no name.
    // The fields after the name have a fixed form, so the name ends at the last ` start `
    // (a thread's name may hold anything).
    let (name, rest) = if fields.trim_start().starts_with("start ") {
        ("", fields)
    } else {
        let k = fields.rfind(" start ")?;
        (fields[..k].trim(), &fields[k..])
    };
    if (kind == NoiseKind::Nmi) != name.is_empty() {
        return None;
    }
    let mut words = rest.split_whitespace();
    if words.next()? != "start" {
        return None;
    }
    let start_local = seconds_ns(words.next()?, 9)?;
    if words.next()? != "duration" {
        return None;
    }
    let duration_ns = words.next()?.parse().ok()?;
    if words.next()? != "ns" || words.next().is_some() {
        return None;
    }
    let pid = match kind {
        NoiseKind::Thread => Some(name.rsplit_once(':')?.1.parse().ok()?),
        NoiseKind::Irq | NoiseKind::Softirq => {
            name.rsplit_once(':')?.1.parse::<u32>().ok()?;
            None
        }
        NoiseKind::Nmi => None,
    };
    Some(Raw {
        cpu,
        kind,
        name,
        pid,
        start_local,
        duration_ns,
        stamp_ns,
    })
}

/// `633.807643658` (with `digits` digits after the point) in ns.
pub(crate) fn seconds_ns(text: &str, digits: u32) -> Option<u64> {
    let (seconds, fraction) = text.split_once('.')?;
    if fraction.len() != digits as usize
        || !fraction.bytes().all(|b| b.is_ascii_digit())
        || seconds.is_empty()
        || !seconds.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let fraction: u64 = fraction.parse().ok()?;
    seconds
        .parse::<u64>()
        .ok()?
        .checked_mul(1_000_000_000)?
        .checked_add(fraction * 10u64.pow(9 - digits))
}

/// The events on `spike`'s CPU that overlap its window `[previous_wake_ns, wake_ns]` (an
/// event touching an edge counts), except the runs of the measuring thread itself
/// (`spike.tid`, a `thread_noise` of every run with the tracer's workload off) and of the
/// idle task (`swapper/N`, pid 0: with the workload off the tracer reports the CPU's idle
/// time as its `thread_noise`; a CPU idle is waiting for the wake-up, not delaying it).
pub fn events_overlapping<'a>(events: &'a [NoiseEvent], spike: &Spike) -> Vec<&'a NoiseEvent> {
    events
        .iter()
        .filter(|e| {
            e.cpu == spike.cpu
                && e.start_ns <= spike.wake_ns
                && e.end_ns >= spike.previous_wake_ns
                && !(e.kind == NoiseKind::Thread
                    && e.pid
                        .is_some_and(|pid| pid == IDLE_PID || Some(pid) == spike.tid))
        })
        .collect()
}

/// The pid of each CPU's idle task (`swapper/N`).
const IDLE_PID: u32 = 0;

/// Names of x86 system vectors (`irq_noise` of arch interrupts): not device IRQs, so not
/// movable with `rtlat irq`.
const SYSTEM_VECTORS: [&str; 14] = [
    "local_timer",
    "spurious_apic",
    "error_apic",
    "x86_platform_ipi",
    "irq_work",
    "reschedule",
    "call_function",
    "call_function_single",
    "thermal_apic",
    "deferred_error",
    "threshold_apic",
    "posted_intr",
    "posted_intr_wakeup",
    "posted_intr_nested",
];

/// The causes `events` (those of a spike: [`events_overlapping`]) point to: one per CPU,
/// kind and name, ranked by total duration (the time taken from the measuring thread), with
/// its evidence in one line (`irq_noise local_timer:236 ran 3× for 7.1 µs on CPU 2 (osnoise
/// tracer)`) and the `rtlat audit` check that covers it: `irq.on_isolated` for a device
/// IRQ (with the `rtlat irq` remedy), `threads.on_isolated` for a thread.
pub fn causes<'a>(events: impl IntoIterator<Item = &'a NoiseEvent>) -> Vec<Cause> {
    let mut totals: BTreeMap<(usize, NoiseKind, &str), (u64, u64)> = BTreeMap::new();
    for event in events {
        let total = totals
            .entry((event.cpu, event.kind, event.name.as_str()))
            .or_default();
        total.0 += 1;
        total.1 += event.duration_ns;
    }
    let mut causes: Vec<Cause> = totals
        .into_iter()
        .map(|((cpu, kind, name), (count, total_ns))| {
            let what = if name.is_empty() {
                kind.event().to_owned()
            } else {
                format!("{} {name}", kind.event())
            };
            let evidence = format!(
                "{what} ran {count}× for {} on CPU {cpu} (osnoise tracer)",
                duration(total_ns)
            );
            let (text, audit) = match kind {
                NoiseKind::Irq => {
                    let (desc, irq) = name.rsplit_once(':').unwrap_or((name, ""));
                    if SYSTEM_VECTORS.contains(&desc) {
                        (evidence, None)
                    } else {
                        (
                            format!("{evidence}: move IRQ {irq} with rtlat irq --away-from {cpu}"),
                            Some("irq.on_isolated"),
                        )
                    }
                }
                NoiseKind::Thread => (evidence, Some("threads.on_isolated")),
                NoiseKind::Softirq | NoiseKind::Nmi => (evidence, None),
            };
            Cause {
                score: total_ns,
                text,
                audit,
            }
        })
        .collect();
    causes.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.text.cmp(&b.text)));
    causes
}
