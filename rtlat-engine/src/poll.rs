//! The busy-poll measuring thread of `rtlat noise` (oslat's measurement) and of `rtlat
//! hwnoise` without the hwlat tracer: a loop that reads `CLOCK_MONOTONIC` and nothing else,
//! on one CPU, recording every gap between two readings ([`rtlat_core::gaps`]).
//!
//! The loop records each gap into a log-linear ns histogram ([`RunHistogram`]) and oslat's
//! µs buckets ([`Micros`]), counts the spikes above the plan's threshold, and looks at the stop
//! flag; it allocates, locks and formats nothing. A plan with a [`Window`] samples only part of
//! each window (hwlat's width), hands the window's figures to a [`WindowSink`] in the rest,
//! and resumes.

use std::sync::atomic::{AtomicBool, Ordering};

use rtlat_core::gaps::Gaps;
use rtlat_core::{Record, Summary};
use rtlat_linux::{ClockError, ClockId, PosixClock};

use crate::error::MeasureError;
use crate::run::RunHistogram;
#[cfg(test)]
use crate::run::new_run_histogram;
use crate::setup::Setup;

/// The most µs buckets (oslat's `-b` upper bound).
pub const MAX_MICROS: usize = 1024;

/// How one polling thread runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollPlan {
    /// The thread's CPU, policy, priority, stack prefault.
    pub setup: Setup,
    /// How long to poll, ns (`None`: until told to stop).
    pub duration_ns: Option<u64>,
    /// oslat's µs buckets: 1..=[`MAX_MICROS`].
    pub micros: usize,
    /// Gaps above this many ns are spikes.
    pub threshold_ns: u64,
    /// Sample only part of each window (`None`: poll all the time).
    pub window: Option<Window>,
}

/// hwlat's sampling: `width_ns` of polling at the start of every `window_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The length of a window, ns.
    pub window_ns: u64,
    /// The polling part of it, ns (at most `window_ns`).
    pub width_ns: u64,
}

/// What the thread and the main thread share.
#[derive(Debug, Default)]
pub struct PollShared {
    /// Set by the main thread to end the run (the loop looks at it every step).
    pub stop: AtomicBool,
}

/// oslat's histogram: bucket `k` (1-based) holds the gaps of `k − 1` µs up to but not
/// including `k` µs, the last bucket also every longer gap (oslat's "including overflows").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Micros {
    counts: Box<[u64]>,
    /// The sum of the gaps' whole µs (before the last bucket's clamp): oslat's mean.
    whole_us: u64,
}

impl Micros {
    /// `buckets` empty buckets (clamped to 1..=[`MAX_MICROS`]).
    pub fn new(buckets: usize) -> Micros {
        Micros {
            counts: vec![0; buckets.clamp(1, MAX_MICROS)].into_boxed_slice(),
            whole_us: 0,
        }
    }

    /// The counts, bucket 1 first.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// oslat's mean: the mean of the gaps' oslat µs ([`Micros::micros_of`]); `None` when
    /// empty.
    pub fn mean(&self) -> Option<f64> {
        let count: u64 = self.counts.iter().sum();
        (count > 0).then(|| (self.whole_us as f64 + count as f64) / count as f64)
    }

    /// oslat's value of a gap: whole µs plus one (a gap under 1 µs is 1).
    pub const fn micros_of(gap_ns: u64) -> u64 {
        gap_ns / 1000 + 1
    }
}

impl Record for Micros {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        let last = self.counts.len() - 1;
        // A negative value (never from a gap) counts as 0 µs.
        let whole = (value.max(0) as u64) / 1000;
        self.whole_us = self.whole_us.saturating_add(whole);
        let index = whole.min(last as u64) as usize;
        if let Some(count) = self.counts.get_mut(index) {
            *count += 1;
        }
    }
}

/// How many of a width's largest gaps above the threshold [`Largest`] keeps.
pub const LARGEST: usize = 16;

/// The largest gaps above a threshold, largest first (at most [`LARGEST`]): what hwnoise's
/// attribution needs of a width. Gaps at or below the threshold cost one compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Largest {
    threshold_ns: u64,
    gaps: [u64; LARGEST],
    len: usize,
}

