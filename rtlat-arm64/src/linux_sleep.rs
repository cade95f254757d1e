//! [`GenericTimerSleep`]: an [`rtlat_core::Timer`] for deadlines on the generic-timer
//! counter, sleeping with Linux's absolute `clock_nanosleep` on `CLOCK_MONOTONIC`.
//!
//! Only on aarch64 Linux, with the `linux` feature. Each sleep reads a fresh (counter,
//! monotonic) pair and translates the deadline with a [`DeadlineMap`] (see there for why a
//! fixed offset would drift). After the wake-up it reads the counter: the [`Timer`] contract is
//! "at or after the deadline" *on the counter*. When the translation was a little off and the
//! wake-up came before the counter deadline, it waits the rest on the counter — spinning for
//! at most [`SPIN_LIMIT_NS`], sleeping again for more — and counts it
//! ([`early_wakeups`](GenericTimerSleep::early_wakeups)), so a measurement can say how often
//! that happened.
//!
//! Before the run, [`calibrate`](GenericTimerSleep::calibrate) measures the monotonic clock's
//! rate against the counter (and refuses a counter that does not run at its stated rate).
//!
//! Per cycle: three counter reads (`isb; mrs`), one `clock_gettime` (vDSO, no system call) and
//! the sleep — more only when an interrupt widened the pair's bracket and it is read again. No
//! allocation, no lock, no formatting.

use rtlat_core::Timer;
use rtlat_linux::{AbsoluteSleep, ClockId, PosixClock};

use crate::deadline_map::{DeadlineMap, Pair};
use crate::generic_timer::{GenericTimer, read_cntvct};

/// An early wake-up closer than this to the counter deadline is finished by spinning on the
/// counter (2 µs); further away, by sleeping again.
pub const SPIN_LIMIT_NS: u64 = 2_000;

/// A pair whose bracket is wider than the map's limit is read again, up to this many times
/// in all; the narrowest is used.
const PAIR_TRIES: u32 = 4;

/// Sleeps until a deadline in generic-timer ticks (pair it with [`GenericTimer`] in a
/// [`CycleEngine`](rtlat_core::CycleEngine)).
#[derive(Debug, Clone, Copy)]
pub struct GenericTimerSleep {
    monotonic: PosixClock,
    sleep: AbsoluteSleep,
    map: DeadlineMap,
    spin_limit_ticks: u64,
    early_wakeups: u64,
}

impl GenericTimerSleep {
    /// A timer for `clock`'s deadlines (its rate is the map's nominal rate).
    pub fn new(clock: &GenericTimer) -> Result<Self, crate::Error> {
        let rate = clock.rate_hz();
        Ok(GenericTimerSleep {
            monotonic: PosixClock::monotonic(),
            sleep: AbsoluteSleep::new(ClockId::Monotonic),
            map: DeadlineMap::new(rate)?,
            spin_limit_ticks: (SPIN_LIMIT_NS as u128 * rate as u128 / 1_000_000_000) as u64,
            early_wakeups: 0,
        })
    }

    /// How many wake-ups came before the counter deadline and were finished on the counter.
    pub const fn early_wakeups(&self) -> u64 {
        self.early_wakeups
    }

    /// The translation in use (its measured slew, calibrations, refusals).
    pub const fn map(&self) -> &DeadlineMap {
        &self.map
    }

    /// Measures CLOCK_MONOTONIC's rate against the counter over `window` (sleeping), and
    /// takes it. The outer error is a failed clock read; the inner one,
    /// [`Error::RateMismatch`](crate::Error::RateMismatch), a counter more than 0.1 % from
    /// its stated rate — measuring with it would give wrong latencies.
    pub fn calibrate(
        &mut self,
        window: std::time::Duration,
    ) -> Result<Result<(), crate::Error>, rtlat_linux::ClockError> {
        let (from, _) = self.read_pair()?;
        std::thread::sleep(window);
        let (to, _) = self.read_pair()?;
        Ok(self.map.calibrate_between(from, to))
    }

    /// A (counter, CLOCK_MONOTONIC) pair, the narrowest of up to [`PAIR_TRIES`] reads (the
    /// first within the map's limit ends the search), and the last counter read.
    #[inline(always)]
    fn read_pair(&self) -> Result<(Pair, u64), rtlat_linux::ClockError> {
        let mut tries = 1;
        let mut before = read_cntvct();
        let mut ns = self.monotonic.now_ns()?;
        let mut after = read_cntvct();
        let mut best = Pair::bracketed(before, ns, after);
        while best.bracket > self.map.max_bracket() && tries < PAIR_TRIES {
            tries += 1;
            before = read_cntvct();
            ns = self.monotonic.now_ns()?;
            after = read_cntvct();
            let pair = Pair::bracketed(before, ns, after);
            if pair.bracket < best.bracket {
                best = pair;
            }
        }
        Ok((best, after))
    }
}

