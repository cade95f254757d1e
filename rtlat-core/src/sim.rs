//! A simulated clock and timer (feature `sim`): deterministic time in a [`Cell`] that only the
//! timer moves, no real sleeping, for testing code built on [`Clock`] and [`Timer`] (the
//! cycle engine, a measuring loop, a new backend's wiring) on the host. The timer wakes each
//! deadline plus the next delay of a script, so a test says exactly how late (or early) every
//! wake-up is and checks which deadlines were slept to.
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
/// the deadlines it was asked to sleep to. Fails with `"script exhausted"` when the script
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

impl Timer for SimTimer<'_> {
    type Error = &'static str;
    fn sleep_until(&mut self, deadline: u64) -> Result<(), &'static str> {
        self.deadlines.push(deadline);
        let delay = self.delays.next().ok_or("script exhausted")?;
        self.now.set(deadline.checked_add_signed(delay).unwrap());
        Ok(())
    }
}