impl Largest {
    /// None kept yet; gaps above `threshold_ns` are kept.
    pub const fn new(threshold_ns: u64) -> Largest {
        Largest {
            threshold_ns,
            gaps: [0; LARGEST],
            len: 0,
        }
    }

    /// The gaps kept, largest first.
    pub fn gaps(&self) -> &[u64] {
        &self.gaps[..self.len]
    }

    #[cold]
    #[inline(never)]
    fn keep(&mut self, gap: u64) {
        let at = self.gaps[..self.len].partition_point(|&g| g >= gap);
        if at == LARGEST {
            return;
        }
        let end = self.len.min(LARGEST - 1);
        self.gaps.copy_within(at..end, at + 1);
        self.gaps[at] = gap;
        self.len = (self.len + 1).min(LARGEST);
    }
}

impl Record for Largest {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        if value > 0 && value as u64 > self.threshold_ns {
            self.keep(value as u64);
        }
    }
}

/// One sampling width of a windowed plan, as the sink sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Width {
    /// When the width started and ended, `CLOCK_MONOTONIC` ns.
    pub start_ns: u64,
    /// Its end.
    pub end_ns: u64,
    /// The gaps polled in it: count, min, max, sum (ns).
    pub gaps: Summary,
    /// Its gaps above the threshold and their sum (ns).
    pub spikes: u64,
    /// The sum of those.
    pub spike_total_ns: u64,
    /// The largest of those, largest first.
    pub largest: Largest,
}

impl Largest {
    /// The threshold gaps must be above to be kept.
    pub const fn threshold_ns(&self) -> u64 {
        self.threshold_ns
    }
}

/// The spikes of a width that `events` things Linux did cannot explain, each of which took
/// the CPU from the loop at most once (an interrupt, a context switch): the spikes beyond the
/// `events` largest. Lower bounds: Linux is given the largest spikes, and two events may
/// have made one spike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Unexplained {
    /// How many spikes (exact: the width's spikes less the events, or 0).
    pub count: u64,
    /// The largest of them, ns: exact when `exact`, else at least this.
    pub max_ns: u64,
    /// Their sum, ns: exact when `exact`, else at least this.
    pub total_ns: u64,
    /// Whether the width's [`Largest`] held every spike Linux is given (`events` below
    /// [`LARGEST`]): then `max_ns` and `total_ns` are exact.
    pub exact: bool,
}

impl Width {
    /// The spikes `events` Linux events cannot explain (see [`Unexplained`]).
    pub fn unexplained(&self, events: u64) -> Unexplained {
        let count = self.spikes.saturating_sub(events);
        if count == 0 {
            return Unexplained {
                exact: true,
                ..Unexplained::default()
            };
        }
        let kept = self.largest.gaps();
        // `events < count + events = spikes`, and `kept` holds min(spikes, LARGEST).
        if let Some(&max) = kept.get(events as usize) {
            let given: u64 = kept[..events as usize].iter().sum();
            return Unexplained {
                count,
                max_ns: max,
                total_ns: self.spike_total_ns - given,
                exact: true,
            };
        }
        // Linux is given more spikes than were kept: the rest are each at most the smallest
        // kept, so Linux's share is at most the kept ones and that much for each other event.
        let smallest = kept.last().copied().unwrap_or(0);
        let given_at_most =
            kept.iter().sum::<u64>() + (events - kept.len() as u64).saturating_mul(smallest);
        let above = self.largest.threshold_ns() + 1;
        let total_ns = self
            .spike_total_ns
            .saturating_sub(given_at_most)
            .max(count * above);
        Unexplained {
            count,
            max_ns: total_ns.div_ceil(count).max(above),
            total_ns,
            exact: false,
        }
    }
}

/// What a windowed loop does around each width, on its own thread: a look at what Linux did
/// on the CPU right before the width and right after it, and the width's figures kept. May
/// allocate and read files: it runs outside the polling part, and its own time is in no
/// width (the width's clock starts after [`WindowSink::before`] returns).
pub trait WindowSink {
    /// Right before a width starts.
    fn before(&mut self);
    /// Right after it ended.
    fn after(&mut self, width: &Width);
}

impl WindowSink for () {
    fn before(&mut self) {}
    fn after(&mut self, _width: &Width) {}
}

