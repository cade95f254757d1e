//! The ARM generic timer as an [`rtlat_core::Clock`]: the virtual count `CNTVCT_EL0`, read
//! behind an `isb`, at the rate `CNTFRQ_EL0` reports.
//!
//! This module exists only when compiling for `target_arch = "aarch64"`. On every other
//! target it is absent, not faked: code that names [`GenericTimer`] does not compile there, and
//! a front end that offers the clock everywhere asks [`require_generic_timer`](crate::require_generic_timer)
//! first, which names the architecture in its error.
//!
//! # Where it works
//!
//! - **Linux, EL0** (user space): the kernel sets `CNTKCTL_EL1.EL0VCTEN`, so the read is one
//!   instruction with no system call. On SoCs with a counter erratum the kernel traps and
//!   emulates the read instead (correct, slower).
//! - **Bare metal, EL1** (or EL0 when the EL1 code enables `EL0VCTEN`): no `std`, no
//!   allocation, nothing to initialise. `CNTFRQ_EL0` is only as right as the firmware made
//!   it: if it reads 0, [`GenericTimer::new`] refuses and [`GenericTimer::with_rate`] takes
//!   the board's rate.
//! - **qemu-user** (`qemu-aarch64`): the counter is emulated from the host's clock, at the
//!   rate qemu reports in `CNTFRQ_EL0` (62.5 MHz for qemu 7.2, advancing in 1 µs steps of
//!   62–63 ticks): usable for functional tests, not for measuring latency.
//!
//! # Ticks to nanoseconds
//!
//! [`GenericTimer::scale`] is the [`TickScale`] for the counter's rate: one 64×64→128
//! multiply and a shift per conversion, computed once at construction, never a division.
//! For the rates boards use (19.2 MHz … 1 GHz) the result is within 1 ns of exact over
//! more than a day of ticks (`tests/tick_scale.rs`).
//!
//! The counter is at least 56 bits wide: at 1 GHz it wraps after 834 days, at 62.5 MHz after
//! 36 years.

use core::arch::asm;
use core::convert::Infallible;

use rtlat_core::{Clock, TickScale};

use crate::Error;

/// Reads the virtual count `CNTVCT_EL0`, with an `isb` before it so the read is not
/// executed ahead of the instructions before it (the counter read is not ordered by the
/// architecture otherwise: without the barrier a timestamp can be taken early, out of
/// program order).
#[inline(always)]
pub fn read_cntvct() -> u64 {
    let ticks: u64;
    // SAFETY: `isb` and `mrs` of CNTVCT_EL0 touch no memory and no stack, and only write the
    // output register. CNTVCT_EL0 is readable at EL1 always and at EL0 when EL0VCTEN is set
    // (Linux sets it, or traps and emulates the read). The asm block is deliberately not
    // `nomem`, so the compiler does not move memory accesses across the timestamp.
    unsafe {
        asm!(
            "isb",
            "mrs {ticks}, cntvct_el0",
            ticks = out(reg) ticks,
            options(nostack, preserves_flags),
        );
    }
    ticks
}

/// Reads `CNTFRQ_EL0`, the counter's rate in Hz as the firmware programmed it (0 if it did
/// not). Only the low 32 bits are defined; the rest is masked off.
#[inline]
pub fn read_cntfrq() -> u64 {
    let hz: u64;
    // SAFETY: `mrs` of CNTFRQ_EL0 touches no memory and no stack and only writes the output
    // register; the register is readable at EL0 and EL1 (in the same cases as CNTVCT_EL0).
    unsafe {
        asm!(
            "mrs {hz}, cntfrq_el0",
            hz = out(reg) hz,
            options(nomem, nostack, preserves_flags),
        );
    }
    hz & 0xFFFF_FFFF
}

/// The ARM generic timer's virtual count as a [`Clock`]: [`now`](Clock::now) is an `isb`
/// and one `mrs`, infallible; [`rate_hz`](Clock::rate_hz) is `CNTFRQ_EL0` read once at
/// construction.
///
/// ```
/// use rtlat_arm64::GenericTimer;
/// use rtlat_core::Clock;
///
/// let mut clock = GenericTimer::new()?;
/// let start = clock.now().unwrap();
/// let elapsed_ns = clock.scale().to_ns(clock.now().unwrap() - start);
/// assert!(elapsed_ns < 10_000_000_000);
/// # Ok::<(), rtlat_arm64::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenericTimer {
    scale: TickScale,
}

impl GenericTimer {
    /// The generic timer at the rate in `CNTFRQ_EL0`; [`Error::ZeroFrequency`] if the
    /// firmware left it 0.
    pub fn new() -> Result<Self, Error> {
        Self::with_rate(read_cntfrq())
    }

    /// The generic timer at `rate_hz`, for boards whose firmware programs `CNTFRQ_EL0`
    /// wrongly or not at all; [`Error::ZeroFrequency`] for 0.
    pub fn with_rate(rate_hz: u64) -> Result<Self, Error> {
        match TickScale::new(rate_hz) {
            Ok(scale) => Ok(GenericTimer { scale }),
            Err(_) => Err(Error::ZeroFrequency),
        }
    }

