//! The steps after a run's options were taken one by one ([`super::parse`]): what depends on
//! several options is settled (`-S` against `-t`/`-a`, the histogram, the priority against
//! the policy, a profile's settings, the timer from `-r`/`-s`/`-x`/`--timer`, the unit), then
//! contradictions are refused, each in one line naming both options.

use super::parse::Seen;
use super::profile::{self, Given};
use super::table::{Opt, name};
use super::*;
use crate::cli::backend::Backend;

/// Settles what depends on several options, in `config`.
pub(super) fn settle(config: &mut RunConfig, seen: &Seen, given: &Given) -> Result<(), UsageError> {
    // -S: one thread per available CPU, pinned round-robin. As in cyclictest, -t and -a are
    // ignored with a warning (a -t N before -S is ignored silently by cyclictest; rtlat warns
    // too). Under the name cyclictest, -a before -S is cyclictest's fatal error (see
    // `cyclictest_refusal`).
    if config.smp {
        if seen.thread_count_given.is_some() {
            config
                .warnings
                .push("WARN: -t ignored due to smp mode".into());
        }
        if seen.affinity_after_smp || seen.affinity_set_given.is_some() {
            config
                .warnings
                .push("WARN: -a ignored due to smp mode".into());
        }
        config.threads = Threads::PerCpu;
        config.affinity = None;
    }
    if let Some(buckets) = seen.histogram_size {
        config.histogram = Some(Histogram {
            buckets,
            with_total: seen.with_total,
        });
        // With a histogram every thread uses the same interval (distance 0), as cyclictest
        // says when -d was given.
        if config.distance.is_some() {
            config
                .warnings
                .push("WARN: distance is ignored and set to 0, if histogram enabled".into());
        }
    }
    if let Some(text) = &seen.priority_text {
        let priority = super::parse::number(Opt::Priority, text, 0, u64::from(MAX_RT_PRIORITY))
            .map_err(|_| priority_error(text, config.policy))?;
        // At most 99, so it fits.
        config.priority = Some(u8::try_from(priority).unwrap_or(MAX_RT_PRIORITY));
    }
    if let Some(board) = seen.board {
        profile::fill_in(config, board, given);
    }
    settle_priority(config);
    let mut posix = seen.posix;
    if seen.system && posix {
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
    config.timer = resolve_timer(seen.relative, seen.system, posix, seen.timer)?;
    let timer_flags = [
        (seen.system, Opt::System),
        (posix, Opt::PosixTimers),
        (seen.relative, Opt::Relative),
    ];
    if config.backend == Backend::Xenomai {
        xenomai_fits(config, timer_flags)?;
    }
    if config.timerlat {
        timerlat_fits(config, timer_flags, seen.timer.is_some())?;
    }
    #[cfg(target_arch = "aarch64")]
    if config.clock == Clock::Cntvct && config.timer != TimerKind::Absolute {
        // Named as typed: -s, -x, -r, or --timer KIND.
        let with = timer_flags
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
    config.unit = match (seen.nsecs, seen.unit) {
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
    Ok(())
}

/// Refuses the options that contradict each other, or one that needs another not given.
pub(super) fn refuse_conflicts(config: &RunConfig, seen: &Seen) -> Result<(), UsageError> {
    if seen.aligned && seen.secaligned {
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
    if seen.spike_nodes_given && config.spike.is_none() {
        return requires(Opt::SpikeNodes, "--spike");
    }
    if config.explain_above.is_some() && !config.explain {
        return requires(Opt::ExplainAbove, "--explain");
    }
    if seen.explain_nodes_given && !config.explain {
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
    Ok(())
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

/// `--timerlat`: the tracer's timer wakes the threads, on CLOCK_MONOTONIC, under Linux; a
/// timer, a clock or a backend that says otherwise is refused, named as typed.
fn timerlat_fits(
    config: &RunConfig,
    flags: [(bool, Opt); 3],
    timer_given: bool,
) -> Result<(), UsageError> {
    let conflict = |with: String, reason: &str| UsageError::Conflict {
        option: name(Opt::Timerlat),
        with,
        reason: reason.into(),
    };
    if let Some((_, flag)) = flags.into_iter().find(|(given, _)| *given) {
        return Err(conflict(
            name(flag),
            "the timerlat tracer's timer wakes the threads; drop the timer option",
        ));
    }
    if timer_given {
        return Err(conflict(
            format!("--timer {}", timer_name(config.timer)),
            "the timerlat tracer's timer wakes the threads; drop the timer option",
        ));
    }
    if config.clock != Clock::Monotonic {
        return Err(conflict(
            "-c/--clock".into(),
            "the timerlat tracer's timer runs on CLOCK_MONOTONIC; drop -c or use -c 0",
        ));
    }
    if config.backend != Backend::Linux {
        return Err(conflict(
            "--backend".into(),
            "the timerlat tracer is Linux's: use --backend linux",
        ));
    }
    Ok(())
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
