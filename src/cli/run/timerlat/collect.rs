//! The timerlat trace as it is read: each sample into its CPU's histograms and, with
//! `--explain`, the noise events of the last seconds kept per CPU so that each wake-up among
//! the CPU's worst is split into its parts (rtlat-system's `breakdown`) once its period is
//! complete: at its `user-ret` sample for a user-space workload (a thread held up after its
//! wake-up is late at its next wait, which only that sample shows), else when the next
//! period's thread sample comes or the trace ends.

use std::collections::{BTreeMap, VecDeque};

use rtlat_engine::run::{RunHistogram, new_run_histogram};
use rtlat_system::noise::breakdown::{Breakdown, Period, breakdown};
use rtlat_system::noise::timerlat::{Context, TimerlatLine};
use rtlat_system::noise::tracer::NoiseEvent;

/// How many wake-ups are kept in parts per CPU, worst first.
pub const WORST: usize = 8;

/// How long noise events are kept: far longer than any period the tracer takes (1 s) and a
/// hog's hold on a CPU before the RT throttle (0.95 s of each second by default).
const KEEP_NS: u64 = 5_000_000_000;

/// At most this many noise events are kept per CPU (the oldest go first).
const KEEP_EVENTS: usize = 65_536;

/// A wake-up in parts, and its return from user space when the trace had it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spike {
    /// The thread latency in parts.
    pub breakdown: Breakdown,
    /// The `user-ret` latency of the same period (user workload).
    pub user_ns: Option<u64>,
}

/// One CPU's figures from the trace.
pub struct CpuFigures {
    /// The timer IRQ's latency.
    pub irq: Box<RunHistogram>,
    /// The woken thread's, in the kernel.
    pub thread: Box<RunHistogram>,
    /// The return from user space (user workload only).
    pub user: Box<RunHistogram>,
    /// Events the ring buffer dropped on this CPU.
    pub lost: u64,
    /// With `--explain`: the worst wake-ups in parts, worst first.
    pub spikes: Vec<Spike>,
}

/// What is followed per CPU while the trace is read.
struct Cpu {
    figures: CpuFigures,
    /// The noise events of the last [`KEEP_NS`].
    recent: VecDeque<NoiseEvent>,
    /// The last IRQ sample: its period, stamp and latency.
    irq: Option<(u64, u64, u64)>,
    /// With `--explain`: the period whose thread sample came, waiting for its `user-ret`.
    pending: Option<Period>,
}

impl Cpu {
    fn new() -> Cpu {
        Cpu {
            figures: CpuFigures {
                irq: new_run_histogram(),
                thread: new_run_histogram(),
                user: new_run_histogram(),
                lost: 0,
                spikes: Vec::new(),
            },
            recent: VecDeque::new(),
            irq: None,
            pending: None,
        }
    }
}

/// Reads the trace's lines into per-CPU figures.
pub struct Collector {
    explain: bool,
    cpus: BTreeMap<usize, Cpu>,
}

/// Whether a noise event counts against the woken thread: not the idle task, not the
/// tracer's own threads, not rtlat's measuring threads (the workload itself).
fn interferes(e: &NoiseEvent) -> bool {
    e.pid != Some(0)
        && !e.name.starts_with("swapper/")
        && !e.name.starts_with("timerlat/")
        && !e.name.starts_with("rtlat-t")
}

impl Collector {
    /// A collector; with `explain`, wake-ups are kept in parts.
    pub fn new(explain: bool) -> Collector {
        Collector {
            explain,
            cpus: BTreeMap::new(),
        }
    }

