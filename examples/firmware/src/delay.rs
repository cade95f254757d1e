//! How late does cortex-m's SysTick `Delay` wake? (feature `delay`, built without the
//! monitor: `--no-default-features --features delay`.) rtlat-core's `DelayProbe` calls the
//! embedded-hal 1.0 `DelayNs::delay_us` of `cortex_m::delay::Delay` (SysTick counting core
//! cycles, polled) again and again, timed on the free-running CMSDK TIMER0 (extended to 64
//! bits), and records each overshoot into a histogram and a summary. Every 100 delays it
//! prints a `D:` line of the figures so far, in ns: `D: delay_us(100) C:%7u Min:%7d Avg:%7d
//! P50:%7d P99:%7d Max:%8d`. Under QEMU the figures show the host's scheduling, not a
//! Cortex-M4's (README.md).

use core::convert::Infallible;

use cortex_m::delay::Delay;
use cortex_m::peripheral::SYST;
use cortex_m_semihosting::hprintln;
use rtlat_core::delay::{DelayProbe, DelayRequest};
use rtlat_core::{Clock, CounterExtender, SmallHistogram, Summary};

/// The delay asked for, µs.
pub const DELAY_US: u32 = 100;
/// Delays per report line.
const PER_LINE: u64 = 100;

/// TIMER0 as an rtlat-core clock: the raw 32-bit count extended to 64 bits (read far more
/// often than its 171.8 s wrap).
struct Timer0 {
    extender: CounterExtender<32>,
}

impl Clock for Timer0 {
    type Error = Infallible;
    fn now(&mut self) -> Result<u64, Infallible> {
        Ok(self.extender.extend(crate::clock::now()))
    }
    fn rate_hz(&self) -> u64 {
        u64::from(crate::clock::RATE_HZ)
    }
}

/// Measures `lines` × 100 delays of [`DELAY_US`] on SysTick, a `D:` line every 100.
pub fn measure(syst: SYST, lines: u32) {
    let mut delay = Delay::new(syst, crate::board::SYSCLK_HZ);
    let clock = Timer0 {
        extender: CounterExtender::new(),
    };
    let Ok(mut probe) = DelayProbe::new(clock) else {
        unreachable!("the rate is not 0")
    };
    let mut histogram = SmallHistogram::empty();
    let mut summary = Summary::new();
    for _ in 0..lines {
        let Ok(()) = probe.measure(
            &mut delay,
            DelayRequest::Us(DELAY_US),
            PER_LINE,
            &mut (&mut histogram, &mut summary),
        );
        let [p50, p99] = histogram.percentiles([50.0, 99.0]);
        hprintln!(
            "D: delay_us({}) C:{:7} Min:{:7} Avg:{:7} P50:{:7} P99:{:7} Max:{:8}",
            DELAY_US,
            summary.count(),
            summary.min().unwrap_or(0),
            summary.mean_truncated().unwrap_or(0),
            p50.unwrap_or(0),
            p99.unwrap_or(0),
            summary.max().unwrap_or(0)
        );
    }
}
