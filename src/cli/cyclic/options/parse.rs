//! The first step: the words of a run's command line into a [`RunConfig`], every value
//! checked and every contradiction refused, without looking at the machine.

use std::path::PathBuf;

use rtlat::options as getopt;
use rtlat_arm64::BoardProfile;

use super::profile::{self, Given};
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
    let mut explain_nodes_given = false;
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
            // rtlat reads no SMI counter. Under the name cyclictest it ends as cyclictest does
            // where cyclictest cannot read one either (see `cyclic::smi`).
            Opt::Smi if invoked_as_cyclictest => config.smi = true,
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
            Opt::FailAbove
            | Opt::Unit
            | Opt::Timer
            | Opt::Governor
            | Opt::Profile
            | Opt::Backend
            | Opt::Explain
            | Opt::ExplainAbove
            | Opt::ExplainNodes
                if invoked_as_cyclictest =>
            {
                return Err(UsageError::RtlatOnly { option: name(id) });
            }
            Opt::Profile => {
                board = Some(BoardProfile::by_name(value).ok_or_else(|| invalid(id, value))?);
            }
            Opt::Explain => config.explain = true,
            Opt::ExplainNodes => {
                config.explain_nodes = number_u32(id, value, 1, MAX_SPIKE_NODES)?;
                explain_nodes_given = true;
            }
            Opt::ExplainAbove => {
                config.explain_above = Some(number(id, value, 1, MAX_THRESHOLD)?);
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
    if config.backend == Backend::Xenomai {
        xenomai_fits(
            &config,
            [
                (system, Opt::System),
                (posix, Opt::PosixTimers),
                (relative, Opt::Relative),
            ],
        )?;
    }
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
    if config.explain_above.is_some() && !config.explain {
        return requires(Opt::ExplainAbove, "--explain");
    }
    if explain_nodes_given && !config.explain {
        return requires(Opt::ExplainNodes, "--explain");
    }
    // The evidence sampler's times are CLOCK_MONOTONIC's: a spike is placed among them by
    // its wake-up on that clock.
    if config.explain && config.clock != Clock::Monotonic {
        return Err(UsageError::Conflict {
            option: "--explain".into(),
            with: "-c/--clock".into(),
            reason: "--explain places each spike by its wake-up on CLOCK_MONOTONIC, the clock its evidence sampler reads: drop -c or use -c 0".into(),
        });
    }
    if config.explain && config.backend != Backend::Linux {
        return Err(UsageError::Conflict {
            option: "--explain".into(),
            with: "--backend".into(),
            reason: "--explain follows the measuring threads through /proc, which a Xenomai thread's real-time mode hides: use --backend linux".into(),
        });
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

/// `--backend xenomai`: the thread sleeps on its Alchemy task's periodic timer and reads the
/// Alchemy clock (CLOCK_MONOTONIC's time), as a SCHED_FIFO or SCHED_OTHER task; a timer, a
/// clock or a policy that cannot be had that way is refused, named as typed.
fn xenomai_fits(config: &RunConfig, flags: [(bool, Opt); 3]) -> Result<(), UsageError> {
    let conflict = |with: String, reason: &str| UsageError::Conflict {
        option: "--backend xenomai".into(),
        with,
        reason: reason.into(),
    };
    if config.timer != TimerKind::Absolute {
        let with = flags
            .into_iter()
            .find_map(|(given, flag)| given.then(|| name(flag)))
            .unwrap_or_else(|| format!("--timer {}", timer_name(config.timer)));
        return Err(conflict(
            with,
            "a Xenomai task sleeps on its periodic timer (rt_task_wait_period); drop the timer option",
        ));
    }
    if config.clock != Clock::Monotonic {
        return Err(conflict(
            "-c/--clock".into(),
            "a Xenomai task measures on the Alchemy clock, CLOCK_MONOTONIC's time; drop -c",
        ));
    }
    match config.policy {
        Some(p @ (Policy::RoundRobin | Policy::Batch | Policy::Idle)) => Err(conflict(
            format!("--policy {}", p.name()),
            "Alchemy tasks run SCHED_FIFO (-p 1-99) or SCHED_OTHER (-p 0)",
        )),
        _ => Ok(()),
    }
}

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
