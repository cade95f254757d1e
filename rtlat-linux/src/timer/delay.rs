//! Every timer as an embedded-hal 1.0 [`DelayNs`]: a delay of `d` is a sleep until the
//! timer's clock reads `now + d`, so `delay_us` and `delay_ms` wait on the same system calls
//! as the measuring loop (what rtlat-core's `DelayProbe` times: how late such a delay wakes).
//!
//! `DelayNs` cannot fail, and promises at least the time asked for. A sleep that fails (a
//! clock read refused, the measurement cancelled while it slept) sleeps what is left with
//! [`std::thread::sleep`], which retries on signals and never fails: a delay never returns
//! early. `delay_us` and `delay_ms` are one sleep each (embedded-hal's defaults split them
//! into `u32` nanosecond calls).

use embedded_hal::delay::DelayNs;
use rtlat_core::Timer;

use super::{AbsoluteSleep, AnyTimer, NanoSleep, PosixTimer, RelativeSleep, TimerFd};
use crate::clock::{ClockId, PosixClock};

/// Sleeps `ns` on `timer`, whose deadlines are on `clock`: until `clock` reads `now + ns`.
fn delay<T: Timer>(timer: &mut T, clock: ClockId, ns: u64) {
    let clock = PosixClock::new(clock);
    let Ok(start) = clock.now_ns() else {
        return sleep_rest(None, ns);
    };
    let deadline = start.saturating_add(ns);
    if timer.sleep_until(deadline).is_err() {
        sleep_rest(Some((&clock, deadline)), ns);
    }
}

/// After a failed sleep: sleeps until `clock` reads `deadline` (all of `ns` when the clock
/// cannot be read), with `std::thread::sleep`.
#[cold]
#[inline(never)]
fn sleep_rest(until: Option<(&PosixClock, u64)>, ns: u64) {
    let rest = match until {
        Some((clock, deadline)) => match clock.now_ns() {
            Ok(now) => deadline.saturating_sub(now),
            Err(_) => ns,
        },
        None => ns,
    };
    std::thread::sleep(std::time::Duration::from_nanos(rest));
}

/// `DelayNs` for a timer type, each delay `delay(self, self.clock(), ns)`.
macro_rules! delay_on_own_clock {
    ($($timer:ty),*) => {$(
        /// A delay is a sleep on this timer until its clock reads `now + d` (module
        /// `timer::delay`).
        impl DelayNs for $timer {
            fn delay_ns(&mut self, ns: u32) {
                let clock = self.clock();
                delay(self, clock, u64::from(ns));
            }
            fn delay_us(&mut self, us: u32) {
                let clock = self.clock();
                delay(self, clock, u64::from(us) * 1_000);
            }
            fn delay_ms(&mut self, ms: u32) {
                let clock = self.clock();
                delay(self, clock, u64::from(ms) * 1_000_000);
            }
        }
    )*};
}

delay_on_own_clock!(AbsoluteSleep, RelativeSleep, NanoSleep, PosixTimer, TimerFd);

/// The chosen timer's delay.
impl DelayNs for AnyTimer {
    fn delay_ns(&mut self, ns: u32) {
        match self {
            AnyTimer::Absolute(t) => t.delay_ns(ns),
            AnyTimer::Relative(t) => t.delay_ns(ns),
            AnyTimer::NanoSleep(t) => t.delay_ns(ns),
            AnyTimer::PosixTimer(t) => t.delay_ns(ns),
            AnyTimer::TimerFd(t) => t.delay_ns(ns),
            // The tracer keeps its own period: a delay is a plain absolute sleep.
            AnyTimer::Timerlat(_) => AbsoluteSleep::new(ClockId::Monotonic).delay_ns(ns),
        }
    }
    fn delay_us(&mut self, us: u32) {
        match self {
            AnyTimer::Absolute(t) => t.delay_us(us),
            AnyTimer::Relative(t) => t.delay_us(us),
            AnyTimer::NanoSleep(t) => t.delay_us(us),
            AnyTimer::PosixTimer(t) => t.delay_us(us),
            AnyTimer::TimerFd(t) => t.delay_us(us),
            // The tracer keeps its own period: a delay is a plain absolute sleep.
            AnyTimer::Timerlat(_) => AbsoluteSleep::new(ClockId::Monotonic).delay_us(us),
        }
    }
    fn delay_ms(&mut self, ms: u32) {
        match self {
            AnyTimer::Absolute(t) => t.delay_ms(ms),
            AnyTimer::Relative(t) => t.delay_ms(ms),
            AnyTimer::NanoSleep(t) => t.delay_ms(ms),
            AnyTimer::PosixTimer(t) => t.delay_ms(ms),
            AnyTimer::TimerFd(t) => t.delay_ms(ms),
            // The tracer keeps its own period: a delay is a plain absolute sleep.
            AnyTimer::Timerlat(_) => AbsoluteSleep::new(ClockId::Monotonic).delay_ms(ms),
        }
    }
}

/// A real delay on each timer, timed by rtlat-core's `DelayProbe` on the same clock: counts and
/// signs only, never how late (the machines are shared VMs).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::timer::TimerKind;
    use rtlat_core::delay::{DelayProbe, DelayRequest};
    use rtlat_core::{DefaultHistogram, Summary};

    #[test]
    fn every_timer_delays_at_least_the_time_asked_for() {
        // On a thread of its own: the POSIX timer blocks its signal on the thread it is made on.
        std::thread::spawn(|| {
            for kind in TimerKind::ALL {
                let mut timer = AnyTimer::new(kind, ClockId::Monotonic, 1_000_000).unwrap();
                let mut probe = DelayProbe::new(PosixClock::monotonic()).unwrap();
                let mut histogram = DefaultHistogram::empty();
                let mut summary = Summary::new();
                for request in [
                    DelayRequest::Ns(50_000),
                    DelayRequest::Us(200),
                    DelayRequest::Ms(1),
                ] {
                    probe
                        .measure(&mut timer, request, 10, &mut (&mut histogram, &mut summary))
                        .unwrap();
                }
                assert_eq!(histogram.count(), 30, "{kind}");
                assert_eq!(summary.count(), 30, "{kind}");
                // The probe reads the clock the delay sleeps on: never early.
                assert!(summary.min().unwrap() >= 0, "{kind}: {:?}", summary.min());
                assert_eq!(histogram.underflow(), 0, "{kind}");
            }
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_zero_delay_returns() {
        let mut timer = AbsoluteSleep::new(ClockId::Monotonic);
        timer.delay_ns(0);
        timer.delay_us(0);
        timer.delay_ms(0);
    }
}
