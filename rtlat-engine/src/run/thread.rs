//! One of cyclictest's measuring threads: set up once ([`prepare`]),
//! then the engine's loop ([`measure`]) with this mode's per-cycle work: the histograms,
//! the spike list, the live figures, the `-v` ring, the per-second windows, the break and
//! `-D`. Figures leave through [`LiveStatus`] (a sequence lock the thread never waits on).

use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use rtlat_core::windows::SecondWindows;
use rtlat_core::{Clock, CycleConfig, CycleEngine, Linear, Record, Sample, Skip, Summary, Timer};
use rtlat_linux::msr::SmiCounter;
use rtlat_linux::{Ftrace, TimerKind};

use super::report::{LinearReport, RunHistogram, ThreadReport};
use crate::error::{MeasureError, OnThread, ThreadName};
use crate::measure::{Flow, PerCycle, measure};
use crate::rings::{SampleRing, SmiSampleRing, WindowRing, window_ring};
use crate::setup::{Setup, prepare};
use crate::tap::WakeTap;
use crate::timers::{
    ClockFailure, ClockSource, TimerFigures, WakeError, WithClockAndTimer, with_clock_and_timer,
};
use crate::{LiveFigures, LiveStatus, SECOND_NS};

/// How one measuring thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasurePlan {
    /// Thread number (0-based).
    pub index: usize,
    /// CPU, policy, priority, stack prefault.
    pub setup: Setup,
    /// Interval, ns.
    pub interval_ns: u64,
    /// Stop after this many cycles.
    pub loops: Option<u64>,
    /// `-D`: stop after the first cycle that wakes this long (ns) after the thread's start
    /// (its first deadline less one interval), that cycle counted, as cyclictest does.
    pub duration_ns: Option<u64>,
    /// Break the run at the first latency above this, ns.
    pub break_above_ns: Option<i64>,
    /// How to sleep.
    pub timer: TimerKind,
    /// Which clock.
    pub clock: ClockSource,
    /// cyclictest's fixed-width histogram: (buckets, width ns).
    pub linear: Option<(usize, u64)>,
    /// First deadline offset from the common start when starts are aligned, ns.
    pub aligned_offset_ns: Option<u64>,
    /// Nanoseconds per displayed unit: 1000 (µs), or 1 with `-N`.
    pub display_unit_ns: u64,
    /// `--spike`: keep every latency above this (ns), up to `spike_nodes` of them.
    pub spike_above_ns: Option<i64>,
    /// `--spike-nodes`: how many spikes to keep.
    pub spike_nodes: usize,
    /// Keep per-second windows for the JSON time series (off without `--json`: the loop
    /// then pays nothing for them).
    pub seconds_series: bool,
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
    /// `--explain` wake-up taps per thread (empty or `None`: off).
    pub taps: Vec<Option<WakeTap>>,
    /// Every measuring thread and the main thread meet here once set up.
    pub ready: Barrier,
    /// The common start for aligned starts (clock ns), set by the main thread.
    pub epoch_ns: AtomicU64,
    /// Every thread waits here until `epoch_ns` is set.
    pub go: Barrier,
    /// TID of the first thread that crossed the break threshold (0: none).
    pub break_tid: AtomicI32,
    /// ftrace, for `--tracemark` on a break.
    pub ftrace: Option<Ftrace>,
    /// `--smi`: each thread's SMI counter (its CPU's `MSR_SMI_COUNT`), opened by the main
    /// thread before the run; empty without `--smi`. Read once before the first cycle and
    /// after every wake-up, as cyclictest reads it.
    pub smi: Vec<SmiCounter>,
    /// `--smi` with `-v`: the sample rings with each cycle's SMIs, in place of `rings`.
    pub smi_rings: Vec<Option<SmiSampleRing>>,
    /// Per-second windows per thread, drained by the main thread into the time series (see
    /// [`crate::seconds`]).
    pub seconds: Vec<WindowRing>,
}