impl Timer for GenericTimerSleep {
    type Error = rtlat_linux::SleepError;

    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), rtlat_linux::SleepError> {
        loop {
            let (pair, latest) = self.read_pair()?;
            if latest >= deadline {
                return Ok(());
            }
            self.map.observe(pair);
            self.sleep
                .sleep_until(self.map.deadline_ns(pair, deadline))?;
            let woke = read_cntvct();
            if woke >= deadline {
                return Ok(());
            }
            self.early_wakeups += 1;
            if deadline - woke <= self.spin_limit_ticks {
                while read_cntvct() < deadline {
                    core::hint::spin_loop();
                }
                return Ok(());
            }
        }
    }
}

/// These run on aarch64 only: natively, or under `qemu-aarch64` (see `.cargo/config.toml`),
/// where the counter is emulated from the host's `CLOCK_MONOTONIC`.
#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_core::{CycleConfig, CycleEngine, Stats};

    /// Every return is at or after the deadline on the counter, whatever the monotonic clock
    /// says.
    #[test]
    fn never_returns_before_the_counter_deadline() {
        let clock = GenericTimer::new().unwrap();
        let mut timer = GenericTimerSleep::new(&clock).unwrap();
        let step = clock.scale().from_ns(200_000);
        let mut deadline = read_cntvct() + step;
        for i in 0..500 {
            timer.sleep_until(deadline).unwrap();
            let now = read_cntvct();
            assert!(
                now >= deadline,
                "sleep {i}: woke at {now}, deadline {deadline}"
            );
            deadline = now.max(deadline) + step;
        }
        // A deadline already passed returns at once.
        timer.sleep_until(read_cntvct() - 1).unwrap();
    }

    /// A cycle engine on the counter clock and this timer: every cycle accounted for, and the
    /// run takes its nominal time on CLOCK_MONOTONIC (loops × interval, no drift).
    #[test]
    fn drives_a_cycle_engine_without_drift() {
        let clock = GenericTimer::new().unwrap();
        let timer = GenericTimerSleep::new(&clock).unwrap();
        let config = CycleConfig {
            interval_ns: 1_000_000,
            loops: Some(300),
            break_above_ns: None,
        };
        let mut engine = CycleEngine::new(clock, timer, config).unwrap();
        let mut stats = Stats::new();
        let started = std::time::Instant::now();
        engine.start().unwrap();
        engine.run(&mut stats).unwrap();
        let elapsed = started.elapsed();
        assert_eq!(stats.summary().count(), 300);
        assert_eq!(engine.cycles(), 300);
        assert!(stats.summary().min().unwrap() >= 0, "never early");
        // 300 cycles 1 ms apart, plus the deadlines skipped as overruns: the last deadline
        // is that many ms after the start; the run ends after it (and, on an idle machine,
        // shortly after: allow a second for qemu under load).
        let span = std::time::Duration::from_millis(300 + engine.overruns());
        assert!(elapsed >= span, "{elapsed:?}");
        assert!(
            elapsed < span + std::time::Duration::from_secs(1),
            "{elapsed:?}"
        );
    }

    /// The up-front calibration takes the monotonic clock's rate (within 0.1 % of the
    /// counter's), and refuses a counter whose stated rate is wrong, naming both rates.
    #[test]
    fn calibration_takes_the_rate_and_refuses_a_wrong_cntfrq() {
        let clock = GenericTimer::new().unwrap();
        let mut timer = GenericTimerSleep::new(&clock).unwrap();
        let window = std::time::Duration::from_millis(100);
        assert_eq!(timer.calibrate(window).unwrap(), Ok(()));
        assert_eq!(timer.map().calibrations(), 1);
        assert!(
            timer.map().slew_ppm().abs() < 1_000,
            "{}",
            timer.map().slew_ppm()
        );

        let real = clock.rate_hz();
        let wrong = GenericTimer::with_rate(real / 100 * 105).unwrap();
        let mut timer = GenericTimerSleep::new(&wrong).unwrap();
        match timer.calibrate(window).unwrap() {
            Err(crate::Error::RateMismatch {
                stated_hz,
                measured_hz,
            }) => {
                assert_eq!(stated_hz, real / 100 * 105);
                assert!(
                    measured_hz.abs_diff(real) < real / 1_000,
                    "{measured_hz} vs {real}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(timer.map().calibrations(), 0);
        assert_eq!(timer.map().slew_ppm(), 0, "the rate is left as it was");
    }

    /// A clock whose stated rate is 50 % too high makes every translated deadline a third of
    /// the interval early (far beyond the 50 µs timer slack of a SCHED_OTHER thread): each
    /// wake-up is caught on the counter, counted, and finished there, so no return is early.
    #[test]
    fn early_wake_ups_are_caught_on_the_counter() {
        let real = GenericTimer::new().unwrap().rate_hz();
        let wrong = GenericTimer::with_rate(real / 2 * 3).unwrap();
        let mut timer = GenericTimerSleep::new(&wrong).unwrap();
        let step = real / 1_000; // 1 ms of real ticks
        for i in 0..50 {
            let deadline = read_cntvct() + step;
            timer.sleep_until(deadline).unwrap();
            let now = read_cntvct();
            assert!(now >= deadline, "sleep {i}: {now} < {deadline}");
        }
        assert!(
            timer.early_wakeups() >= 25,
            "{} early wake-ups caught in 50 sleeps",
            timer.early_wakeups()
        );
    }
}
