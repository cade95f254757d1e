//! The shared jitter monitor for a 32-bit hardware counter read raw (a Cortex-M's timer or
//! cycle counter): the same figures as [`SharedJitterMonitor`](super::SharedJitterMonitor),
//! in 32-bit words so an interrupt handler on a 32-bit core pays a few dozen instructions.
//!
//! **Wrapping arithmetic.** Times are raw counter readings; an interval is
//! `now − previous` and a lateness `now − deadline`, modulo 2^32, which is exact across the
//! counter's wraps for intervals below 2^32 ticks and lateness within ±2^31 ticks (171.8 s and
//! ±85.9 s at 25 MHz). A 24-bit counter extended by [`CounterExtender`](crate::CounterExtender)
//! gives its low 32 bits.
//!
//! **What a tick stores.** The hot counters are 32-bit words, and a tick stores only what it
//! changed: the tick count, the previous time and deadline, the lateness sum (two halves, the
//! carry added inline) and latest lateness, and an extreme only when it moved. Extremes are
//! kept so that all zero is "none yet" (the minimum as its complement, signed values offset by
//! 2^31), so a window starts in `.bss` without a first-tick branch. The rare paths are out of
//! line and exact, never saturated: the tick count's carry into its high word, a first tick
//! (the counts of ticks without an interval or a lateness, from which the interval and
//! lateness counts follow), and a tick more than a period late (the division that counts
//! overruns, in 64 bits).
//!
//! **Overruns** are counted as [`JitterMonitor`](super::JitterMonitor) counts them, for
//! deadlines that move forward (as a loop's do): deadlines counted by a late tick are
//! remembered until a later tick's deadline reaches them (a 32-bit time cannot tell "ahead"
//! from "long ago" after a wrap), so a deadline that goes back behind one already reached is
//! charged again.
//!
//! **Snapshots and windows** work as in [`SharedJitterMonitor`](super::SharedJitterMonitor)
//! (its module docs): a sequence lock over atomics, two banks and a generation. A recorder
//! passed to [`tick_at_with`](SharedJitterMonitor32::tick_at_with) (a histogram's counters)
//! runs inside the tick's sequence, so [`read`](SharedJitterMonitor32::read) reads it
//! consistently too.

use super::JitterSnapshot;
use super::switch::switch_window;
use crate::clock::TickScale;
use crate::report::JitterLines;
use crate::seqlock;
use core::num::{NonZeroU32, NonZeroU64};
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering, fence};

use Ordering::Relaxed;

/// Signed values are kept offset by 2^31 (`v ^ SIGN`), so their order is the unsigned order
/// and all zero is `i32::MIN`.
const SIGN: u32 = 1 << 31;

/// A 64-bit count in two 32-bit words, for the rare paths (the sequence keeps the halves
/// together for readers).
#[derive(Debug)]
struct Wide([AtomicU32; 2]);

impl Wide {
    const fn new() -> Self {
        Wide([AtomicU32::new(0), AtomicU32::new(0)])
    }

    fn get(&self) -> u64 {
        u64::from(self.0[0].load(Relaxed)) | (u64::from(self.0[1].load(Relaxed)) << 32)
    }

    fn set(&self, v: u64) {
        self.0[0].store(v as u32, Relaxed);
        self.0[1].store((v >> 32) as u32, Relaxed);
    }

    fn add(&self, n: u64) {
        self.set(self.get().wrapping_add(n));
    }
}

/// One window's figures, all zero when empty.
#[derive(Debug)]
struct Bank {
    /// Ticks, low word (the high word takes the carry, out of line).
    ticks: AtomicU32,
    ticks_high: AtomicU32,
    /// Ticks with no tick before them (no interval).
    firsts: Wide,
    /// Ticks with no deadline (a first [`tick`](SharedJitterMonitor32::tick): no lateness).
    unscheduled: Wide,
    /// The longest interval (0: none, or 0).
    max_interval: AtomicU32,
    /// The shortest interval's complement (0: none, or `u32::MAX`).
    min_interval_complement: AtomicU32,
    /// The largest lateness, offset by 2^31.
    late_max: AtomicU32,
    /// The smallest lateness, offset by 2^31, complemented.
    late_min_complement: AtomicU32,
    /// The sum of lateness, wrapping, as two halves of an `i64`.
    late_sum_low: AtomicU32,
    late_sum_high: AtomicU32,
    /// The latest lateness (`i32`).
    late_last: AtomicU32,
    overruns: Wide,
}