impl RunShared {
    /// The state of a run of `threads` measuring threads: `stopped` when a stop came before
    /// the threads start (they then measure nothing), per-second window rings of
    /// `seconds_capacity` windows each (1 when no time series is kept), no `-v` ring, no
    /// `--explain` tap, no ftrace and no SMI counter (set those fields for a run that has
    /// them).
    pub fn new(threads: usize, stopped: bool, seconds_capacity: usize) -> RunShared {
        RunShared {
            stop: AtomicBool::new(stopped),
            live: (0..threads).map(|_| LiveStatus::default()).collect(),
            rings: (0..threads).map(|_| None).collect(),
            taps: (0..threads).map(|_| None).collect(),
            ready: Barrier::new(threads + 1),
            epoch_ns: AtomicU64::new(0),
            go: Barrier::new(threads + 1),
            break_tid: AtomicI32::new(0),
            ftrace: None,
            smi: Vec::new(),
            smi_rings: Vec::new(),
            seconds: (0..threads)
                .map(|_| window_ring(seconds_capacity))
                .collect(),
        }
    }
}

/// Runs one measuring thread to the end of the run. Errors name the thread by its number.
///
/// The loop is compiled once per clock and timer pair and per recorder, so a cycle pays no
/// dispatch on either.
///
/// `histogram`: the log-linear histogram every latency goes into, for a run whose output
/// reads it (percentiles, the JSON's distribution); `None` keeps the exact count, minimum,
/// maximum and sum alone ([`ThreadReport::summary`]), and the loop pays nothing for buckets no
/// output reads. It is made by the caller (on a thread with a large stack): building its
/// 30 KiB on this thread's small stack would need room for the temporaries. `allocations`
/// counts the calling thread's allocations (the program's counting allocator).
pub fn run_thread(
    plan: &MeasurePlan,
    shared: &RunShared,
    histogram: Option<Box<RunHistogram>>,
    allocations: fn() -> u64,
) -> Result<ThreadReport, OnThread> {
    let (clock, timer, interval) = (plan.clock, plan.timer, plan.interval_ns);
    match histogram {
        Some(histogram) => {
            let thread = Thread {
                plan,
                shared,
                recorder: histogram,
                allocations,
            };
            with_clock_and_timer(clock, timer, interval, thread)
        }
        None => {
            let thread = Thread {
                plan,
                shared,
                recorder: Summary::new(),
                allocations,
            };
            with_clock_and_timer(clock, timer, interval, thread)
        }
    }
}

/// What a measuring thread records every latency into.
trait Keep: Send {
    /// The engine's recorder.
    type Recorder: Record;
    /// The recorder, for the engine's step.
    fn recorder(&mut self) -> &mut Self::Recorder;
    /// Exact count, minimum, maximum and sum so far.
    fn summary(&self) -> &Summary;
    /// The summary and, when kept, the histogram, for the report.
    fn into_report(self) -> (Summary, Option<Box<RunHistogram>>);
}

/// Every latency in the log-linear histogram (which keeps the summary too).
impl Keep for Box<RunHistogram> {
    type Recorder = RunHistogram;
    #[inline(always)]
    fn recorder(&mut self) -> &mut RunHistogram {
        self
    }
    #[inline(always)]
    fn summary(&self) -> &Summary {
        RunHistogram::summary(self)
    }
    fn into_report(self) -> (Summary, Option<Box<RunHistogram>>) {
        (*RunHistogram::summary(&self), Some(self))
    }
}

/// The summary alone.
impl Keep for Summary {
    type Recorder = Summary;
    #[inline(always)]
    fn recorder(&mut self) -> &mut Summary {
        self
    }
    #[inline(always)]
    fn summary(&self) -> &Summary {
        self
    }
    fn into_report(self) -> (Summary, Option<Box<RunHistogram>>) {
        (self, None)
    }
}

/// [`run_thread`] waiting for its clock and timer.
struct Thread<'a, K> {
    plan: &'a MeasurePlan,
    shared: &'a RunShared,
    recorder: K,
    allocations: fn() -> u64,
}