    /// The current count (`CNTVCT_EL0`, behind an `isb`).
    #[inline(always)]
    pub fn ticks(&self) -> u64 {
        read_cntvct()
    }

    /// The current count in nanoseconds since the counter started (multiply-shift).
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.scale.to_ns(read_cntvct())
    }

    /// The counter's rate in Hz.
    pub const fn rate_hz(&self) -> u64 {
        self.scale.rate_hz()
    }

    /// The ticks → ns conversion for this rate.
    pub const fn scale(&self) -> TickScale {
        self.scale
    }
}

impl Clock for GenericTimer {
    type Error = Infallible;

    #[inline(always)]
    fn now(&mut self) -> Result<u64, Infallible> {
        Ok(read_cntvct())
    }

    fn rate_hz(&self) -> u64 {
        self.scale.rate_hz()
    }
}

/// These run on aarch64 only: natively, or under `qemu-aarch64` (see `.cargo/config.toml`).
/// Under qemu-user the counter is emulated from the host's clock, so the rate test checks
/// qemu's emulation against the host's `CLOCK_MONOTONIC`; on a board it checks the hardware.
#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn rate_is_programmed_and_plausible() {
        let clock = GenericTimer::new().expect("CNTFRQ_EL0 is set on Linux");
        let hz = clock.rate_hz();
        assert_eq!(hz, read_cntfrq());
        // Real boards: 1 MHz … 1 GHz (ARMv8.6 fixes 1 GHz).
        assert!(
            (1_000_000..=1_000_000_000).contains(&hz),
            "CNTFRQ_EL0 = {hz}"
        );
        assert_eq!(clock.scale(), TickScale::new(hz).unwrap());
        assert_eq!(<GenericTimer as Clock>::rate_hz(&clock), hz);
    }

    #[test]
    fn with_rate_refuses_zero() {
        assert_eq!(GenericTimer::with_rate(0), Err(Error::ZeroFrequency));
        assert_eq!(
            GenericTimer::with_rate(19_200_000).unwrap().rate_hz(),
            19_200_000
        );
    }

    /// CNTVCT never goes backwards over many consecutive reads (through the `Clock` trait, as
    /// the cycle engine reads it), and it advances.
    #[test]
    fn monotonic_over_many_reads() {
        let mut clock = GenericTimer::new().unwrap();
        let first = clock.now().unwrap();
        let mut last = first;
        for i in 0..1_000_000u32 {
            let t = clock.now().unwrap();
            assert!(t >= last, "read {i}: {t} after {last}");
            last = t;
        }
        std::thread::sleep(Duration::from_millis(2));
        assert!(clock.now().unwrap() > first, "the counter advances");
    }

    /// One (Instant, ticks) pair: ticks read between two `Instant`s, with the bracket's width
    /// as its uncertainty; the narrowest of a few tries (a preemption widens one bracket).
    fn paired_reading(clock: &GenericTimer) -> (Instant, u64, Duration) {
        (0..20)
            .map(|_| {
                let before = Instant::now();
                let ticks = clock.ticks();
                let after = Instant::now();
                let width = after - before;
                (before + width / 2, ticks, width)
            })
            .min_by_key(|&(_, _, width)| width)
            .unwrap()
    }

    /// The counter's rate, measured against `CLOCK_MONOTONIC` (`std::time::Instant`) over
    /// 300 ms, agrees with `CNTFRQ_EL0` within 0.1 %. Under qemu-user the counter is emulated
    /// from the host clock, so this checks qemu's emulation; on a board, the hardware (where
    /// CLOCK_MONOTONIC itself is derived from this counter, NTP-slewed by at most 0.05 %).
    #[test]
    fn rate_agrees_with_clock_monotonic() {
        let clock = GenericTimer::new().unwrap();
        let (t0, c0, w0) = paired_reading(&clock);
        std::thread::sleep(Duration::from_millis(300));
        let (t1, c1, w1) = paired_reading(&clock);
        let elapsed = (t1 - t0).as_secs_f64();
        assert!(elapsed >= 0.2, "measured over {elapsed} s");
        let uncertainty = (w0 + w1).as_secs_f64() / 2.0;
        assert!(
            uncertainty < elapsed * 2e-4,
            "readings too loose to judge 0.1 %: ±{uncertainty} s"
        );
        let measured_hz = (c1 - c0) as f64 / elapsed;
        let stated_hz = clock.rate_hz() as f64;
        let error = (measured_hz - stated_hz).abs() / stated_hz;
        // The figure, for the record (`cargo test ... -- --nocapture`).
        eprintln!(
            "CNTVCT_EL0 against CLOCK_MONOTONIC over {elapsed:.3} s: {measured_hz:.0} Hz \
             measured, {stated_hz:.0} Hz stated, {:.5} % apart",
            error * 100.0
        );
        assert!(
            error <= 1e-3,
            "measured {measured_hz:.0} Hz over {elapsed:.3} s, CNTFRQ_EL0 says {stated_hz:.0} Hz \
             ({:.4} % off)",
            error * 100.0
        );
        // And the multiply-shift conversion gives the same elapsed time within 0.1 %.
        let ns = clock.scale().to_ns(c1 - c0) as f64;
        assert!((ns / 1e9 - elapsed).abs() <= elapsed * 1e-3);
    }
}
