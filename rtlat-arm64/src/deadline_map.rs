//! [`DeadlineMap`]: turns a deadline on the generic-timer counter into a `CLOCK_MONOTONIC`
//! deadline the kernel can sleep to.
//!
//! Linux sleeps only on its own clocks, so a timer for counter deadlines must translate each
//! one. On arm64 `CLOCK_MONOTONIC` is itself computed from this counter, but NTP may slew
//! its rate by up to 500 ppm: a fixed offset taken at the start would drift by up to 0.5 ms a
//! second — far more than the latencies measured. So the map works from a fresh *pair*
//! (counter, monotonic) read right before every sleep, and converts only the remaining ticks,
//! at the monotonic clock's *measured* rate:
//!
//! - **The pair.** The counter is read before and after the monotonic clock; the midpoint is
//!   taken as the counter at the monotonic reading, so the pair's error is at most half the
//!   bracket (tens of ns natively; the vDSO reads the counter early in its call, so the
//!   midpoint leans a little late, which maps the deadline a few ns early). A bracket widened
//!   by an interrupt is read again (the timer keeps the narrowest of a few tries), so an
//!   interruption *before* the sleep does not move the deadline.
//! - **The rate.** CLOCK_MONOTONIC nanoseconds per tick, in 32.32 fixed point. It starts at
//!   the nominal rate (`CNTFRQ_EL0`), is measured once before the run
//!   ([`calibrate_between`](DeadlineMap::calibrate_between), which refuses a counter whose
//!   rate is not what `CNTFRQ_EL0` says), and is re-measured from two pairs at least
//!   [`CALIBRATION_WINDOW_NS`] apart: one division a second, never per cycle. A pair with a
//!   wide bracket (the thread was preempted between the reads) is not used, nor a rate more
//!   than [`MAX_SLEW_PPM`] from nominal (NTP never slews that far; a suspend, or a counter
//!   erratum, could).
//! - **The deadline** is rounded up, so a correct map never wakes the sleeper early; the
//!   remaining error (the pair's, and a rate change within the last second) is nanoseconds,
//!   and the timer using the map checks the counter after waking.
//!
//! Pure integer arithmetic, no registers: it builds and is tested on every host.

use crate::Error;

/// Calibration window: the rate is re-measured from pairs at least this far apart (1 s).
pub const CALIBRATION_WINDOW_NS: u64 = 1_000_000_000;

/// A measured rate further than this from nominal is refused (NTP slews by at most 500 ppm).
pub const MAX_SLEW_PPM: u64 = 1_000;

/// A pair whose counter bracket is wider than this is not used for calibration (5 µs).
pub const MAX_BRACKET_NS: u64 = 5_000;

/// One reading of both clocks: the counter (`ticks`) at the monotonic time `ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// Counter ticks: the midpoint of the reads around the monotonic one.
    pub ticks: u64,
    /// `CLOCK_MONOTONIC`, ns.
    pub ns: u64,
    /// The counter's bracket around the monotonic read (`after - before`), ticks.
    pub bracket: u64,
}

impl Pair {
    /// The pair from a counter read `before`, the monotonic read `ns`, and a counter read
    /// `after`.
    #[inline(always)]
    pub const fn bracketed(before: u64, ns: u64, after: u64) -> Pair {
        let bracket = after.saturating_sub(before);
        Pair {
            ticks: before + bracket / 2,
            ns,
            bracket,
        }
    }
}

/// Counter deadlines → `CLOCK_MONOTONIC` deadlines, at the monotonic clock's measured rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeadlineMap {
    /// The counter's stated rate, Hz.
    rate_hz: u64,
    /// CLOCK_MONOTONIC ns per tick at the nominal rate, 32.32 fixed point.
    nominal: u64,
    /// The rate in use, 32.32 fixed point.
    ns_per_tick: u64,
    /// The pair the current calibration window started at.
    anchor: Option<Pair>,
    /// [`CALIBRATION_WINDOW_NS`] in ticks.
    window_ticks: u64,
    /// [`MAX_BRACKET_NS`] in ticks (at least 1).
    max_bracket: u64,
    calibrations: u64,
    refused: u64,
}

const FRACTION_BITS: u32 = 32;