impl Bank {
    const fn new() -> Self {
        Bank {
            ticks: AtomicU32::new(0),
            ticks_high: AtomicU32::new(0),
            firsts: Wide::new(),
            unscheduled: Wide::new(),
            max_interval: AtomicU32::new(0),
            min_interval_complement: AtomicU32::new(0),
            late_max: AtomicU32::new(0),
            late_min_complement: AtomicU32::new(0),
            late_sum_low: AtomicU32::new(0),
            late_sum_high: AtomicU32::new(0),
            late_last: AtomicU32::new(0),
            overruns: Wide::new(),
        }
    }

    /// The figures, for a period and scale (a reader holds the sequence).
    fn load(&self, period: u32, scale: TickScale) -> JitterSnapshot {
        let ticks =
            u64::from(self.ticks.load(Relaxed)) | (u64::from(self.ticks_high.load(Relaxed)) << 32);
        let intervals = ticks.wrapping_sub(self.firsts.get());
        let lateness_count = ticks.wrapping_sub(self.unscheduled.get());
        let unoffset = |v: u32| i64::from((v ^ SIGN) as i32);
        let late = lateness_count > 0;
        JitterSnapshot {
            period: u64::from(period),
            scale,
            ticks,
            interval: (intervals > 0).then(|| {
                (
                    u64::from(!self.min_interval_complement.load(Relaxed)),
                    u64::from(self.max_interval.load(Relaxed)),
                )
            }),
            lateness_count,
            lateness: late.then(|| {
                (
                    unoffset(!self.late_min_complement.load(Relaxed)),
                    unoffset(self.late_max.load(Relaxed)),
                )
            }),
            lateness_sum: (u64::from(self.late_sum_low.load(Relaxed))
                | (u64::from(self.late_sum_high.load(Relaxed)) << 32))
                as i64,
            last_lateness: late.then(|| i64::from(self.late_last.load(Relaxed) as i32)),
            overruns: self.overruns.get(),
        }
    }

    fn clear(&self) {
        for word in [
            &self.ticks,
            &self.ticks_high,
            &self.max_interval,
            &self.min_interval_complement,
            &self.late_max,
            &self.late_min_complement,
            &self.late_sum_low,
            &self.late_sum_high,
            &self.late_last,
        ] {
            word.store(0, Relaxed);
        }
        for wide in [&self.firsts, &self.unscheduled, &self.overruns] {
            wide.set(0);
        }
    }
}

/// A lock-free shared jitter monitor ticked with raw 32-bit counter readings: the
/// [`SharedJitterMonitor`](super::SharedJitterMonitor) of a 32-bit microcontroller (module
/// docs: what it stores, and the wrapping arithmetic's limits). Reports are the same
/// [`JitterSnapshot`] and [`JitterReport`](super::JitterReport).
///
/// The period (`PERIOD`, in counter ticks, below 2^31) and the counter's rate (`RATE_HZ`,
/// nanoseconds by default) are const generics, checked at compile time: the tick compares
/// with an immediate, and a `static` monitor is all zero, in `.bss` (RAM only, no copy in
/// flash).
///
/// **One writer**: [`tick`](Self::tick), [`tick_at`](Self::tick_at) (and their `_with`
/// forms) and [`restart`](Self::restart) must not run concurrently with each other.
///
/// ```
/// use rtlat_core::jitter::SharedJitterMonitor32;
///
/// // A 1 kHz interrupt timed by a 25 MHz 32-bit counter, which wraps in between.
/// static SERVO: SharedJitterMonitor32<25_000, 25_000_000> = SharedJitterMonitor32::new();
/// let start = u32::MAX - 30_000;
/// SERVO.tick_at(start.wrapping_add(25_010), start.wrapping_add(25_000));
/// SERVO.tick_at(start.wrapping_add(50_050), start.wrapping_add(50_000));
/// let snapshot = SERVO.snapshot();
/// assert_eq!(snapshot.interval, Some((25_040, 25_040)));
/// assert_eq!(snapshot.lateness, Some((10, 50)));
/// assert_eq!(snapshot.report().max_jitter_ns, Some(1_600)); // 40 ticks
/// ```
#[derive(Debug)]
pub struct SharedJitterMonitor32<const PERIOD: u32, const RATE_HZ: u64 = 1_000_000_000> {
    /// Odd while the writer stores.
    sequence: AtomicU32,
    /// The writer records into bank `generation & 1`; readers that reset bump it.
    generation: AtomicU32,
    /// Set while a reader resets.
    resetting: AtomicBool,
    /// The writer's schedule: whether a tick was seen, its time and deadline.
    started: AtomicBool,
    previous: AtomicU32,
    deadline: AtomicU32,
    /// Set while deadlines up to `counted_until` were already counted as overruns by a tick
    /// that was more than a period late, and a later tick's deadline has not reached it (a
    /// loop catching up passes them again, and is not charged twice).
    ahead: AtomicBool,
    counted_until: AtomicU32,
    banks: [Bank; 2],
}