/// What a polling thread hands back.
#[derive(Debug)]
pub struct PollReport {
    /// Its CPU (`None`: not pinned).
    pub cpu: Option<usize>,
    /// Its kernel thread id.
    pub tid: i32,
    /// Every gap, ns.
    pub histogram: Box<RunHistogram>,
    /// Every gap in oslat's µs buckets.
    pub micros: Micros,
    /// How long it polled, ns (the sum of the widths with a window).
    pub polled_ns: u64,
    /// The gaps above the threshold.
    pub spikes: u64,
    /// Their sum, ns.
    pub spike_total_ns: u64,
    /// Allocations made by the thread while polling (0, or the hot path is broken).
    pub allocations: u64,
}

/// Sets the thread up as `plan` says and polls until the duration is over or `shared.stop`
/// is set, recording into `histogram` (made by the caller: [`new_run_histogram`](crate::run::new_run_histogram), on a
/// thread with a large stack: a debug build builds it on the stack first). `allocations`
/// counts the calling thread's allocations (the binary's allocator); those made while polling
/// are reported (the sink's, between widths, are not).
pub fn run_thread(
    plan: &PollPlan,
    shared: &PollShared,
    mut histogram: Box<RunHistogram>,
    allocations: fn() -> u64,
    sink: &mut impl WindowSink,
) -> Result<PollReport, MeasureError> {
    rtlat_linux::signals::block_run_signals().map_err(MeasureError::Signals)?;
    let mut thread = rtlat_linux::ThreadSetup::new(plan.setup.policy, plan.setup.priority);
    thread.cpus = plan.setup.cpu.into_iter().collect();
    thread.prefault_stack = plan.setup.prefault_stack;
    let tid = thread.apply().map_err(MeasureError::Setup)?;
    let clock = PosixClock::new(ClockId::Monotonic);
    let mut micros = Micros::new(plan.micros);
    let now = || clock.now_ns().map_err(clock_failed);
    let start = now()?;
    let end = plan
        .duration_ns
        .map_or(u64::MAX, |d| start.saturating_add(d));
    let mut gaps = Gaps::new(start, plan.threshold_ns);
    let mut polled_ns = 0u64;
    // Counted around the polling only: the sink's work between widths may allocate.
    let mut allocated = 0u64;
    match plan.window {
        None => {
            let mut record = (&mut *histogram, &mut micros);
            let before = allocations();
            let last = poll(&clock, &mut gaps, &mut record, end, &shared.stop)?;
            allocated += allocations() - before;
            polled_ns = last - start;
        }
        Some(window) => {
            let mut window_start = now()?;
            while window_start < end && !shared.stop.load(Ordering::Relaxed) {
                let width_end = window_start.saturating_add(window.width_ns).min(end);
                let mut summary = Summary::new();
                let mut largest = Largest::new(plan.threshold_ns);
                let (spikes, total) = (gaps.spikes(), gaps.spike_total_ns());
                sink.before();
                let started = now()?;
                gaps.resume(started);
                let before = allocations();
                let last = {
                    let mut record = ((&mut *histogram, &mut micros), (&mut summary, &mut largest));
                    poll(&clock, &mut gaps, &mut record, width_end, &shared.stop)?
                };
                allocated += allocations() - before;
                polled_ns += last - started;
                sink.after(&Width {
                    start_ns: started,
                    end_ns: last,
                    gaps: summary,
                    spikes: gaps.spikes() - spikes,
                    spike_total_ns: gaps.spike_total_ns() - total,
                    largest,
                });
                window_start = window_start.saturating_add(window.window_ns);
                // The rest of the window: asleep, woken early by a stop (a signal).
                let wake = window_start.min(end);
                while !shared.stop.load(Ordering::Relaxed) {
                    let t = now()?;
                    if t >= wake {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_nanos((wake - t).min(50_000_000)));
                }
            }
        }
    }
    Ok(PollReport {
        cpu: plan.setup.cpu,
        tid,
        histogram,
        micros,
        polled_ns,
        spikes: gaps.spikes(),
        spike_total_ns: gaps.spike_total_ns(),
        allocations: allocated,
    })
}

