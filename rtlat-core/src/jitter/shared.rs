//! The lock-free shared jitter monitor: one writer (a timer interrupt, a real-time thread)
//! ticks it, any number of readers take snapshots, and the writer never waits for them.
//!
//! **Snapshots: a sequence lock over atomics.** The writer makes `sequence` odd, stores its
//! figures with relaxed atomic stores, and makes it even again; a reader copies the figures
//! and keeps the copy only if it saw the same even `sequence` before and after, or retries.
//! 64-bit figures are [`Word`]s (two 32-bit halves where the target has no 64-bit atomics,
//! as on Cortex-M), which the sequence keeps together. The writer never loops, never waits,
//! never masks interrupts: loads, stores, and one full fence per tick.
//!
//! **Windows: two banks and a generation.** The figures live in two banks; the writer
//! records into bank `generation & 1`, reading `generation` after it made `sequence` odd
//! (the full fence orders the two). [`report_and_reset`](SharedJitterMonitor::report_and_reset)
//! (readers take turns at it) bumps `generation`, fences, and reads `sequence`: if it is odd,
//! a tick that may have chosen the old bank is under way, and it waits for that one tick to
//! end (never for a next one); any later tick sees the new generation (Dekker's argument:
//! of the two fenced store-then-load pairs, one sees the other's store). The old bank is
//! then frozen: the reader copies it, clears it for the window after next, and returns it.
//! Every tick lands in exactly one bank, so consecutive windows never lose or double-count
//! one. The schedule (previous tick, deadline) is not banked: the first tick of a window
//! measures its interval from the last tick of the one before.
//!
//! [`report`](SharedJitterMonitor::report) reads the current bank; it retries when the
//! generation changed under it (a reset cleared what it was reading).

use super::switch::switch_window;
use super::window::{Schedule, Window, advance};
use super::{JitterReport, JitterSnapshot, Tick};
use crate::clock::TickScale;
use crate::seqlock;
use crate::word::Word;
use core::num::NonZeroU64;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering, fence};

/// One bank of window figures (see [`Window`]).
#[derive(Debug)]
struct Bank {
    ticks: Word,
    intervals: Word,
    min_interval: Word,
    max_interval: Word,
    late_count: Word,
    late_min: Word,
    late_max: Word,
    late_sum: Word,
    late_last: Word,
    overruns: Word,
}

impl Bank {
    const fn new() -> Self {
        Bank {
            ticks: Word::new(),
            intervals: Word::new(),
            min_interval: Word::new(),
            max_interval: Word::new(),
            late_count: Word::new(),
            late_min: Word::new(),
            late_max: Word::new(),
            late_sum: Word::new(),
            late_last: Word::new(),
            overruns: Word::new(),
        }
    }

    #[inline(always)]
    fn load(&self) -> Window {
        Window {
            ticks: self.ticks.get(),
            intervals: self.intervals.get(),
            min_interval: self.min_interval.get(),
            max_interval: self.max_interval.get(),
            late_count: self.late_count.get(),
            late_min: self.late_min.get() as i64,
            late_max: self.late_max.get() as i64,
            late_sum: self.late_sum.get() as i64,
            late_last: self.late_last.get() as i64,
            overruns: self.overruns.get(),
        }
    }

    #[inline(always)]
    fn store(&self, w: &Window) {
        self.ticks.set(w.ticks);
        self.intervals.set(w.intervals);
        self.min_interval.set(w.min_interval);
        self.max_interval.set(w.max_interval);
        self.late_count.set(w.late_count);
        self.late_min.set(w.late_min as u64);
        self.late_max.set(w.late_max as u64);
        self.late_sum.set(w.late_sum as u64);
        self.late_last.set(w.late_last as u64);
        self.overruns.set(w.overruns);
    }
}

/// A [`JitterMonitor`](super::JitterMonitor) that lives in a `static` (or an `Arc`): one
/// writer ticks it (`&self`), readers take consistent snapshots and per-window reports, and
/// the writer never waits for a reader, never takes a lock and never masks interrupts.
/// Atomics only: no `unsafe`, no `critical-section`, the same code on a Cortex-M and
/// between threads (module docs: the sequence lock and the window banks).
///
/// **One writer**: [`tick`](Self::tick), [`tick_at`](Self::tick_at) and
/// [`restart`](Self::restart) must not run concurrently with each other (one interrupt
/// handler, or one thread). Readers may be anywhere, any number.
///
/// ```
/// use core::num::NonZeroU64;
/// use rtlat_core::jitter::SharedJitterMonitor;
///
/// static SERVO: SharedJitterMonitor = SharedJitterMonitor::new(NonZeroU64::new(1_000_000).unwrap());
///
/// // in the timer interrupt (now, deadline):
/// SERVO.tick_at(1_000_020, 1_000_000);
/// SERVO.tick_at(2_000_150, 2_000_000);
/// // in the main loop, once a second:
/// let window = SERVO.report_and_reset();
/// assert_eq!((window.ticks, window.max_jitter_ns), (2, Some(130)));
/// assert_eq!(window.lateness.max(), Some(150));
/// SERVO.tick_at(3_000_000, 3_000_000);
/// assert_eq!(SERVO.report().ticks, 1); // the next window
/// ```
#[derive(Debug)]
pub struct SharedJitterMonitor {
    period: NonZeroU64,
    scale: TickScale,
    /// Odd while the writer stores.
    sequence: AtomicU32,
    /// The writer records into bank `generation & 1`; readers that reset bump it.
    generation: AtomicU32,
    /// Set while a reader resets (readers take turns; the writer never looks).
    resetting: AtomicBool,
    /// The writer's schedule (see `Schedule`).
    started: AtomicBool,
    previous: Word,
    deadline: Word,
    counted_until: Word,
    banks: [Bank; 2],
}