impl<const PERIOD: u32, const RATE_HZ: u64> Default for SharedJitterMonitor32<PERIOD, RATE_HZ> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const PERIOD: u32, const RATE_HZ: u64> SharedJitterMonitor32<PERIOD, RATE_HZ> {
    /// The period, checked: 1 to 2^31 − 1 ticks (lateness is signed 32-bit).
    const PERIOD: u32 = {
        assert!(
            PERIOD >= 1 && PERIOD <= i32::MAX as u32,
            "a period of 1 to 2^31 - 1 ticks"
        );
        PERIOD
    };

    /// Ticks to nanoseconds.
    const SCALE: TickScale = match NonZeroU64::new(RATE_HZ) {
        Some(rate) => TickScale::from_hz(rate),
        None => panic!("a counter rate above 0 Hz"),
    };

    /// A monitor for activity with period `PERIOD`, ticked with readings of a 32-bit counter
    /// counting at `RATE_HZ` (usable in a `static`: all zero). Fails to compile for a period of
    /// 0 or 2^31 ticks or more, or a rate of 0.
    pub const fn new() -> Self {
        let _ = (Self::PERIOD, Self::SCALE); // the compile-time checks
        SharedJitterMonitor32 {
            sequence: AtomicU32::new(0),
            generation: AtomicU32::new(0),
            resetting: AtomicBool::new(false),
            started: AtomicBool::new(false),
            previous: AtomicU32::new(0),
            deadline: AtomicU32::new(0),
            ahead: AtomicBool::new(false),
            counted_until: AtomicU32::new(0),
            banks: [Bank::new(), Bank::new()],
        }
    }

    /// Records a tick at `now` due at `deadline` (counter readings); returns its lateness,
    /// ticks (writer only). See [`JitterMonitor::tick_at`](super::JitterMonitor::tick_at).
    #[inline]
    pub fn tick_at(&self, now: u32, deadline: u32) -> i32 {
        self.tick_at_with(now, deadline, |_| ())
    }

    /// [`tick_at`](Self::tick_at), and passes the lateness to `record` (a histogram's counters)
    /// inside the tick's sequence, so that [`read`](Self::read) sees it consistently.
    #[inline]
    pub fn tick_at_with(&self, now: u32, deadline: u32, record: impl FnOnce(i32)) -> i32 {
        // A tick with a deadline always has a lateness.
        self.advance(now, Some(deadline), record).unwrap_or(0)
    }

    /// Records a tick at `now` against the monitor's own schedule (writer only): see
    /// [`JitterMonitor::tick`](super::JitterMonitor::tick). `None` for a first tick.
    #[inline]
    pub fn tick(&self, now: u32) -> Option<i32> {
        self.advance(now, None, |_| ())
    }

    /// [`tick`](Self::tick), and passes the lateness to `record` inside the tick's sequence.
    #[inline]
    pub fn tick_with(&self, now: u32, record: impl FnOnce(i32)) -> Option<i32> {
        self.advance(now, None, record)
    }

    #[inline(always)]
    fn advance(&self, now: u32, deadline: Option<u32>, record: impl FnOnce(i32)) -> Option<i32> {
        let s = self.sequence.load(Relaxed);
        // The odd sequence before the generation load: a full fence (see SharedJitterMonitor).
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        self.sequence.swap(s.wrapping_add(1), Ordering::SeqCst);
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        {
            self.sequence.store(s.wrapping_add(1), Relaxed);
            fence(Ordering::SeqCst);
        }
        fence(Ordering::Release);
        let generation = self.generation.load(Ordering::SeqCst);
        let bank = &self.banks[(generation & 1) as usize];
        let late = self.measure(bank, now, deadline);
        if let Some(late) = late {
            record(late);
        }
        self.sequence.store(s.wrapping_add(2), Ordering::Release);
        late
    }

