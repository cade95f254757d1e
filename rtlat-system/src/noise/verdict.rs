//! The verdict on one spike: the likely causes, ranked, each with its evidence in one line,
//! from the [`Interval`]s that overlap the spike compared with the intervals around it.
//!
//! A counter (an IRQ line, a softirq type, a task's time on the CPU) is a cause only when the
//! spike's intervals hold clearly more of it than usual: more than 1.5 × the 90th percentile of
//! its rate over the intervals more than 250 ms away (the *baseline*), plus a margin (2 events, 100 µs of CPU
//! time), so the local timer tick or a kworker that runs every interval is never named. Events
//! that are never normal (the measuring thread preempted or migrated, thermal throttling, a
//! real-time task of the same or higher priority running on the CPU, a deep idle state whose
//! exit latency explains a quarter of the spike) need no baseline. Nothing above those bars
//! gives no cause: an empty verdict means "no cause found", never a guess.
//!
//! Causes are ranked by an estimate of the time they took from the measuring thread:
//! real-time tasks that outrank it first (they name the culprit), then its own migration and
//! preemption, thermal throttling, then other tasks by
//! their time on the CPU, idle-state exit latencies, interrupts (≈ 5 µs each) and softirqs
//! (≈ 2 µs each), then a frequency drop.

use std::collections::BTreeMap;
use std::fmt;

use super::counters::SOFTIRQS;
use super::interval::{Interval, TaskRun};
use super::sampler::Catalog;

/// A late wake-up to explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spike {
    /// The measured CPU.
    pub cpu: usize,
    /// The measuring thread (its preemptions and migrations are looked at), if known.
    pub tid: Option<u32>,
    /// The wake-up before the late one (or that cycle's deadline), ns on `CLOCK_MONOTONIC`.
    pub previous_wake_ns: u64,
    /// The late wake-up, ns on `CLOCK_MONOTONIC`.
    pub wake_ns: u64,
    /// Its latency in ns.
    pub latency_ns: i64,
}

impl Spike {
    /// The spike of cycle `cycle` (from 0) of a schedule that started at `start_ns` with
    /// deadlines every `interval_ns` (`deadline(k) = start + k·interval`, rtlat-core's cycle
    /// engine), whose wake-up was `latency_ns` late: the window runs from the previous
    /// cycle's deadline (no wake-up comes before its deadline by more than the early-wake
    /// slack, so this bounds the previous wake-up from below) to the late wake-up. This is how
    /// the run's maximum (`CycleEngine::max()`: latency and cycle) becomes a spike with no
    /// store added to the loop. All times in ns on the samples' clock (`CLOCK_MONOTONIC`).
    pub fn of_cycle(
        cpu: usize,
        tid: Option<u32>,
        start_ns: u64,
        interval_ns: u64,
        cycle: u64,
        latency_ns: i64,
    ) -> Spike {
        let deadline = start_ns.saturating_add(cycle.saturating_mul(interval_ns));
        Spike {
            cpu,
            tid,
            previous_wake_ns: deadline.saturating_sub(interval_ns).max(start_ns),
            wake_ns: deadline.saturating_add_signed(latency_ns),
            latency_ns,
        }
    }
}

impl Spike {
    /// The spike whose wake-up at `wake_ns` was `latency_ns` late on a schedule of period
    /// `interval_ns`: its deadline is `wake − latency`, the previous deadline one period
    /// before, and the window runs from there to the wake-up. This is the form of the entries
    /// of `rtlat run --spike`'s list (latency, wake-up time), which the measuring loop
    /// already keeps. Times in ns on the samples' clock (`CLOCK_MONOTONIC`).
    pub fn of_wake(
        cpu: usize,
        tid: Option<u32>,
        wake_ns: u64,
        latency_ns: i64,
        interval_ns: u64,
    ) -> Spike {
        let deadline = wake_ns.saturating_add_signed(latency_ns.saturating_neg());
        Spike {
            cpu,
            tid,
            previous_wake_ns: deadline.saturating_sub(interval_ns),
            wake_ns,
            latency_ns,
        }
    }
}

/// One likely cause with its evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// The rank key: an estimate of the time taken from the measuring thread, in ns, plus a
    /// boost for events that are never normal.
    pub score: u64,
    /// The evidence and the remedy, one line (e.g. `IRQ 24 (enp1s0) fired 3× on CPU 2: move
    /// it with rtlat irq --away-from 2`).
    pub text: String,
    /// The `rtlat audit` check that covers it, if one does (e.g. `irq.on_isolated`).
    pub audit: Option<&'static str>,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        if let Some(check) = self.audit {
            write!(f, " (rtlat audit: {check})")?;
        }
        Ok(())
    }
}