impl<K: Keep> WithClockAndTimer for Thread<'_, K> {
    type Output = Result<ThreadReport, OnThread>;

    fn run<C, T>(self, make: impl FnOnce() -> Result<(C, T), MeasureError>) -> Self::Output
    where
        C: Clock,
        C::Error: ClockFailure,
        T: Timer + TimerFigures,
        T::Error: WakeError,
    {
        let Thread {
            plan,
            shared,
            recorder,
            allocations,
        } = self;
        let live = &shared.live[plan.index];
        // However this function ends (finished, broken, failed), the run ends with it and
        // the main thread is told: no path leaves the supervisor waiting.
        let _ending = EndsTheRun {
            live,
            stop: &shared.stop,
        };
        let config = CycleConfig {
            interval_ns: plan.interval_ns,
            loops: plan.loops,
            break_above_ns: plan.break_above_ns,
        };
        let failed = |error: MeasureError| OnThread {
            thread: ThreadName::Index(plan.index),
            error,
        };
        let prepared = prepare::<C, T, Skip>(&plan.setup, |tid| live.set_tid(tid), make, config)
            .map(|(tid, engine)| {
                let counting = !shared.smi.is_empty();
                (ThreadState::new(plan, tid, recorder, counting), engine)
            });
        // Meet the others even after a failure, so nobody waits forever.
        shared.ready.wait();
        shared.go.wait();
        let (state, mut engine) = prepared.map_err(failed)?;
        // cyclictest's fixed-width histogram: counters allocated (and written) before the
        // run, indexed by rtlat-core's linear layout; its min/max/sum are the thread's
        // `Stats`, so no second summary is kept.
        let linear = match plan.linear {
            Some((_, width)) => {
                Some(Linear::new(0, width).map_err(|e| failed(MeasureError::Config(e)))?)
            }
            None => None,
        };
        if shared.stop.load(Ordering::Acquire) {
            return Ok(state.finish(plan, &mut engine, linear, 0));
        }
        // --smi: the count before the first cycle, which the first wake-up's is taken from.
        let smi = shared.smi.get(plan.index);
        let smi_last = match smi.map(SmiCounter::read).transpose() {
            Ok(count) => count.unwrap_or(0),
            Err(e) => return Err(failed(MeasureError::Smi(e))),
        };
        match plan.aligned_offset_ns {
            Some(offset) => {
                // The epoch is in the clock's nanoseconds; the engine counts the clock's ticks.
                let first = shared.epoch_ns.load(Ordering::Acquire) + offset + plan.interval_ns;
                engine.start_at(engine.scale().from_ns(first));
            }
            None => engine.start().map_err(|e| failed(MeasureError::step(e)))?,
        }
        // Per-second windows from this thread's start (its first deadline minus one interval).
        let origin = engine
            .next_deadline()
            .unwrap_or(0)
            .saturating_sub(engine.interval_ticks());
        let seconds = SecondWindows::new(origin, engine.scale().from_ns(SECOND_NS));
        // -D counts from the same start: with --secaligned, the full second the threads wait for.
        let stop_at = plan.duration_ns.map_or(u64::MAX, |d| {
            origin.saturating_add(engine.scale().from_ns(d))
        });

        let ring = shared.rings[plan.index].as_ref();
        let tap = shared.taps.get(plan.index).and_then(Option::as_ref);
        if let (Some(tap), Some(first)) = (tap, engine.next_deadline()) {
            tap.start(first);
        }
        // The features a plain run has off cost the loop two tests per cycle: one for the
        // per-second series (`--json`'s, tested on its own so it pays no other test), one for
        // the rest (the --explain tap, the `-v` ring, the spike list and -D), whose own tests
        // are paid only when one of them is on (the tap or the ring alone skips the spike
        // list's and -D's).
        let others = plan.spike_above_ns.is_some() || plan.duration_ns.is_some();
        let extras = others || tap.is_some() || ring.is_some() || smi.is_some();
        let linear_span = match (&linear, plan.linear) {
            (Some(layout), Some((buckets, _))) => layout.near_span(buckets as u64),
            _ => 0,
        };
        let mut work = RunCycle {
            state,
            linear,
            linear_span,
            seconds,
            extras,
            others,
            seconds_series: plan.seconds_series,
            stop_at,
            spike_above_ns: plan.spike_above_ns.unwrap_or(i64::MAX),
            publish_every: engine.scale().from_ns(PUBLISH_EVERY_NS),
            publish_at: 0,
            plan,
            shared,
            live,
            ring,
            tap,
            smi,
            smi_last,
            smi_ring: shared.smi_rings.get(plan.index).and_then(Option::as_ref),
            seconds_ring: &shared.seconds[plan.index],
        };
        let (result, measured) = measure(&mut engine, &shared.stop, &mut work, allocations);
        let RunCycle {
            mut state,
            linear,
            mut seconds,
            seconds_ring,
            ..
        } = work;
        // The figures after the last cycle, whenever the loop last published (before the
        // thread is marked finished, when this function returns).
        if state.recorder.summary().count() > 0 {
            live.publish(&state.figures(state.last_ns, engine.overruns()));
        }
        if plan.seconds_series {
            seconds.finish(state.recorder.summary(), engine.overruns(), seconds_ring);
        }
        result.map_err(failed)?;
        if let Some(e) = state.smi_failed.take() {
            return Err(failed(MeasureError::Smi(e)));
        }
        let mut report = state.finish(plan, &mut engine, linear, measured.minor_faults);
        report.allocations = measured.allocations;
        Ok(report)
    }
}