    #[inline(always)]
    fn measure(&self, bank: &Bank, now: u32, deadline: Option<u32>) -> Option<i32> {
        let period = Self::PERIOD;
        let ticks = bank.ticks.load(Relaxed).wrapping_add(1);
        bank.ticks.store(ticks, Relaxed);
        if ticks == 0 {
            carry(&bank.ticks_high);
        }
        let (deadline, own) = if self.started.load(Relaxed) {
            let interval = now.wrapping_sub(self.previous.load(Relaxed));
            if interval > bank.max_interval.load(Relaxed) {
                bank.max_interval.store(interval, Relaxed);
            }
            if !interval > bank.min_interval_complement.load(Relaxed) {
                bank.min_interval_complement.store(!interval, Relaxed);
            }
            self.previous.store(now, Relaxed);
            match deadline {
                Some(deadline) => (deadline, false),
                None => (self.deadline.load(Relaxed).wrapping_add(period), true),
            }
        } else {
            (self.first(bank, now, deadline)?, false)
        };
        let mut late = now.wrapping_sub(deadline) as i32;
        let mut deadline = deadline;
        if late > period as i32 || self.ahead.load(Relaxed) {
            (late, deadline) = self.overrun(bank, deadline, late, own);
        }
        self.deadline.store(deadline, Relaxed);
        let offset = late as u32 ^ SIGN;
        if offset > bank.late_max.load(Relaxed) {
            bank.late_max.store(offset, Relaxed);
        }
        if !offset > bank.late_min_complement.load(Relaxed) {
            bank.late_min_complement.store(!offset, Relaxed);
        }
        let low = bank.late_sum_low.load(Relaxed);
        let (sum_low, carried) = low.overflowing_add(late as u32);
        bank.late_sum_low.store(sum_low, Relaxed);
        let high = bank.late_sum_high.load(Relaxed);
        // Adding the sign-extended lateness: its high half is 0 or all ones.
        let high = high
            .wrapping_add((late >> 31) as u32)
            .wrapping_add(u32::from(carried));
        bank.late_sum_high.store(high, Relaxed);
        bank.late_last.store(late as u32, Relaxed);
        Some(late)
    }

    /// A first tick (since the start or a restart): no interval; with no deadline, no
    /// lateness either (it fixes the schedule: `None`).
    #[cold]
    #[inline(never)]
    fn first(&self, bank: &Bank, now: u32, deadline: Option<u32>) -> Option<u32> {
        self.started.store(true, Relaxed);
        self.previous.store(now, Relaxed);
        self.ahead.store(false, Relaxed);
        bank.firsts.add(1);
        if deadline.is_none() {
            bank.unscheduled.add(1);
            self.deadline.store(now, Relaxed);
        }
        deadline
    }

    /// A tick more than a period late, or one while earlier overruns are ahead of the
    /// schedule: counts the deadlines it let pass that no earlier tick was charged for, and
    /// on the monitor's own schedule skips them. Returns the lateness and deadline to record.
    #[cold]
    #[inline(never)]
    fn overrun(&self, bank: &Bank, deadline: u32, late: i32, own: bool) -> (i32, u32) {
        let period = Self::PERIOD;
        let counted_until = self.counted_until.load(Relaxed);
        let mut ahead = self.ahead.load(Relaxed);
        if ahead && deadline.wrapping_sub(counted_until) as i32 >= 0 {
            // The schedule reached what was counted.
            ahead = false;
        }
        if late > period as i32 {
            let passed = (late as u32 - 1) / period;
            let charged = if ahead {
                (counted_until.wrapping_sub(deadline) / period).min(passed)
            } else {
                0
            };
            let last = deadline.wrapping_add(passed * period);
            if !ahead || last.wrapping_sub(counted_until) as i32 > 0 {
                self.counted_until.store(last, Relaxed);
            }
            ahead = true;
            bank.overruns.add(u64::from(passed - charged));
            if own {
                // The monitor's own schedule skips what passed, as the cycle engine does.
                self.ahead.store(ahead, Relaxed);
                return (
                    late - (passed * period) as i32,
                    deadline.wrapping_add(passed * period),
                );
            }
        }
        self.ahead.store(ahead, Relaxed);
        (late, deadline)
    }