/// A boost that puts events that are never normal ahead of counted ones.
const NEVER_NORMAL: u64 = 1_000_000_000;
/// Estimated cost of one hard interrupt and one softirq, in ns.
const IRQ_NS: u64 = 5_000;
const SOFTIRQ_NS: u64 = 2_000;
/// The baseline leaves out the intervals this close to the spike, ns.
const BASELINE_GAP_NS: u64 = 250_000_000;
/// The margins above the baseline.
const EVENTS_MARGIN: f64 = 2.0;
const RUN_MARGIN_NS: f64 = 100_000.0;

/// The likely causes of `spike`, most likely first; empty when nothing stands out. `ring` is
/// every interval kept (those overlapping the spike are the evidence, the others the
/// baseline).
pub fn explain<'a>(
    spike: &Spike,
    ring: impl IntoIterator<Item = &'a Interval>,
    catalog: &Catalog,
) -> Vec<Cause> {
    let (during, others): (Vec<&Interval>, Vec<&Interval>) = ring.into_iter().partition(|i| {
        i.overlaps(
            spike.previous_wake_ns,
            spike.wake_ns.max(spike.previous_wake_ns + 1),
        )
    });
    // The baseline is what happened away from the spike: a burst that goes on around it
    // (hundreds of milliseconds of network traffic) must not be its own "usual".
    let away: Vec<&Interval> = others
        .iter()
        .copied()
        .filter(|i| {
            !i.overlaps(
                spike.previous_wake_ns.saturating_sub(BASELINE_GAP_NS),
                spike.wake_ns.saturating_add(BASELINE_GAP_NS),
            )
        })
        .collect();
    let baseline = if away.is_empty() { others } else { away };
    explain_with(spike, &during, &baseline, catalog)
}

