//! The measurement thread: set up once, then sleep, read the clock, record — nothing else.
//!
//! Everything a cycle touches (histograms, the `-v` ring, the overflow list, the stack) is
//! allocated and written before the first cycle. Inside the loop there is no allocation, no
//! lock, no formatting and no system call but the timer's sleep and the clock read; figures
//! leave through [`LiveStatus`] (a sequence lock the thread never waits on).

use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use rtlat_core::cycle::Sample;
use rtlat_core::{CycleConfig, CycleEngine, Histogram, Linear, Outcome, Stats};
use rtlat_linux::{
    AnyTimer, ClockId, Ftrace, PageFaults, Policy, PosixClock, ThreadSetup, TimerKind,
};

use super::live::{LiveFigures, LiveStatus};
use super::report::{LinearReport, RunHistogram, ThreadReport, new_run_histogram};
use super::ring::SampleRing;

/// How one measurement thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasurePlan {
    /// Thread number (0-based).
    pub index: usize,
    /// CPU to pin to.
    pub cpu: Option<usize>,
    /// Scheduling policy.
    pub policy: Policy,
    /// RT priority (0 for non-RT policies).
    pub priority: i32,
    /// Interval, ns.
    pub interval_ns: u64,
    /// Stop after this many cycles.
    pub loops: Option<u64>,
    /// Break the run at the first latency above this, ns.
    pub break_above_ns: Option<i64>,
    /// How to sleep.
    pub timer: TimerKind,
    /// Which clock.
    pub clock: ClockId,
    /// cyclictest's fixed-width histogram: (buckets, width ns).
    pub linear: Option<(usize, u64)>,
    /// First deadline offset from the common start when starts are aligned, ns.
    pub aligned_offset_ns: Option<u64>,
    /// Stack bytes to prefault.
    pub prefault_stack: usize,
    /// Nanoseconds per displayed unit: 1000 (µs), or 1 with `-N`.
    pub display_unit_ns: u64,
    /// `--spike`: keep every latency above this (ns), up to `spike_nodes` of them.
    pub spike_above_ns: Option<i64>,
    /// `--spike-nodes`: how many spikes to keep.
    pub spike_nodes: usize,
}

/// State all threads and the main thread share for one run.
#[derive(Debug)]
pub struct RunShared {
    /// Set by any thread (or the main thread) to end the run.
    pub stop: AtomicBool,
    /// Live figures per thread.
    pub live: Vec<LiveStatus>,
    /// `-v` sample rings per thread.
    pub rings: Vec<Option<SampleRing>>,
    /// Every measurement thread and the main thread meet here once set up.
    pub ready: Barrier,
    /// The common start for aligned starts (clock ns), set by the main thread.
    pub epoch_ns: AtomicU64,
    /// Every thread waits here until `epoch_ns` is set.
    pub go: Barrier,
    /// TID of the first thread that crossed the break threshold (0: none).
    pub break_tid: AtomicI32,
    /// ftrace, for `--tracemark` on a break.
    pub ftrace: Option<Ftrace>,
}