impl DeadlineMap {
    /// A map for a counter running at `rate_hz` (nominally); error for 0.
    pub const fn new(rate_hz: u64) -> Result<DeadlineMap, Error> {
        if rate_hz == 0 {
            return Err(Error::ZeroFrequency);
        }
        // ⌈10⁹ · 2³² / rate⌉ fits in 64 bits for every rate ≥ 1 Hz.
        let nominal = ((1_000_000_000u128 << FRACTION_BITS).div_ceil(rate_hz as u128)) as u64;
        let window_ticks = (CALIBRATION_WINDOW_NS as u128 * rate_hz as u128 / 1_000_000_000) as u64;
        let max_bracket = (MAX_BRACKET_NS as u128 * rate_hz as u128 / 1_000_000_000) as u64;
        Ok(DeadlineMap {
            rate_hz,
            nominal,
            ns_per_tick: nominal,
            anchor: None,
            window_ticks: if window_ticks == 0 { 1 } else { window_ticks },
            max_bracket: if max_bracket == 0 { 1 } else { max_bracket },
            calibrations: 0,
            refused: 0,
        })
    }

    /// Takes `pair` into the calibration: the first usable pair anchors a window; a usable
    /// pair at least a window later measures the rate and starts the next window.
    #[inline]
    pub fn observe(&mut self, pair: Pair) {
        if pair.bracket > self.max_bracket {
            return;
        }
        let Some(anchor) = self.anchor else {
            self.anchor = Some(pair);
            return;
        };
        let ticks = pair.ticks.wrapping_sub(anchor.ticks);
        if pair.ticks < anchor.ticks || pair.ns < anchor.ns {
            // Cannot happen with two monotonic clocks; start again rather than guess.
            self.anchor = Some(pair);
            self.refused += 1;
            return;
        }
        if ticks < self.window_ticks {
            return;
        }
        self.calibrate(anchor, pair);
        self.anchor = Some(pair);
    }

    /// The rate between two pairs a window apart (cold: one division).
    #[cold]
    fn calibrate(&mut self, from: Pair, to: Pair) {
        if self.calibrate_between(from, to).is_err() {
            self.refused += 1;
        }
    }

    /// Measures the rate between two pairs (in time order, any distance apart: the longer,
    /// the better) and takes it; [`Error::RateMismatch`] — the rate unchanged — when the
    /// counter runs more than [`MAX_SLEW_PPM`] away from its stated rate against
    /// CLOCK_MONOTONIC (a wrong `CNTFRQ_EL0`, or clocks that went back).
    pub fn calibrate_between(&mut self, from: Pair, to: Pair) -> Result<(), Error> {
        let ticks = to.ticks.saturating_sub(from.ticks) as u128;
        let ns = to.ns.saturating_sub(from.ns) as u128;
        let nominal = self.nominal as u128;
        match (ns << FRACTION_BITS).checked_div(ticks) {
            Some(measured)
                if measured.abs_diff(nominal) * 1_000_000 <= nominal * MAX_SLEW_PPM as u128 =>
            {
                self.ns_per_tick = measured as u64;
            }
            _ => {
                return Err(Error::RateMismatch {
                    stated_hz: self.rate_hz(),
                    measured_hz: (ticks * 1_000_000_000).checked_div(ns).unwrap_or(0) as u64,
                });
            }
        }
        self.calibrations += 1;
        Ok(())
    }

    /// The counter's stated rate (the one the map was made for), Hz.
    pub const fn rate_hz(&self) -> u64 {
        self.rate_hz
    }

    /// [`MAX_BRACKET_NS`] in ticks: a pair with a wider bracket is read again.
    pub const fn max_bracket(&self) -> u64 {
        self.max_bracket
    }

    /// The `CLOCK_MONOTONIC` time (ns) at which the counter reaches `deadline`, from a fresh
    /// `pair`, rounded up. A deadline at or before the pair maps to the pair's time.
    #[inline(always)]
    pub const fn deadline_ns(&self, pair: Pair, deadline: u64) -> u64 {
        let remaining = deadline.saturating_sub(pair.ticks) as u128;
        let ns = (remaining * self.ns_per_tick as u128).div_ceil(1 << FRACTION_BITS);
        pair.ns.saturating_add(if ns > u64::MAX as u128 {
            u64::MAX
        } else {
            ns as u64
        })
    }