/// The hot loop: read the clock, record the gap, until `end` or a stop. Returns the last
/// reading.
#[inline(never)]
fn poll<R: Record>(
    clock: &PosixClock,
    gaps: &mut Gaps,
    record: &mut R,
    end: u64,
    stop: &AtomicBool,
) -> Result<u64, MeasureError> {
    loop {
        let now = match clock.now_ns() {
            Ok(now) => now,
            Err(e) => return Err(clock_failed(e)),
        };
        gaps.poll(now, record);
        if now >= end || stop.load(Ordering::Relaxed) {
            return Ok(now);
        }
    }
}

#[cold]
fn clock_failed(e: ClockError) -> MeasureError {
    MeasureError::step(rtlat_core::Error::<ClockError, ClockError>::Clock(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_linux::Policy;

    fn plan(duration_ms: u64, window: Option<Window>) -> PollPlan {
        PollPlan {
            setup: Setup {
                cpu: Some(0),
                policy: Policy::Other,
                priority: 0,
                prefault_stack: 16 * 1024,
            },
            duration_ns: Some(duration_ms * 1_000_000),
            micros: 32,
            threshold_ns: 20_000,
            window,
        }
    }

    fn no_allocations() -> u64 {
        0
    }

    #[test]
    fn largest_keeps_the_largest_gaps_above_the_threshold_in_order() {
        let mut largest = Largest::new(10);
        for gap in [5, 11, 10, 40, 12, 40] {
            largest.record(gap);
        }
        assert_eq!(largest.gaps(), &[40, 40, 12, 11]);
        for gap in 100..200 {
            largest.record(gap);
        }
        let expected: Vec<u64> = (184..200).rev().collect();
        assert_eq!(largest.gaps(), expected.as_slice());
        largest.record(150);
        assert_eq!(
            largest.gaps(),
            expected.as_slice(),
            "a smaller gap is not kept"
        );
    }

    #[test]
    fn micros_are_oslat_buckets_with_the_overflow_in_the_last() {
        let mut micros = Micros::new(4);
        for gap in [0, 999, 1000, 1999, 2500, 3999, 4000, 1 << 40] {
            micros.record(gap);
        }
        micros.record(-5);
        assert_eq!(micros.counts(), &[3, 2, 1, 3]);
        // whole µs 0+0+1+1+2+3+4+2^40/1000+0, plus one each, over nine gaps.
        let whole = (11 + (1u64 << 40) / 1000) as f64;
        assert_eq!(micros.mean(), Some((whole + 9.0) / 9.0));
        assert_eq!(Micros::new(4).mean(), None);
        assert_eq!(Micros::micros_of(0), 1);
        assert_eq!(Micros::micros_of(1000), 2);
        assert_eq!(Micros::new(0).counts().len(), 1);
        assert_eq!(Micros::new(1 << 20).counts().len(), MAX_MICROS);
    }

    #[test]
    fn the_loop_polls_for_its_duration_and_every_gap_is_counted_everywhere() {
        let shared = PollShared::default();
        let report = std::thread::spawn(move || {
            run_thread(
                &plan(50, None),
                &shared,
                new_run_histogram(),
                no_allocations,
                &mut (),
            )
        })
        .join()
        .unwrap()
        .unwrap();
        let count = report.histogram.count();
        assert!(count > 100, "a busy loop polls often: {count}");
        assert_eq!(report.micros.counts().iter().sum::<u64>(), count);
        let sum = report.histogram.summary().sum();
        assert_eq!(
            sum, report.polled_ns as i128,
            "the gaps add up to the time polled"
        );
        assert!(report.polled_ns >= 50_000_000);
        let above = report.histogram.max().unwrap() > 20_000;
        assert_eq!(report.spikes > 0, above);
        assert!(report.tid > 0);
    }

    #[test]
    fn a_stop_ends_the_loop_whatever_its_duration() {
        let shared = PollShared::default();
        let mut plan = plan(0, None);
        plan.duration_ns = None;
        std::thread::scope(|s| {
            let histogram = new_run_histogram();
            let worker = s.spawn(|| run_thread(&plan, &shared, histogram, no_allocations, &mut ()));
            std::thread::sleep(std::time::Duration::from_millis(30));
            shared.stop.store(true, Ordering::Relaxed);
            let report = worker.join().unwrap().unwrap();
            assert!(report.polled_ns > 0);
        });
    }

    /// What the sink was told, in order: `None` for a look before a width.
    #[derive(Default)]
    struct Kept(Vec<Option<Width>>);

    impl WindowSink for Kept {
        fn before(&mut self) {
            self.0.push(None);
        }
        fn after(&mut self, width: &Width) {
            self.0.push(Some(*width));
        }
    }

    #[test]
    fn a_windowed_loop_polls_each_width_and_tells_the_sink_around_it() {
        let shared = PollShared::default();
        let window = Window {
            window_ns: 20_000_000,
            width_ns: 5_000_000,
        };
        let mut kept = Kept::default();
        let report = run_thread(
            &plan(100, Some(window)),
            &shared,
            new_run_histogram(),
            no_allocations,
            &mut kept,
        )
        .unwrap();
        for pair in kept.0.chunks(2) {
            assert!(
                pair[0].is_none() && pair[1].is_some(),
                "a look before each width, its figures after: {:?}",
                kept.0
            );
        }
        let widths: Vec<Width> = kept.0.iter().flatten().copied().collect();
        // 100 ms of 20 ms windows: 5, or 4 when the first look was held up for a window
        // (a loaded machine).
        assert!((4..=5).contains(&widths.len()), "{}", widths.len());
        for pair in widths.windows(2) {
            assert!(pair[1].start_ns >= pair[0].end_ns);
        }
        let polled: u64 = widths.iter().map(|w| w.end_ns - w.start_ns).sum();
        assert_eq!(polled, report.polled_ns);
        let gaps: u64 = widths.iter().map(|w| w.gaps.count()).sum();
        assert_eq!(gaps, report.histogram.count(), "no gap across a pause");
        let spikes: u64 = widths.iter().map(|w| w.spikes).sum();
        assert_eq!(spikes, report.spikes);
        for w in &widths {
            assert_eq!(w.largest.gaps().len() as u64, w.spikes.min(LARGEST as u64));
            assert_eq!(
                w.largest.gaps().first().copied(),
                (w.spikes > 0).then(|| w.gaps.max().unwrap() as u64)
            );
        }
    }

    fn width(spikes: &[u64], threshold_ns: u64) -> Width {
        let mut largest = Largest::new(threshold_ns);
        for &g in spikes {
            largest.record(g as i64);
        }
        Width {
            start_ns: 0,
            end_ns: 1,
            gaps: Summary::new(),
            spikes: spikes.len() as u64,
            spike_total_ns: spikes.iter().sum(),
            largest,
        }
    }

    #[test]
    fn linux_is_given_the_largest_spikes_and_the_rest_is_unexplained() {
        let w = width(&[50_000, 12_000, 30_000, 11_000], 10_000);
        assert_eq!(
            w.unexplained(0),
            Unexplained {
                count: 4,
                max_ns: 50_000,
                total_ns: 103_000,
                exact: true
            }
        );
        assert_eq!(
            w.unexplained(2),
            Unexplained {
                count: 2,
                max_ns: 12_000,
                total_ns: 23_000,
                exact: true
            }
        );
        assert_eq!(
            w.unexplained(4),
            Unexplained {
                exact: true,
                ..Unexplained::default()
            }
        );
        assert_eq!(w.unexplained(100).count, 0);
    }

    #[test]
    fn beyond_the_kept_spikes_the_unexplained_are_lower_bounds() {
        // 20 spikes of 20 µs (16 kept) and 4 of 11 µs... all 24 above 10 µs; 18 events.
        let mut spikes = vec![20_000u64; 20];
        spikes.extend([11_000; 4]);
        let w = width(&spikes, 10_000);
        let u = w.unexplained(18);
        assert_eq!(u.count, 6);
        assert!(!u.exact);
        // The truth: Linux's 18 largest are 20 µs each; the rest are 2 × 20 + 4 × 11 = 84 µs.
        assert!(u.total_ns <= 84_000 && u.total_ns >= 6 * 10_001, "{u:?}");
        assert!(u.max_ns <= 20_000 && u.max_ns > 10_000, "{u:?}");
    }
}