    /// Takes one line of the trace.
    pub fn line(&mut self, line: TimerlatLine) {
        match line {
            TimerlatLine::Sample {
                cpu,
                stamp_ns,
                seq,
                context,
                latency_ns,
            } => {
                let state = self.cpus.entry(cpu).or_insert_with(Cpu::new);
                let value = i64::try_from(latency_ns).unwrap_or(i64::MAX);
                match context {
                    Context::Irq => {
                        state.figures.irq.record(value);
                        state.irq = Some((seq, stamp_ns, latency_ns));
                    }
                    Context::Thread => {
                        state.figures.thread.record(value);
                        if self.explain {
                            // A period still waiting gets no user-ret sample now.
                            if let Some(period) = state.pending.take() {
                                keep_if_worst(state, period);
                            }
                            // The IRQ sample of the same period (a lost one leaves the
                            // period out).
                            state.pending = state
                                .irq
                                .filter(|&(irq_seq, _, _)| irq_seq == seq)
                                .map(|(_, irq_stamp, irq_ns)| Period {
                                    cpu,
                                    seq,
                                    irq: (irq_stamp, irq_ns),
                                    thread: (stamp_ns, latency_ns),
                                    user: None,
                                });
                        }
                    }
                    Context::User => {
                        state.figures.user.record(value);
                        if let Some(mut period) = state.pending.take() {
                            if period.seq == seq {
                                period.user = Some((stamp_ns, latency_ns));
                            }
                            keep_if_worst(state, period);
                        }
                    }
                }
            }
            TimerlatLine::Noise(event) => {
                let state = self.cpus.entry(event.cpu).or_insert_with(Cpu::new);
                let newest = event.end_ns;
                state.recent.push_back(event);
                while state.recent.len() > KEEP_EVENTS
                    || state
                        .recent
                        .front()
                        .is_some_and(|e| e.end_ns.saturating_add(KEEP_NS) < newest)
                {
                    state.recent.pop_front();
                }
            }
            TimerlatLine::Lost { cpu, events } => {
                self.cpus.entry(cpu).or_insert_with(Cpu::new).figures.lost += events;
            }
        }
    }

    /// The figures per CPU.
    pub fn finish(self) -> BTreeMap<usize, CpuFigures> {
        self.cpus
            .into_iter()
            .map(|(cpu, mut state)| {
                if let Some(period) = state.pending.take() {
                    keep_if_worst(&mut state, period);
                }
                (cpu, state.figures)
            })
            .collect()
    }
}