/// How often (at most) a measuring thread publishes its live figures, ns.
const PUBLISH_EVERY_NS: u64 = 1_000_000;

/// This mode's per-cycle work.
struct RunCycle<'a, K> {
    state: ThreadState<K>,
    linear: Option<Linear>,
    /// The values from 0 up whose fixed-width bucket is found with one compare and one
    /// multiply ([`Linear::near_span`]); the rest take the rare path.
    linear_span: u64,
    seconds: SecondWindows,
    /// Any of the features a plain run has off but the per-second series: the spike list,
    /// the `-v` ring, `-D`, `--explain`'s tap, `--smi`.
    extras: bool,
    /// The spike list or `-D`.
    others: bool,
    /// Per-second windows are recorded (only when they are written: `--json`).
    seconds_series: bool,
    // Off features as sentinels no sample reaches: one compare each, no option to unwrap.
    /// `-D`: the wake-up time (ticks) that ends the thread (`u64::MAX`: none).
    stop_at: u64,
    /// `--spike`: the trigger, ns (`i64::MAX`: off).
    spike_above_ns: i64,
    /// [`PUBLISH_EVERY_NS`] in clock ticks.
    publish_every: u64,
    /// The wake-up time (ticks) from which the live figures are published again.
    publish_at: u64,
    plan: &'a MeasurePlan,
    shared: &'a RunShared,
    live: &'a LiveStatus,
    ring: Option<&'a SampleRing>,
    /// `--explain`: one store per cycle.
    tap: Option<&'a WakeTap>,
    /// `--smi`: the counter, read after every wake-up (a system call: only with `--smi`).
    smi: Option<&'a SmiCounter>,
    /// Its count at the previous wake-up (or before the first cycle).
    smi_last: u64,
    /// `--smi` with `-v`: the ring with each cycle's SMIs.
    smi_ring: Option<&'a SmiSampleRing>,
    seconds_ring: &'a WindowRing,
}

impl<C: Clock, T: Timer, K: Keep> PerCycle<C, T, Skip> for RunCycle<'_, K> {
    type Recorder = K::Recorder;

    #[inline(always)]
    fn recorder(&mut self) -> &mut K::Recorder {
        self.state.recorder.recorder()
    }

    #[inline(always)]
    fn after(&mut self, sample: Sample, broke: bool, engine: &CycleEngine<C, T, Skip>) -> Flow {
        let state = &mut self.state;
        state.last_ns = sample.latency_ns;
        if let Some(layout) = &self.linear {
            // One compare for the span, one multiply for the bucket, the slice's own bound;
            // a latency past the span (or negative) takes the rare path.
            let bucket = layout
                .near_bucket(sample.latency_ns, self.linear_span)
                .and_then(|q| state.linear_buckets.get_mut(q as usize));
            match bucket {
                Some(count) => *count += 1,
                None => state.linear_far(layout, sample.latency_ns, sample.cycle),
            }
        }
        // At most once a millisecond (and after the last cycle): what reads the figures (the
        // live lines, status requests, the fifo) is at most that much behind.
        if sample.wake_ticks >= self.publish_at {
            self.live
                .publish(&state.figures(sample.latency_ns, engine.overruns()));
            self.publish_at = sample.wake_ticks.saturating_add(self.publish_every);
        }
        if self.seconds_series {
            // Three compares per cycle; once per second a push into the windows' ring.
            // A copy is lent, never `sample` itself: a sample whose address is taken
            // stays in memory on every cycle, not just those of this branch.
            let lent = sample;
            self.seconds.record(
                &lent,
                state.recorder.summary(),
                engine.overruns(),
                self.seconds_ring,
            );
        }
        if self.extras {
            // --explain's one store, first: a run with --explain alone skips the tests below.
            if let Some(tap) = self.tap {
                tap.record(sample.cycle, sample.wake_ticks);
            }
            // --smi: the SMIs since the previous wake-up (the live figures show them from the
            // next publish; the last figures after the loop are exact).
            if let Some(counter) = self.smi {
                let Some(smis) = state.count_smis(counter, &mut self.smi_last) else {
                    return Flow::Stop;
                };
                if let Some(ring) = self.smi_ring {
                    ring.push([
                        sample.cycle,
                        sample.latency_ns as u64,
                        sample.wake_ticks,
                        smis,
                    ]);
                }
            }
            if let Some(ring) = self.ring {
                ring.push(sample.cycle, sample.latency_ns, sample.wake_ticks);
            }
            if self.others {
                if sample.latency_ns > self.spike_above_ns {
                    state.spikes_total += 1;
                    if state.spikes.len() < state.spikes.capacity() {
                        state.spikes.push((sample.latency_ns, sample.wake_ticks));
                    }
                }
                // -D: past the end (a cycle that also broke ends the run below, as a break).
                if !broke && sample.wake_ticks >= self.stop_at {
                    return Flow::Stop;
                }
            }
        }
        if broke {
            self.broke(
                sample.cycle,
                sample.latency_ns,
                sample.overruns,
                sample.wake_ticks,
            );
            return Flow::Stop;
        }
        Flow::Go
    }
}

