//! An Alchemy task's delay as an embedded-hal 1.0 [`DelayNs`]: the calling task sleeps with
//! `rt_task_sleep_until(now + d)` on the Alchemy clock (`d` rounded up to whole clock ticks),
//! for a [`Task`] and for a [`PeriodicTimer`] (its task sleeps; the period's releases go on
//! as they were). So rtlat-core's `DelayProbe` on an [`AlchemyClock`](crate::AlchemyClock)
//! times how late a Xenomai delay wakes.
//!
//! `DelayNs` cannot fail, and promises at least the time asked for: should the sleep fail (a
//! thread that is not a task, `rt_task_unblock`, a build without Xenomai), what is left is
//! slept with `std::thread::sleep` (on Cobalt that is a Linux call: a mode switch, only in
//! that case).

use core::borrow::Borrow;

use embedded_hal::delay::DelayNs;

use crate::{PeriodicTimer, Task, call};

/// Sleeps the calling task `ns`, at least.
fn delay(task: &Task, ns: u64) {
    let ns_per_tick = call::timer_inquire().period.max(1);
    let ticks = ns.div_ceil(ns_per_tick);
    let date = call::alchemy_clock_ticks().saturating_add(ticks);
    if task.sleep_until(date).is_err() {
        sleep_rest(date, ns_per_tick);
    }
}

/// After a failed sleep: the rest until `date` (Alchemy ticks) with `std::thread::sleep`.
#[cold]
#[inline(never)]
fn sleep_rest(date: u64, ns_per_tick: u64) {
    let rest = date.saturating_sub(call::alchemy_clock_ticks());
    std::thread::sleep(std::time::Duration::from_nanos(
        rest.saturating_mul(ns_per_tick),
    ));
}

/// The task sleeps (`rt_task_sleep_until`; call it on the task's own thread).
impl DelayNs for Task {
    fn delay_ns(&mut self, ns: u32) {
        delay(self, u64::from(ns));
    }
    fn delay_us(&mut self, us: u32) {
        delay(self, u64::from(us) * 1_000);
    }
    fn delay_ms(&mut self, ms: u32) {
        delay(self, u64::from(ms) * 1_000_000);
    }
}

/// The timer's task sleeps (`rt_task_sleep_until`); the periodic releases are left as they
/// are, so a delay between two waits does not move the grid.
impl<T: Borrow<Task>> DelayNs for PeriodicTimer<T> {
    fn delay_ns(&mut self, ns: u32) {
        delay(self.task(), u64::from(ns));
    }
    fn delay_us(&mut self, us: u32) {
        delay(self.task(), u64::from(us) * 1_000);
    }
    fn delay_ms(&mut self, ms: u32) {
        delay(self.task(), u64::from(ms) * 1_000_000);
    }
}