impl SharedJitterMonitor {
    /// A shared monitor for activity with period `period_ns`, ticked with nanosecond times.
    pub const fn new(period_ns: NonZeroU64) -> Self {
        Self::with_scale(period_ns, TickScale::NANOS)
    }

    /// A shared monitor ticked with times from a clock of scale `scale`, for activity with
    /// period `period` in that clock's ticks.
    pub const fn with_scale(period: NonZeroU64, scale: TickScale) -> Self {
        SharedJitterMonitor {
            period,
            scale,
            sequence: AtomicU32::new(0),
            generation: AtomicU32::new(0),
            resetting: AtomicBool::new(false),
            started: AtomicBool::new(false),
            previous: Word::new(),
            deadline: Word::new(),
            counted_until: Word::new(),
            banks: [Bank::new(), Bank::new()],
        }
    }

    /// [`JitterMonitor::tick_at`](super::JitterMonitor::tick_at) (writer only).
    #[inline]
    pub fn tick_at(&self, now: u64, deadline: u64) -> Tick {
        self.advance(now, Some(deadline))
    }

    /// [`JitterMonitor::tick`](super::JitterMonitor::tick) (writer only).
    #[inline]
    pub fn tick(&self, now: u64) -> Tick {
        self.advance(now, None)
    }

    #[inline(always)]
    fn advance(&self, now: u64, deadline: Option<u64>) -> Tick {
        let s = self.sequence.load(Ordering::Relaxed);
        // The odd sequence is ordered before the generation load (a resetting reader fences
        // its generation store before its sequence load) by a full fence; on x86 a locked
        // exchange is that fence, and cheaper than `mfence`.
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        self.sequence.swap(s.wrapping_add(1), Ordering::SeqCst);
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        {
            self.sequence.store(s.wrapping_add(1), Ordering::Relaxed);
            fence(Ordering::SeqCst);
        }
        // The stores below come after the odd sequence (free where the fence was full).
        fence(Ordering::Release);
        let generation = self.generation.load(Ordering::SeqCst);
        let bank = &self.banks[(generation & 1) as usize];
        let mut schedule = Schedule {
            started: self.started.load(Ordering::Relaxed),
            previous: self.previous.get(),
            deadline: self.deadline.get(),
            counted_until: self.counted_until.get(),
        };
        let mut window = bank.load();
        let tick = advance(&mut schedule, &mut window, self.period.get(), now, deadline);
        self.started.store(schedule.started, Ordering::Relaxed);
        self.previous.set(schedule.previous);
        self.deadline.set(schedule.deadline);
        self.counted_until.set(schedule.counted_until);
        bank.store(&window);
        self.sequence.store(s.wrapping_add(2), Ordering::Release);
        tick
    }

    /// Forgets the schedule (writer only): the next tick is a first tick again, e.g. after
    /// the loop was stopped on purpose. The window's figures stay.
    pub fn restart(&self) {
        // Only the writer reads the schedule.
        self.started.store(false, Ordering::Relaxed);
    }

    /// The nominal period, ns.
    pub const fn period_ns(&self) -> u64 {
        self.scale.to_ns(self.period.get())
    }

    /// The nominal period, ticks.
    pub const fn period(&self) -> NonZeroU64 {
        self.period
    }

    /// The tick-to-nanosecond conversion.
    pub const fn scale(&self) -> TickScale {
        self.scale
    }

    /// A consistent copy of the current window's figures, in ticks (spins only while a
    /// tick is being stored, or a reset cleared what it read).
    pub fn snapshot(&self) -> JitterSnapshot {
        let window = seqlock::read(&self.sequence, || {
            let generation = self.generation.load(Ordering::Acquire);
            let window = self.banks[(generation & 1) as usize].load();
            // A reset cleared the bank under the read: read again.
            (self.generation.load(Ordering::Relaxed) == generation).then_some(window)
        });
        JitterSnapshot::of(&window, self.period.get(), self.scale)
    }

    /// The current window's figures (since the start or the last
    /// [`report_and_reset`](Self::report_and_reset)), in ns.
    pub fn report(&self) -> JitterReport {
        self.snapshot().report()
    }

    /// Ends the current window and returns its figures in ticks; the writer's next tick
    /// opens the next window. Readers that reset take turns; the writer is never held up.
    pub fn snapshot_and_reset(&self) -> JitterSnapshot {
        let switch = switch_window(&self.resetting, &self.generation, &self.sequence);
        let bank = &self.banks[switch.ended];
        let window = bank.load();
        bank.store(&Window::new());
        drop(switch);
        JitterSnapshot::of(&window, self.period.get(), self.scale)
    }

    /// [`snapshot_and_reset`](Self::snapshot_and_reset) in ns: the report of the window
    /// that ends here.
    pub fn report_and_reset(&self) -> JitterReport {
        self.snapshot_and_reset().report()
    }

    /// Ends the current window without reading it.
    pub fn reset(&self) {
        self.snapshot_and_reset();
    }
}