impl<K> RunCycle<'_, K> {
    /// The latency crossed `-b`: this thread's break, and the run's if it is the first.
    /// The sample comes as its fields: a sample passed whole goes through memory, and the
    /// loop would store every cycle's for this rare call.
    #[cold]
    #[inline(never)]
    fn broke(&mut self, cycle: u64, latency_ns: i64, overruns: u64, wake_ticks: u64) {
        let sample = Sample {
            cycle,
            latency_ns,
            overruns,
            wake_ticks,
        };
        self.state.broke = Some(sample);
        let shared = self.shared;
        if shared
            .break_tid
            .compare_exchange(0, self.state.tid, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
            && let Some(ftrace) = &shared.ftrace
        {
            let unit = self.plan.display_unit_ns as i64;
            let threshold = self.plan.break_above_ns.map_or(0, |t| (t + 1) / unit - 1);
            let _ = ftrace.write_marker_fmt(format_args!(
                "hit latency threshold ({} > {})",
                sample.latency_ns / unit,
                threshold
            ));
            let _ = ftrace.stop();
        }
    }
}

/// Marks the thread finished and stops the run when dropped: the first thread to finish its
/// loops, break or fail ends the run (cyclictest's rule).
struct EndsTheRun<'a> {
    live: &'a LiveStatus,
    stop: &'a AtomicBool,
}

impl Drop for EndsTheRun<'_> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.live.set_finished();
    }
}

/// Everything a thread records into, allocated and touched before the first cycle.
struct ThreadState<K> {
    tid: i32,
    recorder: K,
    last_ns: i64,
    /// The fixed-width histogram's buckets, without its guards.
    linear_buckets: Vec<u64>,
    /// Its values below the first bucket.
    linear_underflows: u64,
    /// Its values past the last bucket.
    linear_overflows: u64,
    overflow_cycles: Vec<u64>,
    spikes: Vec<(i64, u64)>,
    spikes_total: u64,
    broke: Option<Sample>,
    /// `--smi`: the SMIs counted so far (`None`: not counted).
    smis: Option<u64>,
    /// `--smi`: why the counter could not be read, which ended the thread.
    smi_failed: Option<rtlat_linux::msr::SmiError>,
}

/// Writes every element so its pages are mapped before the measurement (a freshly zeroed
/// allocation is only mapped on first write).
fn touch(values: &mut [u64]) {
    for v in values.iter_mut() {
        *v = black_box(0);
    }
}

