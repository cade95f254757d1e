//! A simulated clock, timer and delay (feature `sim`): deterministic time in a [`Cell`] that
//! only the timer and the delay move, no real sleeping, for testing code built on [`Clock`],
//! [`Timer`] and embedded-hal's [`DelayNs`] (the cycle engine, a measuring loop, a
//! [`DelayProbe`](crate::delay::DelayProbe), a new backend's wiring) on the host. The timer
//! wakes each deadline plus the next delay of a script, the delay returns after the time
//! asked for plus the next overshoot of its script, so a test says exactly how late (or
//! early) every wake-up is and checks which deadlines were slept to.
//!
//! The feature needs `std` (the script and the deadlines are `Vec`s): it is for host tests,
//! never for firmware.
//!
//! ```
//! use rtlat_core::sim::{SimClock, SimTimer};
//! use rtlat_core::{CycleConfig, CycleEngine, Outcome};
//! use std::cell::Cell;
//!
//! let now = Cell::new(0);
//! let clock = SimClock { now: &now, rate_hz: 1_000_000_000 };
//! let timer = SimTimer { now: &now, delays: vec![12, -3].into_iter(), deadlines: Vec::new() };
//! let mut engine = CycleEngine::new(clock, timer, CycleConfig::new(1_000)).unwrap();
//! let latency = |outcome| match outcome {
//!     Outcome::Sample(sample) => sample.latency_ns,
//!     other => panic!("{other:?}"),
//! };
//! assert_eq!(latency(engine.step(&mut ()).unwrap()), 12);
//! assert_eq!(latency(engine.step(&mut ()).unwrap()), -3);
//! assert_eq!(engine.timer_mut().deadlines, [1_000, 2_000]);
//! ```

extern crate std;

use crate::{Clock, Timer};
use core::cell::Cell;
use core::convert::Infallible;
use embedded_hal::delay::DelayNs;
use std::vec::Vec;

/// Simulated time in ticks: reads `now`, which the [`SimTimer`] sharing it moves.
#[derive(Debug)]
pub struct SimClock<'a> {
    /// The time now, in ticks.
    pub now: &'a Cell<u64>,
    /// Ticks per second.
    pub rate_hz: u64,
}

impl Clock for SimClock<'_> {
    type Error = Infallible;
    fn now(&mut self) -> Result<u64, Infallible> {
        Ok(self.now.get())
    }
    fn rate_hz(&self) -> u64 {
        self.rate_hz
    }
}

/// Wakes each deadline plus the next scripted delay (ticks; negative wakes early), and keeps
/// the deadlines it was asked to sleep to. Fails with [`ScriptExhausted`] when the script
/// has no delay left.
#[derive(Debug)]
pub struct SimTimer<'a> {
    /// The time now, in ticks, shared with the [`SimClock`].
    pub now: &'a Cell<u64>,
    /// How late each wake-up is, in ticks, in order.
    pub delays: std::vec::IntoIter<i64>,
    /// The deadlines slept to so far.
    pub deadlines: Vec<u64>,
}

/// A [`SimTimer`] asked to sleep once more than its script has delays for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScriptExhausted;

impl core::fmt::Display for ScriptExhausted {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("script exhausted")
    }
}

impl core::error::Error for ScriptExhausted {}

impl Timer for SimTimer<'_> {
    type Error = ScriptExhausted;
    fn sleep_until(&mut self, deadline: u64) -> Result<(), ScriptExhausted> {
        self.deadlines.push(deadline);
        let delay = self.delays.next().ok_or(ScriptExhausted)?;
        self.now.set(deadline.checked_add_signed(delay).unwrap());
        Ok(())
    }
}

/// A [`DelayNs`] on simulated time: each call moves `now` on by the time asked for (in ticks
/// at `rate_hz`, rounded up: never short) plus the next scripted overshoot (ticks; negative
/// returns early; none once the script is exhausted), and keeps the times asked for (ns).
/// `delay_us` and `delay_ms` are one call each, as on a timer that takes any duration.
#[derive(Debug)]
pub struct SimDelay<'a> {
    /// The time now, in ticks, shared with the [`SimClock`].
    pub now: &'a Cell<u64>,
    /// Ticks per second.
    pub rate_hz: u64,
    /// How late each call returns, in ticks, in order.
    pub overshoots: std::vec::IntoIter<i64>,
    /// The times asked for so far, in ns.
    pub requests: Vec<u64>,
}

impl SimDelay<'_> {
    fn pause(&mut self, ns: u64) {
        self.requests.push(ns);
        let ticks = (u128::from(ns) * u128::from(self.rate_hz)).div_ceil(1_000_000_000);
        let ticks = u64::try_from(ticks).unwrap();
        let overshoot = self.overshoots.next().unwrap_or(0);
        let end = self.now.get().checked_add(ticks).unwrap();
        self.now.set(end.checked_add_signed(overshoot).unwrap());
    }
}

impl DelayNs for SimDelay<'_> {
    fn delay_ns(&mut self, ns: u32) {
        self.pause(u64::from(ns));
    }
    fn delay_us(&mut self, us: u32) {
        self.pause(u64::from(us) * 1_000);
    }
    fn delay_ms(&mut self, ms: u32) {
        self.pause(u64::from(ms) * 1_000_000);
    }
}
