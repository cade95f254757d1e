//! The first step: the words of a run's command line into a [`RunConfig`], every value
//! checked and every contradiction refused, without looking at the machine.

use std::path::PathBuf;

use rtlat::options as getopt;
use rtlat_arm64::BoardProfile;

use super::profile::Given;
use super::table::{Expectations, Opt, expected, name, specs};
use super::values::{self, NumberError};
use super::*;
use crate::cli::backend::Backend;

fn invalid(id: Opt, value: &str) -> UsageError {
    UsageError::InvalidValue {
        option: name(id),
        value: value.to_owned(),
        expected: expected(id),
    }
}

/// A whole number within `min..=max`, or the option's usage error.
pub(super) fn number(id: Opt, value: &str, min: u64, max: u64) -> Result<u64, UsageError> {
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

/// Which of the settings a profile (or `rtlat monitor`'s defaults) fills in the words after
/// `rtlat run` give, in any spelling (`-t`, `--threads=2`, `-mt`); nothing else is checked.
pub fn given(args: &[String]) -> Result<Given, UsageError> {
    let found = getopt::scan(args, &specs(false), &Expectations)?;
    let gave = |id: Opt| found.iter().any(|f| f.id == id);
    Ok(Given {
        threads: gave(Opt::Threads),
        affinity: gave(Opt::Affinity),
        smp: gave(Opt::Smp),
        priority: gave(Opt::Priority),
        policy: gave(Opt::Policy),
    })
}

/// Parses the words after `rtlat run` (or after `cyclictest`), without the program name.
///
/// `invoked_as_cyclictest`: rtlat was run under the name `cyclictest`; its own options
/// (`--fail-above`, `--unit`, `--timer`, `--governor`, `--profile`, `--backend`) are then
/// refused.
///
/// Three steps: each option found is taken in order (`take`: cyclictest's options, then
/// `take_own` for rtlat's), then what depends on several of them is settled
/// (`settle::settle`), then contradictions are refused (`settle::refuse_conflicts`).
pub fn parse(args: &[String], invoked_as_cyclictest: bool) -> Result<Parsed, UsageError> {
    let found = getopt::scan(args, &specs(invoked_as_cyclictest), &Expectations)?;
    if found.iter().any(|f| f.id == Opt::Help) {
        return Ok(Parsed::Help);
    }
    let mut config = RunConfig {
        invoked_as_cyclictest,
        ..RunConfig::default()
    };
    // The settings a profile fills in, where the command line gave them (in any order).
    let gave = |id: Opt| found.iter().any(|f| f.id == id);
    let given = Given {
        threads: gave(Opt::Threads),
        affinity: gave(Opt::Affinity),
        smp: gave(Opt::Smp),
        priority: gave(Opt::Priority),
        policy: gave(Opt::Policy),
    };
    let mut seen = Seen::default();
    for item in found {
        // An optional value left out (`-t`), as opposed to given empty (`--threads=`).
        let bare = item.value.is_none();
        let value = item.value.unwrap_or_default();
        take(&mut config, &mut seen, item.id, &value, bare)?;
    }
    super::settle::settle(&mut config, &seen, &given)?;
    super::settle::refuse_conflicts(&config, &seen)?;
    Ok(Parsed::Run(config))
}

/// What the steps after the options were taken need to know beyond the config itself.
#[derive(Debug, Default)]
pub(super) struct Seen {
    /// `-t N` as typed (`None`: not given, or `-t` alone).
    pub thread_count_given: Option<String>,
    /// `-a CPUS` as typed (`None`: not given, or `-a` alone).
    pub affinity_set_given: Option<String>,
    /// `-a` after `-S` (ignored, with cyclictest's warning).
    pub affinity_after_smp: bool,
    /// `-r`.
    pub relative: bool,
    /// `-s`.
    pub system: bool,
    /// `-x`.
    pub posix: bool,
    /// `--timer KIND`.
    pub timer: Option<TimerKind>,
    /// `-N`.
    pub nsecs: bool,
    /// `--unit`.
    pub unit: Option<Unit>,
    /// `-A`.
    pub aligned: bool,
    /// `--secaligned`.
    pub secaligned: bool,
    /// `--spike-nodes`.
    pub spike_nodes_given: bool,
    /// `--explain-nodes`.
    pub explain_nodes_given: bool,
    /// `-h N` or `-H N`: the buckets.
    pub histogram_size: Option<u32>,
    /// `-H` (the total line).
    pub with_total: bool,
    /// `-p` as typed, checked against the final `--policy`.
    pub priority_text: Option<String>,
    /// `--profile`.
    pub board: Option<&'static BoardProfile>,
}

/// Takes one of cyclictest's options (rtlat's own go to [`take_own`]).
fn take(
    config: &mut RunConfig,
    seen: &mut Seen,
    id: Opt,
    value: &str,
    bare: bool,
) -> Result<(), UsageError> {
    match id {
        Opt::Help => {}
        // cyclictest ignores -a after -S (and warns when settling).
        Opt::Affinity if config.smp => seen.affinity_after_smp = true,
        Opt::Affinity if bare => {
            config.affinity = None;
            seen.affinity_set_given = None;
        }
        Opt::Affinity => {
            config.affinity = Some(CpuSpec::parse(value, &name(id))?);
            seen.affinity_set_given = Some(value.to_owned());
        }
        Opt::Aligned | Opt::Secaligned => {
            let offset_us = if bare {
                0
            } else {
                number(id, value, 0, MAX_INTERVAL_US)?
            };
            if id == Opt::Aligned {
                seen.aligned = true;
                config.align = Some(Align::Aligned { offset_us });
            } else {
                seen.secaligned = true;
                config.align = Some(Align::SecAligned { offset_us });
            }
        }
        Opt::Breaktrace => config.breaktrace = Some(number(id, value, 1, MAX_THRESHOLD)?),
        Opt::Clock => config.clock = clock(value, config.invoked_as_cyclictest)?,
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
            seen.histogram_size = Some(number_u32(id, value, 1, MAX_HISTOGRAM_BUCKETS)?);
            seen.with_total |= id == Opt::Histofall;
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
        Opt::Nsecs => seen.nsecs = true,
        // Checked when settling, against the final --policy.
        Opt::Priority => seen.priority_text = Some(value.to_owned()),
        Opt::Quiet => config.quiet = true,
        Opt::Priospread => config.priospread = true,
        Opt::Relative => seen.relative = true,
        Opt::System => seen.system = true,
        Opt::PosixTimers => seen.posix = true,
        // Under the name cyclictest, a processor without the counter was refused as
        // cyclictest refuses it (`cyclictest_refusal`); under rtlat's, here.
        Opt::Smi if config.invoked_as_cyclictest => config.smi = true,
        Opt::Smi => {
            smi_supported()?;
            config.smi = true;
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
            seen.spike_nodes_given = true;
        }
        Opt::Threads if config.smp => {
            config
                .warnings
                .push("WARN: -t ignored due to smp mode".into());
        }
        Opt::Threads if bare => {
            config.threads = Threads::PerCpu;
            seen.thread_count_given = None;
        }
        Opt::Threads => {
            config.threads = Threads::Count(number_u32(id, value, 1, MAX_THREADS)?);
            seen.thread_count_given = Some(value.to_owned());
        }
        Opt::Tracemark => config.tracemark = true,
        Opt::Unbuffered => config.unbuffered = true,
        Opt::Verbose => config.verbose = true,
        Opt::Policy => config.policy = Some(policy(value).ok_or_else(|| invalid(id, value))?),
        Opt::Fifo => config.fifo = Some(path(id, value)?),
        Opt::Oscope | Opt::Resolution | Opt::Nanosleep | Opt::DbgCyclictest => {
            return Err(unsupported(id));
        }
        Opt::FailAbove
        | Opt::Unit
        | Opt::Timer
        | Opt::Governor
        | Opt::Profile
        | Opt::Backend
        | Opt::Explain
        | Opt::ExplainAbove
        | Opt::ExplainNodes
        | Opt::Timerlat
        | Opt::Load => take_own(config, seen, id, value)?,
    }
    Ok(())
}

/// Takes one of rtlat's own options: refused under the name cyclictest.
fn take_own(
    config: &mut RunConfig,
    seen: &mut Seen,
    id: Opt,
    value: &str,
) -> Result<(), UsageError> {
    if config.invoked_as_cyclictest {
        return Err(UsageError::RtlatOnly { option: name(id) });
    }
    match id {
        Opt::Profile => {
            seen.board = Some(BoardProfile::by_name(value).ok_or_else(|| invalid(id, value))?);
        }
        Opt::Explain => config.explain = true,
        Opt::ExplainNodes => {
            config.explain_nodes = number_u32(id, value, 1, MAX_SPIKE_NODES)?;
            seen.explain_nodes_given = true;
        }
        Opt::ExplainAbove => {
            config.explain_above = Some(number(id, value, 1, MAX_THRESHOLD)?);
        }
        Opt::Timerlat => config.timerlat = true,
        Opt::Load => {
            let text = value.trim();
            if text.is_empty() || text.chars().count() > 200 || text.chars().any(char::is_control) {
                return Err(invalid(id, value));
            }
            config.load = Some(text.to_owned());
        }
        Opt::FailAbove => config.fail_above_us = Some(number(id, value, 0, MAX_THRESHOLD)?),
        Opt::Governor if !crate::cli::cpufreq::is_governor_name(value) => {
            return Err(invalid(id, value));
        }
        Opt::Governor => config.governor = Some(value.to_owned()),
        Opt::Backend => {
            config.backend = Backend::parse(value).ok_or_else(|| invalid(id, value))?;
        }
        Opt::Unit => {
            seen.unit = Some(match value {
                "us" | "µs" => Unit::Us,
                "ns" => Unit::Ns,
                _ => return Err(invalid(id, value)),
            });
        }
        Opt::Timer => {
            seen.timer = Some(match value {
                "abs" | "absolute" => TimerKind::Absolute,
                "rel" | "relative" => TimerKind::Relative,
                "nanosleep" => TimerKind::NanoSleep,
                "posix" => TimerKind::PosixTimer,
                "timerfd" => TimerKind::TimerFd,
                _ => return Err(invalid(id, value)),
            });
        }
        // Not rtlat's own: [`take`] takes them.
        _ => {}
    }
    Ok(())
}

/// `-c`: cyclictest's numbers (0 monotonic, 1 realtime), the clocks' names, and on aarch64
/// rtlat's own `cntvct`.
#[cfg_attr(not(target_arch = "aarch64"), allow(unused_variables))]
fn clock(value: &str, invoked_as_cyclictest: bool) -> Result<Clock, UsageError> {
    let trimmed = values::trim_c_space(value);
    Ok(match trimmed {
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
        _ => return Err(invalid(Opt::Clock, value)),
    })
}

/// `--smi` under rtlat's name: refused where the processor has no SMI counter.
fn smi_supported() -> Result<(), UsageError> {
    let refused = |why: String| UsageError::NotHere {
        option: name(Opt::Smi),
        reason: format!("SMI counting is not supported here: {why}; run without --smi"),
    };
    if !cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
        return Err(refused("it needs an x86 processor".into()));
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo")
        .map_err(|e| refused(format!("cannot read /proc/cpuinfo: {e}")))?;
    rtlat_linux::msr::smi_support(&cpuinfo).map_err(|e| refused(e.to_string()))
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