/// [`explain`] with the evidence (`during`) and the `baseline` intervals given apart.
pub fn explain_with(
    spike: &Spike,
    during: &[&Interval],
    baseline: &[&Interval],
    catalog: &Catalog,
) -> Vec<Cause> {
    let mut causes = Vec::new();
    let cpu = spike.cpu;
    let window_ns: u64 = during.iter().map(|i| i.duration_ns()).sum();
    let cpu_index = during
        .iter()
        .chain(baseline)
        .find_map(|i| i.cpus.iter().position(|c| c.cpu == cpu));
    // The usual amount of a counter over `window_ns`: the 90th percentile of its rate over
    // the baseline intervals, or infinite (nothing is unusual) without a baseline.
    let usual = |count: &dyn Fn(&Interval) -> u64| -> f64 {
        let mut rates: Vec<f64> = baseline
            .iter()
            .filter(|i| i.duration_ns() > 0)
            .map(|i| count(i) as f64 / i.duration_ns() as f64)
            .collect();
        if rates.is_empty() {
            return f64::INFINITY;
        }
        let at = (rates.len() * 9 / 10).min(rates.len() - 1);
        *rates.select_nth_unstable_by(at, f64::total_cmp).1 * window_ns as f64
    };
    let on_cpu = |i: &Interval| i.cpu(cpu).cloned();
    let sum = |count: &dyn Fn(&Interval) -> u64| -> u64 { during.iter().map(|i| count(i)).sum() };

    // The measuring thread itself.
    let mine = |i: &Interval| {
        i.threads
            .iter()
            .filter(|t| {
                spike
                    .tid
                    .map_or(t.cpu_after == Some(cpu as u32), |tid| t.tid == tid)
            })
            .copied()
            .collect::<Vec<_>>()
    };
    let mut my_priority = None;
    let (mut preempted, mut migrations) = (0u64, Vec::new());
    for interval in during {
        for thread in mine(interval) {
            preempted += thread.preempted;
            if thread.migrated() {
                migrations.push((
                    thread.cpu_before.unwrap_or(0),
                    thread.cpu_after.unwrap_or(0),
                    thread.migrations,
                ));
            }
            my_priority = Some(thread.rt_priority);
        }
    }
    for (from, to, moves) in migrations {
        let text = if from == to {
            format!(
                "the measuring thread migrated {moves}× off CPU {from} and back: pin it (rtlat run -a) and keep other tools from moving it (rtlat threads)"
            )
        } else {
            format!(
                "the measuring thread migrated from CPU {from} to CPU {to}: pin it (rtlat run -a)"
            )
        };
        causes.push(Cause {
            score: NEVER_NORMAL + 500_000_000,
            text,
            audit: None,
        });
    }
    if preempted > 0 {
        causes.push(Cause {
            score: NEVER_NORMAL + 400_000_000,
            text: format!("the measuring thread was preempted {preempted}× on CPU {cpu}"),
            audit: None,
        });
    }

    // Tasks that ran on the CPU, summed over the window, each named and classed as it was
    // last seen (a task that execs changes its name: `chrt … taskset … sh` is `sh` once it
    // runs the loop).
    let mut ran: BTreeMap<u32, TaskRun> = BTreeMap::new();
    for interval in during {
        for task in on_cpu(interval).iter().flat_map(|c| c.tasks.iter()) {
            ran.entry(task.tid)
                .and_modify(|t| {
                    let total = t.ran_ns + task.ran_ns;
                    *t = *task;
                    t.ran_ns = total;
                })
                .or_insert(*task);
        }
    }
    // The measuring thread's own time on its CPU is not a cause.
    for task in ran.values().filter(|t| spike.tid != Some(t.tid)) {
        let outranks = task.is_real_time() && my_priority.is_none_or(|p| task.rt_priority >= p);
        // Below the margin nothing is unusual: no baseline to compute.
        if (task.ran_ns as f64) <= RUN_MARGIN_NS && !outranks {
            continue;
        }
        let usual_ns = usual(&|i: &Interval| {
            i.cpu(cpu)
                .and_then(|c| c.tasks.iter().find(|t| t.tid == task.tid))
                .map_or(0, |t| t.ran_ns)
        });
        let usual_ns = if usual_ns.is_finite() { usual_ns } else { 0.0 };
        if (task.ran_ns as f64) <= usual_ns * 1.5 + RUN_MARGIN_NS && !outranks {
            continue;
        }
        let class = if task.is_real_time() {
            format!("{} {}", task.policy_name(), task.rt_priority)
        } else {
            task.policy_name().to_owned()
        };
        let thread = if task.tid == task.pid {
            String::new()
        } else {
            format!(", tid {}", task.tid)
        };
        causes.push(Cause {
            score: task.ran_ns + if outranks { 2 * NEVER_NORMAL } else { 0 },
            text: format!(
                "{class} task {} (pid {}{thread}) ran on CPU {cpu} for {}",
                task.comm(),
                task.pid,
                duration(task.ran_ns)
            ),
            audit: Some("threads.on_isolated"),
        });
    }

    // Thermal throttling.
    let throttles = sum(&|i| i.cpu(cpu).map_or(0, |c| c.throttles));
    if throttles > 0 {
        causes.push(Cause {
            score: NEVER_NORMAL,
            text: format!(
                "thermal throttling ×{throttles} on CPU {cpu}: cool the machine or lower its load"
            ),
            audit: None,
        });
    }

    // Deep idle states whose exit latency explains a good part of the spike.
    if let Some(states) = cpu_index.and_then(|k| catalog.idle.get(k)) {
        for (k, state) in states.iter().enumerate() {
            let entered = sum(&|i| {
                i.cpu(cpu)
                    .and_then(|c| c.idle_usage.get(k).copied())
                    .unwrap_or(0)
            });
            let exit_ns = state.latency_us * 1000;
            if entered > 0
                && exit_ns > 0
                && exit_ns.saturating_mul(4) >= spike.latency_ns.max(0) as u64
            {
                causes.push(Cause {
                    score: exit_ns,
                    text: format!(
                        "deep idle state {} (exit latency {} µs) entered {entered}× on CPU {cpu}: hold /dev/cpu_dma_latency at 0 (rtlat run does, unless --laptop or --default-system)",
                        state.name, state.latency_us
                    ),
                    audit: Some("cpuidle.dma_latency"),
                });
            }
        }
    }

    // Hard interrupts per line.
    for (k, line) in catalog.irqs.iter().enumerate() {
        let count = |i: &Interval| i.cpu(cpu).and_then(|c| c.irqs.get(k).copied()).unwrap_or(0);
        let fired = sum(&count);
        // Most lines are silent in the window: no baseline to compute for them.
        if fired as f64 <= EVENTS_MARGIN {
            continue;
        }
        let usual = usual(&count);
        if fired as f64 <= usual * 1.5 + EVENTS_MARGIN {
            continue;
        }
        let (text, audit) = match line.irq {
            Some(irq) => (
                format!(
                    "IRQ {irq} ({}) fired {fired}× on CPU {cpu} (usually {:.0}): move it with rtlat irq --away-from {cpu}",
                    line.name, usual
                ),
                Some("irq.on_isolated"),
            ),
            None => (
                format!(
                    "{} interrupts ({}) ×{fired} on CPU {cpu} (usually {:.0})",
                    line.label, line.name, usual
                ),
                None,
            ),
        };
        causes.push(Cause {
            score: (fired as f64 - usual) as u64 * IRQ_NS,
            text,
            audit,
        });
    }

    // Softirqs per type.
    for (k, name) in SOFTIRQS.iter().enumerate() {
        let count = |i: &Interval| i.cpu(cpu).map_or(0, |c| c.softirqs[k]);
        let raised = sum(&count);
        if raised as f64 <= EVENTS_MARGIN {
            continue;
        }
        let usual = usual(&count);
        if raised as f64 <= usual * 1.5 + EVENTS_MARGIN {
            continue;
        }
        causes.push(Cause {
            score: (raised as f64 - usual) as u64 * SOFTIRQ_NS,
            text: format!("{name} softirq ×{raised} on CPU {cpu} (usually {usual:.0})"),
            audit: None,
        });
    }

    // A frequency below the one the CPU ran at around the spike.
    let slowest = during.iter().filter_map(|i| i.cpu(cpu)?.freq_khz).min();
    let fastest = baseline.iter().filter_map(|i| i.cpu(cpu)?.freq_khz).max();
    if let (Some(slow), Some(fast)) = (slowest, fastest)
        && slow * 10 < fast * 9
    {
        causes.push(Cause {
            score: 1_000,
            text: format!(
                "CPU {cpu} ran at {} MHz, {} MHz at other times: set the performance governor (rtlat cpufreq --governor performance --apply)",
                slow / 1000,
                fast / 1000
            ),
            audit: Some("cpufreq.governor"),
        });
    }

    causes.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.text.cmp(&b.text)));
    causes
}

