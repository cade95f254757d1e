//! The kernel's timerlat tracer (`rtlat run --timerlat`): each period, the tracer's timer IRQ
//! records how late it fired (`irq`), the thread it wakes records how late it ran (`thread`),
//! and a user-space thread reading `timerlat_fd` records at its next `read` how late it came
//! back from user space (`user-ret`). `rtla timerlat` drives the same tracer.
//!
//! | step                         | items                                                 |
//! |------------------------------|-------------------------------------------------------|
//! | is it there, and which mode  | [`probe`] → [`TimerlatPath`], [`Workload`]            |
//! | switch it on, and back off   | [`TimerlatTrace::plan`], [`TimerlatTrace::start`], [`TimerlatTrace::stop`] (and `Drop`) |
//! | read it as it runs           | [`TimerlatPipe`] (`trace_pipe`), [`parse_line`] → [`TimerlatLine`] |
//!
//! # The two workloads
//!
//! From Linux 6.5 a thread of the user's pinned to CPU N can be the one the tracer wakes: it
//! opens `osnoise/per_cpu/cpuN/timerlat_fd` (rtlat-linux's `TimerlatFd`) and each `read`
//! sleeps until the next period; the tracer's own threads are left out with
//! `osnoise/options` `NO_OSNOISE_WORKLOAD` ([`Workload::User`]). Before that, the tracer
//! wakes threads of its own (`timerlat/N`, SCHED_FIFO 95) on the traced CPUs, beside the
//! measuring threads ([`Workload::Kernel`]): their IRQ and thread latencies are those of the
//! same CPU and the same period, not of the measuring thread's wake-ups.
//!
//! Every setting changed is a [`Change`] put back in reverse order (by [`TimerlatTrace::stop`]
//! or on drop). A tracer already running in the top-level instance, or one of the osnoise
//! family in another instance (`rtla`), is never taken over.
//!
//! # Tested on real kernels
//!
//! The development machines' kernel has no timerlat tracer: [`probe`] is tested there for its
//! reason, the parser on lines of Debian's 6.1 and 6.12 RT kernels, and the whole path on
//! those kernels under QEMU (`tests/rt_guest`).

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::ftrace::{FtraceError, find_tracefs};

use super::tracer::{
    Change, Changes, NOISE_EVENTS, NoiseEvent, Planner, TracerError, noise_line_local,
    read_setting, seconds_ns, selected_clock,
};

/// Who the tracer wakes each period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// The measuring threads themselves, through `timerlat_fd` (Linux 6.5+).
    User,
    /// The tracer's own `timerlat/N` threads, beside the measuring threads.
    Kernel,
}

/// Where the tracer is, or why it cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimerlatPath {
    /// The tracefs directory, which offers `timerlat`, and the workload it can run; with
    /// [`Workload::Kernel`], why not the user's (one line).
    Available(PathBuf, Workload, Option<String>),
    /// Why not, one line.
    Absent(String),
}