impl<K: Keep> ThreadState<K> {
    /// The state for `plan`, every buffer written to its full capacity once, so pushes
    /// during the run touch mapped pages only; `counting`: SMIs are counted (`--smi`).
    fn new(plan: &MeasurePlan, tid: i32, recorder: K, counting: bool) -> ThreadState<K> {
        let buckets = plan.linear.map_or(0, |(buckets, _)| buckets);
        let mut linear_buckets = vec![0u64; buckets];
        touch(&mut linear_buckets);
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
        ThreadState {
            tid,
            recorder,
            last_ns: 0,
            linear_buckets,
            linear_underflows: 0,
            linear_overflows: 0,
            overflow_cycles,
            spikes,
            spikes_total: 0,
            broke: None,
            smis: counting.then_some(0),
            smi_failed: None,
        }
    }

    /// `--smi`: reads the counter and adds what it counted since `last` (its 32 bits wrap);
    /// `None` when it could not be read (the thread then ends, as cyclictest's does).
    #[inline]
    fn count_smis(&mut self, counter: &SmiCounter, last: &mut u64) -> Option<u64> {
        match counter.read() {
            Ok(now) => {
                let smis = now.wrapping_sub(*last) & 0xffff_ffff;
                *last = now;
                if let Some(total) = &mut self.smis {
                    *total += smis;
                }
                Some(smis)
            }
            Err(e) => {
                self.smi_failed = Some(e);
                None
            }
        }
    }

    /// The live figures after a cycle with latency `act_ns` (so at least one value is
    /// recorded, and the extremes are those of the recorded values).
    #[inline]
    fn figures(&self, act_ns: i64, overruns: u64) -> LiveFigures {
        let s = self.recorder.summary();
        let (min_ns, max_ns) = s.extremes();
        LiveFigures {
            cycles: s.count(),
            min_ns,
            act_ns,
            max_ns,
            sum_ns: s.sum() as i64,
            overruns,
            smis: self.smis.unwrap_or(0),
        }
    }

    /// A value of the fixed-width histogram outside its near span: counted in its bucket
    /// when it has one (a span capped at 2^31 values, or a width [`Linear::near_span`] does
    /// not take), in a guard (underflow or overflow) otherwise, its cycle then kept while the
    /// overflow list has room.
    #[cold]
    #[inline(never)]
    fn linear_far(&mut self, layout: &Linear, latency_ns: i64, cycle: u64) {
        let bucket = layout
            .bucket(latency_ns)
            .and_then(|q| usize::try_from(q).ok())
            .and_then(|q| self.linear_buckets.get_mut(q));
        if let Some(count) = bucket {
            *count += 1;
            return;
        }
        if latency_ns < layout.low() {
            self.linear_underflows += 1;
        } else {
            self.linear_overflows += 1;
        }
        if self.overflow_cycles.len() < self.overflow_cycles.capacity() {
            self.overflow_cycles.push(cycle);
        }
    }

    /// The fixed-width histogram's counts, taken after the run.
    fn linear_report(&mut self, layout: &Linear) -> LinearReport {
        let underflows = self.linear_underflows;
        LinearReport {
            width_ns: layout.width(),
            counts: std::mem::take(&mut self.linear_buckets),
            overflows: self.linear_overflows + underflows,
            underflows,
            overflow_cycles: std::mem::take(&mut self.overflow_cycles),
        }
    }

    fn finish<C: Clock, T: Timer + TimerFigures>(
        mut self,
        plan: &MeasurePlan,
        engine: &mut CycleEngine<C, T>,
        linear: Option<Linear>,
        minor_faults: u64,
    ) -> ThreadReport {
        let linear = linear.map(|layout| self.linear_report(&layout));
        let (summary, histogram) = self.recorder.into_report();
        ThreadReport {
            index: plan.index,
            tid: self.tid,
            cpu: plan.setup.cpu,
            priority: plan.setup.priority,
            interval_us: plan.interval_ns / 1000,
            last_ns: self.last_ns,
            overruns: engine.overruns(),
            max_at: engine.max(),
            summary,
            histogram,
            linear,
            broke: self.broke,
            minor_faults,
            allocations: 0,
            // Wake-up times leave in the clock's nanoseconds.
            spikes: {
                let scale = engine.scale();
                self.spikes
                    .iter()
                    .map(|&(latency, wake)| (latency, scale.to_ns(wake)))
                    .collect()
            },
            translation: engine.timer_mut().translation(),
            reported_overruns: engine.timer_mut().reported_overruns(),
            smis: self.smis,
            spikes_total: self.spikes_total,
            seconds: Default::default(),
        }
    }
}