    /// Forgets the schedule (writer only): the next tick is a first tick again.
    pub fn restart(&self) {
        self.started.store(false, Relaxed);
    }

    /// The nominal period, ticks.
    pub const fn period(&self) -> NonZeroU32 {
        match NonZeroU32::new(Self::PERIOD) {
            Some(period) => period,
            None => unreachable!(),
        }
    }

    /// The tick-to-nanosecond conversion.
    pub const fn scale(&self) -> TickScale {
        Self::SCALE
    }

    /// Runs `read` until it ran while no tick was under way or came in between, and returns
    /// that run's result: a consistent read of what the writer records inside its ticks
    /// (e.g. a histogram fed by [`tick_at_with`](Self::tick_at_with)). Spins only while a tick
    /// is stored; `read` may run more than once.
    pub fn read<T>(&self, mut read: impl FnMut() -> T) -> T {
        seqlock::read(&self.sequence, || Some(read()))
    }

    /// A consistent copy of the current window's figures, in ticks.
    pub fn snapshot(&self) -> JitterSnapshot {
        let (period, scale) = (Self::PERIOD, Self::SCALE);
        seqlock::read(&self.sequence, || {
            let generation = self.generation.load(Ordering::Acquire);
            let snapshot = self.banks[(generation & 1) as usize].load(period, scale);
            // A reset cleared the bank under the read: read again.
            (self.generation.load(Relaxed) == generation).then_some(snapshot)
        })
    }

    /// The current window's `T:` and `J:` lines (ns), whose [`cyclictest`](JitterLines::cyclictest)
    /// and [`jitter`](JitterLines::jitter) are [`CyclictestLine::from_snapshot`] and
    /// [`JitterLine::from_snapshot`] of [`snapshot`](Self::snapshot), with the tick-to-ns
    /// conversion of this monitor's constant rate folded in at compile time: the smallest
    /// report path for a microcontroller.
    ///
    /// ```
    /// use rtlat_core::jitter::SharedJitterMonitor32;
    ///
    /// static M: SharedJitterMonitor32<25_000, 25_000_000> = SharedJitterMonitor32::new();
    /// M.tick_at(25_010, 25_000);
    /// M.tick_at(50_000, 50_000);
    /// let mut lines = M.lines(0);
    /// lines.nanoseconds = true;
    /// assert_eq!(lines.to_string(),
    ///     "T: 0 (    0) P: 0 I:1000 C:      2 Min:      0 Act:       0 Avg:     200 Max:     400\n\
    ///      J: 0 I:1000 C:      2 MinI:   999600 MaxI:   999600 Jitter:      400 Overruns:      0");
    /// ```
    ///
    /// [`CyclictestLine::from_snapshot`]: crate::report::CyclictestLine::from_snapshot
    /// [`JitterLine::from_snapshot`]: crate::report::JitterLine::from_snapshot
    pub fn lines(&self, thread: u32) -> JitterLines {
        let snapshot = self.snapshot();
        JitterLines::new(
            thread,
            Self::SCALE.to_ns(u64::from(Self::PERIOD)),
            snapshot.ticks,
            snapshot.overruns,
            snapshot.lateness_ns_by(Self::ns_signed),
            snapshot.intervals_ns_by(Self::ns),
        )
    }

    /// `ticks` in ns with the constant scale: one out-of-line copy for a report.
    #[inline(never)]
    fn ns(ticks: u64) -> u64 {
        Self::SCALE.to_ns(ticks)
    }

    /// Signed `ticks` in ns, as [`JitterSnapshot::lateness_ns`] converts them.
    #[inline(never)]
    fn ns_signed(ticks: i64) -> i64 {
        super::signed_ns(Self::ns, ticks)
    }

    /// Ends the current window and returns its figures in ticks; the writer's next tick
    /// opens the next window. Readers that reset take turns; the writer is never held up.
    pub fn snapshot_and_reset(&self) -> JitterSnapshot {
        let switch = switch_window(&self.resetting, &self.generation, &self.sequence);
        let bank = &self.banks[switch.ended];
        let snapshot = bank.load(Self::PERIOD, Self::SCALE);
        bank.clear();
        snapshot
    }

    /// Ends the current window without reading it.
    pub fn reset(&self) {
        self.snapshot_and_reset();
    }
}