/// Whether the timerlat tracer can be used under `root` (`/` on a live system): tracefs
/// mounted, `timerlat` in `available_tracers`; [`Workload::User`] where the kernel has
/// `osnoise/per_cpu/cpu<first>/timerlat_fd` and the `OSNOISE_WORKLOAD` option. Changes
/// nothing.
pub fn probe(root: &Path, first_cpu: usize) -> TimerlatPath {
    let tracefs = match find_tracefs(root) {
        Ok(dir) => dir,
        Err(FtraceError::TracefsNotFound { .. }) => {
            return TimerlatPath::Absent(
                "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)".into(),
            );
        }
        Err(e) => return TimerlatPath::Absent(e.to_string()),
    };
    match read_setting(&tracefs.join("available_tracers")) {
        Ok(list) if list.split_whitespace().any(|t| t == "timerlat") => {}
        Ok(list) => {
            return TimerlatPath::Absent(format!(
                "this kernel has no timerlat tracer (CONFIG_TIMERLAT_TRACER; available: {})",
                list.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        Err(e) => return TimerlatPath::Absent(e.to_string()),
    }
    let fd = tracefs.join(format!("osnoise/per_cpu/cpu{first_cpu}/timerlat_fd"));
    let options = read_setting(&tracefs.join("osnoise/options")).unwrap_or_default();
    let option = options
        .split_whitespace()
        .any(|o| o == "OSNOISE_WORKLOAD" || o == "NO_OSNOISE_WORKLOAD");
    if fd.exists() && option {
        TimerlatPath::Available(tracefs, Workload::User, None)
    } else {
        TimerlatPath::Available(
            tracefs,
            Workload::Kernel,
            Some(format!(
                "this kernel has no {} (Linux 6.5+): the tracer's own timerlat/N threads are woken each period beside rtlat's",
                fd.display()
            )),
        )
    }
}

/// How the tracer runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimerlatSettings {
    /// `osnoise/cpus`: the CPUs traced (the measuring threads' CPUs).
    pub cpus: CpuSet,
    /// `osnoise/timerlat_period_us`.
    pub period_us: u64,
    /// Who the tracer wakes.
    pub workload: Workload,
    /// Also the osnoise family's noise events (`irq_noise`, `softirq_noise`, `thread_noise`,
    /// `nmi_noise`) on those CPUs, for the breakdown of a wake-up into its parts, with the
    /// trace clock set to `local` (the clock of the events' `start`).
    pub noise_events: bool,
}

/// The timerlat tracer running; dropping it puts every setting back.
#[derive(Debug)]
pub struct TimerlatTrace {
    changes: Changes,
}

impl TimerlatTrace {
    /// The changes [`TimerlatTrace::start`] makes, in order, without making any: tracing
    /// stopped, the CPUs, the period, the stop thresholds off (`stop_tracing_us`,
    /// `stop_tracing_total_us`: the run decides when it ends), the workload option
    /// (`NO_OSNOISE_WORKLOAD` for [`Workload::User`], `OSNOISE_WORKLOAD` for
    /// [`Workload::Kernel`] where the kernel has the option), `current_tracer` = `timerlat`,
    /// tracing started. Settings holding their value already are left out. Refuses a tracefs
    /// where a tracer other than `nop` runs, or where an instance runs the osnoise family
    /// (their settings are shared).
    pub fn plan(tracefs: &Path, settings: &TimerlatSettings) -> Result<Vec<Change>, TracerError> {
        if settings.cpus.is_empty() {
            return Err(TracerError::NoCpus);
        }
        let mut plan = Planner::new(tracefs)?;
        plan.refuse_osnoise_instances()?;
        plan.set("osnoise/cpus", settings.cpus.to_string())?;
        plan.set("osnoise/timerlat_period_us", settings.period_us.to_string())?;
        plan.set("osnoise/stop_tracing_us", "0")?;
        plan.set("osnoise/stop_tracing_total_us", "0")?;
        let options = plan.read("osnoise/options").unwrap_or_default();
        let workload = options
            .split_whitespace()
            .find(|o| *o == "OSNOISE_WORKLOAD" || *o == "NO_OSNOISE_WORKLOAD");
        match (workload, settings.workload) {
            (Some(was), Workload::User) => {
                plan.step("osnoise/options", was.to_owned(), "NO_OSNOISE_WORKLOAD")
            }
            (Some(was), Workload::Kernel) => {
                plan.step("osnoise/options", was.to_owned(), "OSNOISE_WORKLOAD")
            }
            (None, Workload::User) => return Err(TracerError::NoWorkloadOption),
            (None, Workload::Kernel) => {}
        }
        if settings.noise_events {
            // The clock the tracer stamps each noise event's start with, so that starts and
            // line stamps compare.
            let clocks = plan.read("trace_clock")?;
            plan.step("trace_clock", selected_clock(&clocks), "local");
            for event in NOISE_EVENTS {
                plan.set(&format!("events/osnoise/{event}/enable"), "1")?;
            }
        }
        Ok(plan.start("timerlat"))
    }

    /// Starts the tracer: the changes of [`TimerlatTrace::plan`], in order, each recorded as
    /// it is made; on an error, those made are put back.
    pub fn start(
        tracefs: &Path,
        settings: &TimerlatSettings,
    ) -> Result<TimerlatTrace, TracerError> {
        Ok(TimerlatTrace {
            changes: Changes::apply(tracefs, TimerlatTrace::plan(tracefs, settings)?)?,
        })
    }

    /// The settings changed, in order.
    pub fn changes(&self) -> &[Change] {
        self.changes.as_slice()
    }

    /// The tracefs directory.
    pub fn tracefs(&self) -> &Path {
        self.changes.tracefs()
    }

    /// Opens the trace's consuming reader ([`TimerlatPipe`]).
    pub fn pipe(&self) -> Result<TimerlatPipe, TracerError> {
        TimerlatPipe::open(&self.tracefs().join("trace_pipe"))
    }

    /// Puts every changed setting back, in reverse order; all are tried.
    pub fn stop(mut self) -> Result<(), TracerError> {
        self.changes.restore()
    }
}

/// The context of a `timerlat_sample`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// The timer IRQ (`irq`): how late the timer fired.
    Irq,
    /// The woken thread, in the kernel (`thread`): how late it ran.
    Thread,
    /// The user-space thread's next `read` (`user-ret`): how late it was back in the
    /// kernel, its user-space work included.
    User,
}

/// One line of the timerlat trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimerlatLine {
    /// A sample: its CPU, the period's sequence number, the context and the latency (ns).
    Sample {
        /// The CPU (the line's `[NNN]`).
        cpu: usize,
        /// When it was recorded (the line's timestamp, µs resolution), ns on the trace clock.
        stamp_ns: u64,
        /// The tracer's period count on that CPU (`#N`).
        seq: u64,
        /// Which part.
        context: Context,
        /// The latency, ns.
        latency_ns: u64,
    },
    /// A noise event of the osnoise family (with [`TimerlatSettings::noise_events`]).
    Noise(NoiseEvent),
    /// The ring buffer of `cpu` overwrote `events` events the reader had not read
    /// (`CPU:N [LOST M EVENTS]`).
    Lost {
        /// The CPU.
        cpu: usize,
        /// How many.
        events: u64,
    },
}