/// A complete period among the CPU's [`WORST`] so far is split into parts, from the noise
/// events kept.
fn keep_if_worst(state: &mut Cpu, period: Period) {
    let spikes = &mut state.figures.spikes;
    let whole = period.whole_ns();
    if spikes.len() >= WORST
        && spikes
            .last()
            .is_some_and(|s| s.breakdown.whole_ns() >= whole)
    {
        return;
    }
    let spike = Spike {
        breakdown: breakdown(&period, &state.recent, interferes),
        user_ns: period.user.map(|(_, ns)| ns),
    };
    let at = spikes
        .iter()
        .position(|s| s.breakdown.whole_ns() < whole)
        .unwrap_or(spikes.len());
    spikes.insert(at, spike);
    spikes.truncate(WORST);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_system::noise::breakdown::PartKind;
    use rtlat_system::noise::timerlat::parse_line;

    /// A CPU 1 trace as the 6.12 kernel prints it with the noise events on: three periods,
    /// the second with a hog woken between its IRQ and the thread.
    const TRACE: &str = "\
          <idle>-0       [001] d.h2.   100.001010: #1     context    irq timer_latency     10000 ns
        rtlat-t0-311     [001] .....   100.001030: #1     context thread timer_latency     30000 ns
        rtlat-t0-311     [001] .....   100.001040: #1     context user-ret timer_latency     40000 ns
          <idle>-0       [001] d.h2.   100.002005: #2     context    irq timer_latency      5000 ns
              sh-400     [001] d..2.   100.002605: thread_noise:       sh:400 start 100.002005000 duration 600000 ns
          <idle>-0       [001] d.h1.   100.002615: irq_noise: local_timer:236 start 100.002610000 duration 5000 ns
        rtlat-t0-311     [001] .....   100.002705: #2     context thread timer_latency    705000 ns
        rtlat-t0-311     [001] .....   100.002715: #2     context user-ret timer_latency    715000 ns
          <idle>-0       [001] d.h2.   100.003002: #3     context    irq timer_latency      2000 ns
        rtlat-t0-311     [001] .....   100.003012: #3     context thread timer_latency     12000 ns
CPU:1 [LOST 3 EVENTS]
";

    fn collect(explain: bool) -> BTreeMap<usize, CpuFigures> {
        let mut collector = Collector::new(explain);
        for line in TRACE.lines().filter_map(parse_line) {
            collector.line(line);
        }
        collector.finish()
    }

    #[test]
    fn each_sample_goes_to_its_cpu_and_part() {
        let cpus = collect(false);
        let cpu = &cpus[&1];
        assert_eq!(cpu.irq.count(), 3);
        assert_eq!(cpu.thread.count(), 3);
        assert_eq!(cpu.user.count(), 2);
        assert_eq!(cpu.thread.summary().max(), Some(705_000));
        assert_eq!(cpu.lost, 3);
        assert!(cpu.spikes.is_empty(), "parts only with --explain");
    }

    #[test]
    fn with_explain_the_worst_wake_ups_are_in_parts_that_add_up() {
        let cpus = collect(true);
        let spikes = &cpus[&1].spikes;
        assert_eq!(spikes.len(), 3);
        let worst = &spikes[0];
        assert_eq!(worst.breakdown.period.seq, 2);
        assert_eq!(worst.user_ns, Some(715_000));
        // With the user-ret sample, the parts add up to it: the thread's, then its way back.
        assert_eq!(
            worst.breakdown.parts.iter().map(|p| p.ns).sum::<u64>(),
            715_000
        );
        assert_eq!(
            worst.breakdown.parts.last().map(|p| (p.kind, p.ns)),
            Some((PartKind::ReturnToWait, 10_000))
        );
        // The last period has no user-ret sample: its thread latency is the whole.
        let last = spikes.iter().find(|s| s.breakdown.period.seq == 3).unwrap();
        assert_eq!((last.user_ns, last.breakdown.whole_ns()), (None, 12_000));
        let hog = worst
            .breakdown
            .parts
            .iter()
            .find(|p| p.name == "sh:400")
            .expect("the hog named");
        assert_eq!(hog.kind, PartKind::Thread);
        assert_eq!(hog.ns, 600_000);
        // Worst first.
        assert!(
            spikes
                .windows(2)
                .all(|w| w[0].breakdown.whole_ns() >= w[1].breakdown.whole_ns())
        );
    }

    /// The 6.12 guest's case: a hog on the CPU after the thread's wake-up, before its next
    /// `read`. The thread latency is small; the user-ret sample carries the hold-up.
    const HELD_AFTER_WAKE: &str = "\
          <idle>-0       [001] d.h2.   200.001004: #1     context    irq timer_latency      4000 ns
        rtlat-t0-311     [001] .....   200.001020: #1     context thread timer_latency     20000 ns
              sh-528     [001] d..2.   201.001025: thread_noise:       sh:528 start 200.001025000 duration 1000000000 ns
        rtlat-t0-311     [001] .....   201.001040: #1     context user-ret timer_latency 1000040000 ns
          <idle>-0       [001] d.h2.   201.002003: #2     context    irq timer_latency      3000 ns
        rtlat-t0-311     [001] .....   201.002013: #2     context thread timer_latency     13000 ns
";

    #[test]
    fn a_thread_held_up_after_its_wake_up_is_the_worst_with_the_hog_named() {
        let mut collector = Collector::new(true);
        for line in HELD_AFTER_WAKE.lines().filter_map(parse_line) {
            collector.line(line);
        }
        let cpus = collector.finish();
        let spikes = &cpus[&1].spikes;
        assert_eq!(spikes.len(), 2);
        let worst = &spikes[0];
        assert_eq!(worst.breakdown.period.seq, 1);
        assert_eq!(worst.breakdown.whole_ns(), 1_000_040_000);
        assert_eq!(
            worst.breakdown.parts.iter().map(|p| p.ns).sum::<u64>(),
            1_000_040_000
        );
        let hog = worst
            .breakdown
            .parts
            .iter()
            .find(|p| p.name == "sh:528")
            .expect("the hog named");
        assert_eq!((hog.kind, hog.ns), (PartKind::Thread, 1_000_000_000));
    }
}