    /// The rate in use, CLOCK_MONOTONIC ns per tick in 32.32 fixed point.
    pub const fn ns_per_tick_q32(&self) -> u64 {
        self.ns_per_tick
    }

    /// The rate in use relative to nominal, in parts per million (positive: the monotonic
    /// clock runs fast against the counter).
    pub fn slew_ppm(&self) -> i64 {
        let diff = self.ns_per_tick as i128 - self.nominal as i128;
        (diff * 1_000_000 / self.nominal as i128) as i64
    }

    /// How many times the rate was measured and taken.
    pub const fn calibrations(&self) -> u64 {
        self.calibrations
    }

    /// How many measurements were refused (beyond [`MAX_SLEW_PPM`], or clocks going back).
    pub const fn refused(&self) -> u64 {
        self.refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u64 = 19_200_000;

    /// A counter at `RATE` and a monotonic clock running `ppm` fast against it, both from 0
    /// ticks at `origin_ns`.
    fn pair_at(ticks: u64, origin_ns: u64, ppm: i64) -> Pair {
        let ideal = ticks as i128 * 1_000_000_000 / RATE as i128;
        let ns = origin_ns as i128 + ideal + ideal * ppm as i128 / 1_000_000;
        Pair::bracketed(ticks, ns as u64, ticks)
    }

    #[test]
    fn zero_rate_is_refused() {
        assert_eq!(DeadlineMap::new(0), Err(Error::ZeroFrequency));
    }

    #[test]
    fn bracket_midpoint() {
        let p = Pair::bracketed(100, 5_000, 110);
        assert_eq!((p.ticks, p.ns, p.bracket), (105, 5_000, 10));
        // A counter read that went backwards (cannot happen) gives a zero bracket, no panic.
        assert_eq!(Pair::bracketed(110, 0, 100).bracket, 0);
    }

    #[test]
    fn nominal_mapping_is_exact_and_rounds_up() {
        let map = DeadlineMap::new(RATE).unwrap();
        let pair = Pair::bracketed(1_000, 7_000_000, 1_000);
        // 19 200 ticks = 1 ms: the rate is rounded up, so at most 1 ns late, never early.
        let ms = map.deadline_ns(pair, 1_000 + 19_200) - 7_000_000;
        assert!((1_000_000..=1_000_001).contains(&ms), "{ms}");
        // A day of ticks from the pair: still within 1 µs (2⁻³² relative rounding).
        let day = map.deadline_ns(pair, 1_000 + RATE * 86_400) - 7_000_000;
        assert!(
            day >= 86_400_000_000_000 && day - 86_400_000_000_000 < 1_000,
            "{day}"
        );
        // One tick = 52.083… ns: rounded up to 53, never down.
        assert_eq!(map.deadline_ns(pair, 1_001), 7_000_053);
        // A passed deadline maps to now.
        assert_eq!(map.deadline_ns(pair, 999), 7_000_000);
        // 62.5 MHz (qemu): 16 ns a tick, exact.
        let qemu = DeadlineMap::new(62_500_000).unwrap();
        assert_eq!(
            qemu.deadline_ns(pair, 1_000 + 62_500),
            7_000_000 + 1_000_000
        );
        assert_eq!(qemu.slew_ppm(), 0);
    }

    #[test]
    fn learns_an_ntp_slewed_rate_within_a_second() {
        for ppm in [-500i64, -37, 0, 12, 250, 500] {
            let mut map = DeadlineMap::new(RATE).unwrap();
            let origin = 123_456_789;
            // 1 ms cycles for 2.5 s.
            for cycle in 0..2_500u64 {
                map.observe(pair_at(cycle * 19_200, origin, ppm));
            }
            assert_eq!(map.calibrations(), 2, "{ppm} ppm");
            assert!(
                (map.slew_ppm() - ppm).abs() <= 1,
                "{ppm}: {}",
                map.slew_ppm()
            );
            // A 1 ms deadline from a fresh pair lands within 1 ns of where the slewed
            // monotonic clock really is when the counter gets there, and never before.
            let now = 2_600 * 19_200;
            let pair = pair_at(now, origin, ppm);
            let truth = pair_at(now + 19_200, origin, ppm).ns;
            let mapped = map.deadline_ns(pair, now + 19_200);
            assert!(
                mapped >= truth && mapped <= truth + 1,
                "{ppm}: {mapped} vs {truth}"
            );
        }
    }

    #[test]
    fn without_calibration_the_error_is_the_slew_times_the_remaining_time() {
        // What a fixed nominal rate costs: 500 ppm of a 1 ms interval is 500 ns early.
        let map = DeadlineMap::new(RATE).unwrap();
        let pair = pair_at(0, 0, 500);
        let truth = pair_at(19_200, 0, 500).ns;
        let early = truth - map.deadline_ns(pair, 19_200);
        assert!((499..=500).contains(&early), "{early}");
    }

    #[test]
    fn wide_brackets_and_absurd_rates_are_not_taken() {
        let mut map = DeadlineMap::new(RATE).unwrap();
        // A pair read across a preemption (bracket 1 ms) never anchors or calibrates.
        map.observe(Pair::bracketed(0, 0, 19_200));
        map.observe(Pair::bracketed(
            40 * RATE,
            1_000_000_000,
            40 * RATE + 19_200,
        ));
        assert_eq!((map.calibrations(), map.refused()), (0, 0));
        assert_eq!(
            map.ns_per_tick_q32(),
            DeadlineMap::new(RATE).unwrap().nominal
        );
        // 2 % off (a suspended counter, a wrong CNTFRQ): refused, the nominal rate stays.
        map.observe(pair_at(0, 0, 0));
        map.observe(pair_at(RATE, 0, 20_000));
        assert_eq!((map.calibrations(), map.refused()), (0, 1));
        assert_eq!(map.slew_ppm(), 0);
        // Clocks going backwards restart the window.
        map.observe(Pair::bracketed(0, 0, 0));
        assert_eq!(map.refused(), 2);
    }

    #[test]
    fn calibration_between_two_pairs() {
        let mut map = DeadlineMap::new(RATE).unwrap();
        assert_eq!(map.rate_hz(), RATE);
        // 100 ms apart, monotonic 300 ppm fast: taken.
        let (a, b) = (pair_at(0, 5, 300), pair_at(RATE / 10, 5, 300));
        assert_eq!(map.calibrate_between(a, b), Ok(()));
        assert_eq!(map.calibrations(), 1);
        assert!((map.slew_ppm() - 300).abs() <= 1, "{}", map.slew_ppm());
        // A counter really at 24 MHz that CNTFRQ calls 19.2 MHz: refused with both rates.
        let mut map = DeadlineMap::new(RATE).unwrap();
        let b = Pair::bracketed(2_400_000, 100_000_000, 2_400_000);
        assert_eq!(
            map.calibrate_between(Pair::bracketed(0, 0, 0), b),
            Err(Error::RateMismatch {
                stated_hz: RATE,
                measured_hz: 24_000_000
            })
        );
        assert_eq!((map.calibrations(), map.slew_ppm()), (0, 0));
        // No time between the pairs: refused, no division by zero.
        assert!(map.calibrate_between(b, b).is_err());
        let message = Error::RateMismatch {
            stated_hz: RATE,
            measured_hz: 24_000_000,
        }
        .to_string();
        assert!(message.contains("24000000 Hz") && message.contains("19200000 Hz"));
    }

    #[test]
    fn extreme_values_do_not_panic() {
        for rate in [1, 1_000, RATE, 1_000_000_000, u32::MAX as u64] {
            let mut map = DeadlineMap::new(rate).unwrap();
            let pair = Pair::bracketed(u64::MAX - 1, u64::MAX - 5, u64::MAX);
            map.observe(pair);
            map.observe(Pair::bracketed(0, 0, 0));
            assert!(map.deadline_ns(pair, u64::MAX) >= pair.ns);
            let exact = (u64::MAX as u128 * 1_000_000_000 / rate as u128).min(u64::MAX as u128);
            let got = map.deadline_ns(Pair::bracketed(0, 0, 0), u64::MAX) as u128;
            assert!(
                got >= exact && got - exact <= exact / 1_000_000_000 + 1,
                "{rate}: {got}"
            );
        }
    }
}