/// Reads one line of the trace (`trace_pipe` or `trace`); `None` for anything else (headers,
/// stack traces, other events). The sample's words are the kernel's
/// (`#<seq> context <irq|thread|user-ret> timer_latency <ns> ns`).
pub fn parse_line(line: &str) -> Option<TimerlatLine> {
    if let Some(rest) = line.trim_start().strip_prefix("CPU:") {
        let (cpu, rest) = rest.split_once(' ')?;
        let events = rest
            .trim()
            .strip_prefix("[LOST ")?
            .strip_suffix(" EVENTS]")?
            .parse()
            .ok()?;
        return Some(TimerlatLine::Lost {
            cpu: cpu.parse().ok()?,
            events,
        });
    }
    if let Some(event) = noise_line_local(line) {
        return Some(TimerlatLine::Noise(event));
    }
    let at = line.find(" context ")?;
    let cpu = {
        let open = line[..at].find(" [")? + 2;
        let close = open + line[open..at].find(']')?;
        line[open..close].trim().parse().ok()?
    };
    let (head, seq) = line[..at].rsplit_once('#')?;
    let seq = seq.trim().parse().ok()?;
    let stamp_ns = seconds_ns(head.trim_end().strip_suffix(':')?.rsplit(' ').next()?, 6)?;
    let mut words = line[at..].split_whitespace();
    if words.next()? != "context" {
        return None;
    }
    let context = match words.next()? {
        "irq" => Context::Irq,
        "thread" => Context::Thread,
        "user-ret" => Context::User,
        _ => return None,
    };
    if words.next()? != "timer_latency" {
        return None;
    }
    let latency_ns = words.next()?.parse().ok()?;
    (words.next()? == "ns").then_some(TimerlatLine::Sample {
        cpu,
        stamp_ns,
        seq,
        context,
        latency_ns,
    })
}

/// The largest read from `trace_pipe` at once.
const CHUNK: usize = 64 << 10;

/// `trace_pipe`, read without blocking: each [`TimerlatPipe::drain`] takes what the kernel
/// has and leaves it out of the buffer, so a run of any length keeps up (the ring buffer
/// alone holds a few seconds at 1 kHz).
#[derive(Debug)]
pub struct TimerlatPipe {
    file: File,
    path: PathBuf,
    /// A line not complete yet.
    partial: String,
    buffer: Vec<u8>,
}