/// The tick count's low word wrapped: carry into the high word.
#[cold]
#[inline(never)]
fn carry(high: &AtomicU32) {
    high.store(high.load(Relaxed).wrapping_add(1), Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_snapshots_lines() {
        use crate::report::{CyclictestLine, JitterLine};
        // 7 MHz: a rate that does not divide 10^9, so the conversion truncates.
        let m: SharedJitterMonitor32<7_000, 7_000_000> = SharedJitterMonitor32::new();
        let lines = |m: &SharedJitterMonitor32<7_000, 7_000_000>| {
            let s = m.snapshot();
            (
                CyclictestLine::from_snapshot(3, &s),
                JitterLine::from_snapshot(3, &s),
            )
        };
        let check = |m: &SharedJitterMonitor32<7_000, 7_000_000>| {
            let (t, j) = lines(m);
            let mut got = m.lines(3);
            assert_eq!((got.cyclictest(), got.jitter()), (t, j));
            assert_eq!(got.to_string(), format!("{t}\n{j}"));
            got.nanoseconds = true;
            let t = CyclictestLine {
                nanoseconds: true,
                ..t
            };
            assert_eq!(got.cyclictest(), t);
            assert_eq!(got.to_string(), format!("{t}\n{j}"));
            (t, j)
        };
        check(&m);
        m.tick(5);
        check(&m);
        // Early, late, more than a period late (overruns), and across the counter's wrap.
        let mut deadline = 7_005u32;
        for late in [-13i32, 0, 1, 6_999, 7_001, 40_000, -1, 3, u16::MAX.into()] {
            deadline = deadline.wrapping_add(7_000);
            m.tick_at(deadline.wrapping_add_signed(late), deadline);
            check(&m);
        }
        deadline = u32::MAX - 100;
        m.tick_at(deadline.wrapping_add(300), deadline);
        let (t, j) = check(&m);
        assert!(t.min_ns < 0 && t.max_ns > 0 && j.overruns > 0);
    }

    #[test]
    fn the_tick_count_carries_into_its_high_word() {
        let m: SharedJitterMonitor32<100> = SharedJitterMonitor32::new();
        m.tick_at(0, 0);
        m.banks[0].ticks.store(u32::MAX - 1, Relaxed);
        m.tick_at(100, 100);
        assert_eq!(m.snapshot().ticks, u64::from(u32::MAX));
        m.tick_at(200, 200);
        m.tick_at(300, 300);
        let s = m.snapshot();
        assert_eq!((s.ticks, s.lateness_count), ((1 << 32) + 1, (1 << 32) + 1));
        assert_eq!(s.interval, Some((100, 100)));
    }

    #[test]
    fn the_lateness_sum_carries_both_ways() {
        let m: SharedJitterMonitor32<{ i32::MAX as u32 }> = SharedJitterMonitor32::new();
        let late = i32::MAX - 1;
        // Three ticks of 2^31 − 2 ticks late each: the sum passes 2^32.
        for k in 1..=3u32 {
            let deadline = k.wrapping_mul(1 << 31);
            m.tick_at(deadline.wrapping_add(late as u32), deadline);
        }
        assert_eq!(m.snapshot().lateness_sum, 3 * i64::from(late));
        // And back below zero.
        for k in 4..=10u32 {
            let deadline = k.wrapping_mul(1 << 31);
            m.tick_at(deadline.wrapping_sub(1 << 30), deadline);
        }
        let s = m.snapshot();
        assert_eq!(s.lateness_sum, 3 * i64::from(late) - 7 * (1 << 30));
        assert_eq!(s.lateness, Some((-(1 << 30), i64::from(late))));
    }

    #[test]
    fn extremes_at_the_ends_of_the_range() {
        let m: SharedJitterMonitor32<{ i32::MAX as u32 }> = SharedJitterMonitor32::new();
        m.tick_at(0, 0);
        m.tick_at(u32::MAX, u32::MAX); // an interval of 2^32 − 1
        m.tick_at(u32::MAX, u32::MAX); // and of 0
        m.tick_at(1 << 31, 0); // lateness i32::MIN (−2^31)
        let s = m.snapshot();
        assert_eq!(s.interval, Some((0, u64::from(u32::MAX))));
        assert_eq!(s.lateness, Some((i64::from(i32::MIN), 0)));
    }
}