/// Runs one measurement thread to the end of the run. Errors are one-line messages.
pub fn run_thread(plan: &MeasurePlan, shared: &RunShared) -> Result<ThreadReport, String> {
    let live = &shared.live[plan.index];
    let ring = shared.rings[plan.index].as_ref();
    let prepared = prepare(plan, live);
    // Meet the others even after a failure, so nobody waits forever.
    shared.ready.wait();
    shared.go.wait();
    let (mut state, mut engine) = prepared?;
    // cyclictest's fixed-width histogram borrows counters allocated (and written) before the run.
    let mut linear_counters = std::mem::take(&mut state.linear_counters);
    let mut linear = match plan.linear {
        Some((_, width)) => Some(
            Linear::new(0, width)
                .and_then(|layout| Histogram::with_storage(layout, &mut linear_counters[..]))
                .map_err(|e| format!("thread {}: {e}", plan.index))?,
        ),
        None => None,
    };
    if shared.stop.load(Ordering::Acquire) {
        live.set_finished();
        let linear = linear.as_ref().map(|h| state.linear_report(h));
        return Ok(state.finish(plan, &engine, linear, 0));
    }
    match plan.aligned_offset_ns {
        Some(offset) => {
            engine.start_at(shared.epoch_ns.load(Ordering::Acquire) + offset + plan.interval_ns);
        }
        None => engine
            .start()
            .map_err(|e| format!("thread {}: {e}", plan.index))?,
    }

    let mut faults_start = None;
    let allocations_start = crate::allocations::this_thread();
    let result = loop {
        if shared.stop.load(Ordering::Relaxed) {
            break Ok(());
        }
        let outcome = match engine.step(&mut (&mut *state.histogram, &mut state.stats)) {
            Ok(outcome) => outcome,
            Err(e) => break Err(format!("thread {}: {e}", plan.index)),
        };
        let (sample, broke) = match outcome {
            Outcome::Sample(s) => (s, false),
            Outcome::Break(s) => (s, true),
            Outcome::Done => break Ok(()),
        };
        state.last_ns = sample.latency_ns;
        if plan.spike_above_ns.is_some_and(|t| sample.latency_ns > t) {
            state.spikes_total += 1;
            if state.spikes.len() < state.spikes.capacity() {
                state.spikes.push((sample.latency_ns, sample.wake_ticks));
            }
        }
        if let Some(h) = linear.as_mut() {
            let outside = h.underflow() + h.overflow();
            h.record(sample.latency_ns);
            if h.underflow() + h.overflow() > outside
                && state.overflow_cycles.len() < state.overflow_cycles.capacity()
            {
                state.overflow_cycles.push(sample.cycle);
            }
        }
        live.publish(&state.figures(sample.latency_ns, engine.overruns()));
        if let Some(ring) = ring {
            ring.push(sample.cycle, sample.latency_ns);
        }
        if faults_start.is_none() {
            // From the second cycle on: the first one pages in the loop's own code.
            faults_start = Some(PageFaults::current().map(|f| f.minor).unwrap_or(0));
        }
        if broke {
            state.broke = Some(sample);
            if shared
                .break_tid
                .compare_exchange(0, state.tid, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
                && let Some(ftrace) = &shared.ftrace
            {
                let unit = plan.display_unit_ns as i64;
                let threshold = plan.break_above_ns.map_or(0, |t| (t + 1) / unit - 1);
                let _ = ftrace.write_marker_fmt(format_args!(
                    "hit latency threshold ({} > {})",
                    sample.latency_ns / unit,
                    threshold
                ));
                let _ = ftrace.stop();
            }
            break Ok(());
        }
    };
    let allocations = crate::allocations::this_thread() - allocations_start;
    let faults = faults_start.map_or(0, |start| {
        PageFaults::current()
            .map(|f| f.minor.saturating_sub(start))
            .unwrap_or(0)
    });
    // The first thread to finish its loops, break or fail ends the run (cyclictest's rule).
    shared.stop.store(true, Ordering::Release);
    live.set_finished();
    result?;
    let linear = linear.as_ref().map(|h| state.linear_report(h));
    let mut report = state.finish(plan, &engine, linear, faults);
    report.allocations = allocations;
    Ok(report)
}

/// Everything a thread records into, allocated and touched before the first cycle.
struct ThreadState {
    tid: i32,
    histogram: Box<RunHistogram>,
    stats: Stats,
    last_ns: i64,
    linear_counters: Vec<u64>,
    overflow_cycles: Vec<u64>,
    spikes: Vec<(i64, u64)>,
    spikes_total: u64,
    broke: Option<Sample>,
}

type Engine = CycleEngine<PosixClock, AnyTimer>;

/// Sets up the calling thread and allocates its state.
fn prepare(plan: &MeasurePlan, live: &LiveStatus) -> Result<(ThreadState, Engine), String> {
    let failed = |e: rtlat_linux::Error| format!("thread {}: {e}", plan.index);
    rtlat_linux::signals::block_run_signals().map_err(failed)?;
    let mut setup = ThreadSetup::new(plan.policy, plan.priority);
    setup.cpus = plan.cpu.into_iter().collect();
    setup.prefault_stack = plan.prefault_stack;
    let tid = setup.apply().map_err(failed)?;
    live.set_tid(tid);

    let histogram = new_run_histogram();
    let buckets = plan.linear.map_or(0, |(buckets, _)| buckets);
    let linear_counters = vec![0u64; buckets + 2];
    // Written to the full capacity once, so pushes during the run touch mapped pages only.
    let mut overflow_cycles = vec![0u64; buckets];
    touch(&mut overflow_cycles);
    overflow_cycles.clear();
    let spike_capacity = if plan.spike_above_ns.is_some() {
        plan.spike_nodes
    } else {
        0
    };
    let mut spikes = Vec::with_capacity(spike_capacity);
    spikes.resize(spike_capacity, (0i64, 0u64));
    for s in spikes.iter_mut() {
        *s = black_box((0, 0));
    }
    spikes.clear();

    let clock = PosixClock::new(plan.clock);
    let timer = AnyTimer::new(plan.timer, plan.clock, plan.interval_ns).map_err(failed)?;
    let config = CycleConfig {
        interval_ns: plan.interval_ns,
        loops: plan.loops,
        break_above_ns: plan.break_above_ns,
    };
    let engine = CycleEngine::new(clock, timer, config)
        .map_err(|e| format!("thread {}: {e}", plan.index))?;
    let state = ThreadState {
        tid,
        histogram,
        stats: Stats::new(),
        last_ns: 0,
        linear_counters,
        overflow_cycles,
        spikes,
        spikes_total: 0,
        broke: None,
    };
    Ok((state, engine))
}

/// Writes every element so its pages are mapped before the measurement (a freshly zeroed
/// allocation is only mapped on first write).
fn touch(values: &mut [u64]) {
    for v in values.iter_mut() {
        *v = black_box(0);
    }
}

impl ThreadState {
    /// The live figures after a cycle with latency `act_ns`.
    #[inline]
    fn figures(&self, act_ns: i64, overruns: u64) -> LiveFigures {
        let s = self.stats.summary();
        LiveFigures {
            cycles: s.count(),
            min_ns: s.min().unwrap_or(0),
            act_ns,
            max_ns: s.max().unwrap_or(0),
            sum_ns: s.sum() as i64,
            overruns,
        }
    }

    /// The fixed-width histogram's counts, taken after the run.
    fn linear_report(&mut self, h: &Histogram<Linear, &mut [u64]>) -> LinearReport {
        LinearReport {
            width_ns: h.layout().width(),
            counts: (0..h.bucket_count())
                .map(|i| h.bucket(i).map_or(0, |b| b.count))
                .collect(),
            overflows: h.overflow() + h.underflow(),
            underflows: h.underflow(),
            overflow_cycles: std::mem::take(&mut self.overflow_cycles),
        }
    }

    fn finish(
        self,
        plan: &MeasurePlan,
        engine: &Engine,
        linear: Option<LinearReport>,
        minor_faults: u64,
    ) -> ThreadReport {
        ThreadReport {
            index: plan.index,
            tid: self.tid,
            cpu: plan.cpu,
            priority: plan.priority,
            interval_us: plan.interval_ns / 1000,
            stats: self.stats,
            last_ns: self.last_ns,
            overruns: engine.overruns(),
            max_at: engine.max(),
            histogram: self.histogram,
            linear,
            broke: self.broke,
            minor_faults,
            allocations: 0,
            spikes: self.spikes,
            spikes_total: self.spikes_total,
        }
    }
}