impl TimerlatPipe {
    fn open(path: &Path) -> Result<TimerlatPipe, TracerError> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|source| TracerError::Io {
                call: "read",
                path: path.to_path_buf(),
                source,
            })?;
        Ok(TimerlatPipe {
            file,
            path: path.to_path_buf(),
            partial: String::new(),
            buffer: vec![0; CHUNK],
        })
    }

    /// Reads what the trace holds now and gives each line read in full to `line`; returns
    /// the bytes read (0: nothing was waiting).
    pub fn drain(&mut self, mut line: impl FnMut(TimerlatLine)) -> Result<usize, TracerError> {
        let mut total = 0;
        loop {
            let n = match self.file.read(&mut self.buffer) {
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(total),
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(TracerError::Io {
                        call: "read",
                        path: self.path.clone(),
                        source,
                    });
                }
            };
            if n == 0 {
                return Ok(total);
            }
            total += n;
            self.partial
                .push_str(&String::from_utf8_lossy(&self.buffer[..n]));
            let complete = match self.partial.rfind('\n') {
                Some(end) => end + 1,
                None => continue,
            };
            for text in self.partial[..complete].lines() {
                if let Some(parsed) = parse_line(text) {
                    line(parsed);
                }
            }
            self.partial.drain(..complete);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as Debian's 6.12 RT kernel prints them (rtlat's thread, user-space workload) and
    // as 6.1's prints them (the tracer's own thread).
    const LINES_612: &str = "\
# tracer: timerlat
#
#                                _-------=> irqs-off
#              TASK-PID     CPU#  |||||     TIMESTAMP  ID            CONTEXT                 LATENCY
            <idle>-0       [001] d.h2.   186.574473: #1     context    irq timer_latency      2870 ns
          rtlat-t0-311     [001] .....   186.574521: #1     context thread timer_latency     50870 ns
          rtlat-t0-311     [001] .....   186.575533: #2     context user-ret timer_latency     62011 ns
CPU:1 [LOST 17 EVENTS]
";
    const LINE_61: &str = "     timerlat/1-290     [001] .....    41.284119: #1041  context thread timer_latency     14208 ns";

    #[test]
    fn each_context_of_the_kernels_lines_is_read() {
        let lines: Vec<_> = LINES_612.lines().filter_map(parse_line).collect();
        assert_eq!(
            lines,
            [
                TimerlatLine::Sample {
                    cpu: 1,
                    stamp_ns: 186_574_473_000,
                    seq: 1,
                    context: Context::Irq,
                    latency_ns: 2870
                },
                TimerlatLine::Sample {
                    cpu: 1,
                    stamp_ns: 186_574_521_000,
                    seq: 1,
                    context: Context::Thread,
                    latency_ns: 50870
                },
                TimerlatLine::Sample {
                    cpu: 1,
                    stamp_ns: 186_575_533_000,
                    seq: 2,
                    context: Context::User,
                    latency_ns: 62011
                },
                TimerlatLine::Lost { cpu: 1, events: 17 },
            ]
        );
        assert_eq!(
            parse_line(LINE_61),
            Some(TimerlatLine::Sample {
                cpu: 1,
                stamp_ns: 41_284_119_000,
                seq: 1041,
                context: Context::Thread,
                latency_ns: 14208
            })
        );
    }

    #[test]
    fn other_lines_and_broken_ones_are_passed_over() {
        for line in [
            "",
            "# tracer: timerlat",
            " => __schedule",
            "          <idle>-0 [001] d.h2. 1.0: #1 context softirq timer_latency 5 ns",
            "          <idle>-0 [001] d.h2. 1.0: #1 context irq timer_latency 5 us",
            "          <idle>-0 [001] d.h2. 1.0: #1 context irq timer_latency -5 ns",
            "          <idle>-0 [0x1] d.h2. 1.0: #1 context irq timer_latency 5 ns",
            "CPU:1 [LOST many EVENTS]",
        ] {
            assert_eq!(parse_line(line), None, "{line:?}");
        }
    }

    #[test]
    fn on_a_kernel_without_the_tracer_the_probe_says_why_in_one_line() {
        // The development machines' kernel: no timerlat tracer (or no tracefs mounted).
        match probe(Path::new("/"), 0) {
            TimerlatPath::Absent(why) => {
                assert!(
                    why.contains("CONFIG_TIMERLAT_TRACER") || why.contains("tracefs"),
                    "{why}"
                );
                assert!(!why.contains('\n'));
            }
            // A kernel with the tracer (an RT kernel) has a tracefs that offers it.
            TimerlatPath::Available(tracefs, _, _) => assert!(
                read_setting(&tracefs.join("available_tracers"))
                    .unwrap()
                    .contains("timerlat")
            ),
        }
    }
}
