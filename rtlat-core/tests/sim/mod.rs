//! A simulated clock and timer shared by the core's schedule tests: deterministic, no real
//! sleeping.

use rtlat_core::{Clock, Timer};
use std::cell::Cell;
use std::convert::Infallible;

/// Simulated time in ticks.
pub struct SimClock<'a> {
    pub now: &'a Cell<u64>,
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

/// Wakes each deadline plus the next scripted delay (ticks; negative wakes early).
pub struct SimTimer<'a> {
    pub now: &'a Cell<u64>,
    pub delays: std::vec::IntoIter<i64>,
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
