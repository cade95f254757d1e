//! The option table of `rtlat run` and of rtlat invoked as `cyclictest`: one entry per option
//! (names, whether it takes a value), and what each value must be for messages. The usage
//! text is cyclictest's, kept verbatim in `cli::run::usage` (a test checks it names every
//! option of this table).

use rtlat::options::{Describe, HasArg, Peek, Spec};

use super::{
    MAX_DURATION_SECS, MAX_HISTOGRAM_BUCKETS, MAX_IDLE_STATE, MAX_INTERVAL_US, MAX_PM_QOS_US,
    MAX_RT_PRIORITY, MAX_SPIKE_NODES, MAX_THREADS, MAX_THRESHOLD,
};

/// Every option's identity (cyclictest's, in its order, then rtlat's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opt {
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
    Backend,
    /// `--explain`: name the likely cause of each spike.
    Explain,
    /// `--explain-above`: the latency above which `--explain` explains.
    ExplainAbove,
    /// `--explain-nodes`: how many spike records `--explain` keeps per thread.
    ExplainNodes,
    /// `--timerlat`: the kernel's timerlat tracer times the measuring threads.
    Timerlat,
    /// `--load`: what runs beside the measurement (or `stress-ng`: rtlat's built-in load).
    Load,
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
pub(super) const SPECS: &[Spec<Opt>] = &[
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
    spec(Opt::Backend, None, "backend", Required, false),
    spec(Opt::Explain, None, "explain", No, false),
    spec(Opt::ExplainAbove, None, "explain-above", Required, false),
    spec(Opt::ExplainNodes, None, "explain-nodes", Required, false),
    spec(Opt::Timerlat, None, "timerlat", No, false),
    spec(Opt::Load, None, "load", Required, false),
];

/// The option table as a name reads it: under the name cyclictest, `-n`/`--nanosleep` (gone
/// from cyclictest 2.x) and `-?` (not in cyclictest's option string; `--help` is) are unknown
/// options, as getopt tells them in cyclictest.
pub(super) fn specs(invoked_as_cyclictest: bool) -> Vec<Spec<Opt>> {
    SPECS
        .iter()
        .filter(|s| !(invoked_as_cyclictest && s.id == Opt::Nanosleep))
        .map(|s| match s.id {
            Opt::Help if invoked_as_cyclictest => Spec { short: None, ..*s },
            _ => *s,
        })
        .collect()
}

pub(super) fn spec_of(id: Opt) -> &'static Spec<Opt> {
    // Every Opt has exactly one entry (checked by a test); the fallback is never used.
    SPECS.iter().find(|s| s.id == id).unwrap_or(&SPECS[0])
}

pub(super) fn name(id: Opt) -> String {
    spec_of(id).name()
}

/// What each option's value should be, for error messages.
pub(super) fn expected(id: Opt) -> String {
    match id {
        Opt::Affinity | Opt::MainAffinity => {
            "a CPU list such as 0-3,5 (or all, !LIST, +LIST)".into()
        }
        Opt::Aligned | Opt::Secaligned => {
            format!("an offset of 0 to {MAX_INTERVAL_US} µs")
        }
        Opt::Breaktrace | Opt::Spike | Opt::ExplainAbove => {
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
        Opt::SpikeNodes | Opt::ExplainNodes => format!("a number of spikes to keep, 1 to {MAX_SPIKE_NODES}"),
        Opt::Threads => format!("a thread count of 1 to {MAX_THREADS} (bare -t: one per CPU)"),
        Opt::Policy => "one of other, normal, batch, idle, fifo, rr".into(),
        Opt::DeepestIdleState => format!(
            "an idle state number of 0 to {MAX_IDLE_STATE} (states above it are disabled for the run), or -1 (all of them)"
        ),
        Opt::FailAbove => format!("a latency of 0 to {MAX_THRESHOLD} µs"),
        Opt::Unit => "us or ns".into(),
        Opt::Load => "a description of what runs beside the measurement (at most 200 characters), or stress-ng for rtlat's built-in load".into(),
        Opt::Timer => "one of abs, rel, nanosleep, posix, timerfd".into(),
        Opt::Governor => {
            "a cpufreq governor name: letters, digits, _ or -, at most 15 characters (e.g. performance)".into()
        }
        Opt::Profile => format!("a board profile: {}", super::config::board_names()),
        Opt::Backend => format!("one of {}", crate::cli::backend::NAMES),
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
        | Opt::PosixTimers
        | Opt::Explain
        | Opt::Timerlat => "no value".into(),
    }
}

pub(super) struct Expectations;

impl Describe<Opt> for Expectations {
    fn expected(&self, id: Opt) -> String {
        expected(id)
    }
}