/// A duration as the verdicts write it: `4.1 ms`, `230 µs`, `7.1 µs`, `800 ns` (three
/// significant figures at most, a tenth of a µs where it matters).
pub(super) fn duration(ns: u64) -> String {
    if ns >= 1_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else if ns >= 10_000 {
        format!("{} µs", ns / 1_000)
    } else if ns >= 1_000 {
        format!("{:.1} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::super::interval::{CpuInterval, ThreadInterval};
    use super::super::sampler::{IdleName, IrqLine};
    use super::*;

    const MS: u64 = 1_000_000;

    fn catalog() -> Catalog {
        Catalog {
            irqs: vec![
                IrqLine {
                    label: "24".into(),
                    irq: Some(24),
                    name: "enp1s0".into(),
                },
                IrqLine {
                    label: "LOC".into(),
                    irq: None,
                    name: "Local timer interrupts".into(),
                },
            ],
            idle: vec![vec![
                IdleName {
                    name: "POLL".into(),
                    latency_us: 0,
                },
                IdleName {
                    name: "C6".into(),
                    latency_us: 133,
                },
            ]],
        }
    }

    /// A quiet 5 ms interval on CPU 1: the tick, a few timer softirqs, a short kworker run,
    /// the measuring thread (tid 50) staying on CPU 1.
    fn quiet(k: u64) -> Interval {
        let mut cpu = CpuInterval {
            cpu: 1,
            irqs: vec![0, 5],
            idle_usage: vec![5, 0],
            idle_time_us: vec![4000, 0],
            freq_khz: Some(2_400_000),
            ..Default::default()
        };
        cpu.softirqs[1] = 5;
        cpu.add_task(TaskRun::new(7, 7, "kworker/1:1", 20_000, 0, 0));
        Interval {
            start_ns: k * 5 * MS,
            end_ns: (k + 1) * 5 * MS,
            cpus: vec![cpu],
            threads: vec![ThreadInterval {
                tid: 50,
                preempted: 0,
                cpu_before: Some(1),
                cpu_after: Some(1),
                rt_priority: 80,
                migrations: 0,
            }],
        }
    }

    fn spike_in(k: u64) -> Spike {
        Spike {
            cpu: 1,
            tid: Some(50),
            previous_wake_ns: k * 5 * MS + MS,
            wake_ns: k * 5 * MS + 2 * MS + 300_000,
            latency_ns: 300_000,
        }
    }

    fn ring_with(spike: Interval) -> Vec<Interval> {
        let mut ring: Vec<Interval> = (0..20).map(quiet).collect();
        ring[10] = Interval {
            start_ns: 50 * MS,
            end_ns: 55 * MS,
            ..spike
        };
        ring
    }

    #[test]
    fn a_spike_of_a_cycle_spans_the_previous_deadline_to_the_late_wake_up() {
        let spike = Spike::of_cycle(1, Some(50), 1_000, 100, 7, 30);
        assert_eq!((spike.previous_wake_ns, spike.wake_ns), (1_600, 1_730));
        assert_eq!(Spike::of_wake(1, Some(50), 1_730, 30, 100), spike);
        let first = Spike::of_cycle(1, None, 1_000, 100, 0, -5);
        assert_eq!((first.previous_wake_ns, first.wake_ns), (1_000, 995));
    }

    #[test]
    fn a_quiet_interval_names_no_cause() {
        let ring: Vec<Interval> = (0..20).map(quiet).collect();
        assert_eq!(explain(&spike_in(10), &ring, &catalog()), []);
        // Without a baseline, counted events are never named either.
        assert_eq!(explain(&spike_in(10), &ring[10..11], &catalog()), []);
    }

    #[test]
    fn a_higher_priority_fifo_task_comes_first_with_pid_and_priority() {
        let mut busy = quiet(10);
        busy.cpus[0].add_task(TaskRun::new(1234, 1234, "stress-ng", 4_100_000, 1, 95));
        busy.threads[0].preempted = 1;
        let causes = explain(&spike_in(10), &ring_with(busy), &catalog());
        let lines: Vec<String> = causes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "SCHED_FIFO 95 task stress-ng (pid 1234) ran on CPU 1 for 4.1 ms (rtlat audit: threads.on_isolated)",
                "the measuring thread was preempted 1× on CPU 1",
            ]
        );
    }

    #[test]
    fn irqs_softirqs_idle_states_migration_throttling_and_frequency_are_named() {
        let mut busy = quiet(10);
        busy.cpus[0].irqs[0] = 3;
        busy.cpus[0].softirqs[3] = 812;
        busy.cpus[0].idle_usage[1] = 3;
        busy.cpus[0].throttles = 2;
        busy.cpus[0].freq_khz = Some(800_000);
        busy.threads[0].cpu_before = Some(0);
        let causes = explain(&spike_in(10), &ring_with(busy), &catalog());
        let lines: Vec<String> = causes.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "the measuring thread migrated from CPU 0 to CPU 1: pin it (rtlat run -a)",
                "thermal throttling ×2 on CPU 1: cool the machine or lower its load",
                "NET_RX softirq ×812 on CPU 1 (usually 0)",
                "deep idle state C6 (exit latency 133 µs) entered 3× on CPU 1: hold /dev/cpu_dma_latency at 0 (rtlat run does, unless --laptop or --default-system) (rtlat audit: cpuidle.dma_latency)",
                "IRQ 24 (enp1s0) fired 3× on CPU 1 (usually 0): move it with rtlat irq --away-from 1 (rtlat audit: irq.on_isolated)",
                "CPU 1 ran at 800 MHz, 2400 MHz at other times: set the performance governor (rtlat cpufreq --governor performance --apply) (rtlat audit: cpufreq.governor)",
            ]
        );
    }

    #[test]
    fn the_usual_tick_and_the_usual_kworker_are_not_causes_but_a_burst_is() {
        let mut busy = quiet(10);
        busy.cpus[0].irqs[1] = 7; // the tick, within its usual 5 + margin
        let ring = ring_with(busy.clone());
        assert_eq!(explain(&spike_in(10), &ring, &catalog()), []);
        busy.cpus[0].irqs[1] = 40;
        busy.cpus[0].tasks[0].ran_ns = 900_000;
        let lines: Vec<String> = explain(&spike_in(10), &ring_with(busy), &catalog())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            lines,
            [
                "SCHED_OTHER task kworker/1:1 (pid 7) ran on CPU 1 for 900 µs (rtlat audit: threads.on_isolated)",
                "LOC interrupts (Local timer interrupts) ×40 on CPU 1 (usually 5)",
            ]
        );
    }
}
