//! A task's periodic Alchemy timer (`rt_task_set_periodic` / `rt_task_wait_period`) as an
//! [`rtlat_core::Timer`].
//!
//! # Deadlines and releases
//!
//! The cycle engine asks for deadlines `start + k·interval`; Xenomai releases the task at
//! `idate + j·period`. The timer makes the two grids one: the first
//! [`sleep_until`](rtlat_core::Timer::sleep_until) sets `idate` to the deadline it is given
//! (the engine's first deadline), and the period is the engine's interval. From then on each
//! `sleep_until(deadline)` waits with `rt_task_wait_period` until the release at or after
//! `deadline`:
//!
//! - the usual case, `deadline` is the next release: one wait;
//! - the engine skipped deadlines after a late wake-up: the waits for the releases before
//!   `deadline` return at once (they are past), then one sleeps;
//! - `deadline` was already released (the last wait returned at or after it): no wait;
//! - Xenomai missed releases (`-ETIMEDOUT`): the wait returns at once with the count, the
//!   timer adds it to its overruns and moves its idea of the next release past them.
//!
//! Deadlines off the grid are waited for until the first release at or after them (never
//! earlier): the latency the engine then measures includes the distance to that release.
//! On Cobalt a first deadline already past when the timer starts moves the start to the
//! next point of the grid that is still ahead (Cobalt refuses a past `idate`).
//!
//! # Overruns
//!
//! [`take_overruns`](PeriodicTimer::take_overruns) returns the releases Xenomai reported
//! missed since the last call: the figure Xenomai's `latency` prints as overruns. The engine's
//! own count ([`rtlat_core::CycleEngine::overruns`]) counts, from its clock reads, every
//! deadline a late wake-up passed; Xenomai's count covers some of the same releases, later
//! or not at all (on Mercury it is the POSIX timer's overrun count; see the README), so the
//! two are reported side by side, not added.

use core::borrow::Borrow;
use core::ffi::c_ulong;

use crate::{Error, Task, call};

/// The periodic timer of the calling task, holding the task (`T` = [`Task`], from
/// [`Task::into_periodic_timer`]) or borrowing it (`T` = `&Task`, from
/// [`Task::periodic_timer`]). Lives on the task's thread and stops the task's timer when
/// dropped.
#[derive(Debug)]
pub struct PeriodicTimer<T: Borrow<Task> = Task> {
    task: T,
    /// Period in Alchemy clock ticks.
    period: u64,
    /// Set once the first `sleep_until` programmed the timer.
    started: bool,
    /// The release the next wait returns at, at the earliest.
    next_release: u64,
    /// The release the last wait returned at (meaningful once `released`).
    last_release: u64,
    released: bool,
    /// Releases Xenomai reported missed, not yet taken.
    overruns: u64,
    /// All releases Xenomai reported missed.
    overruns_total: u64,
}

impl<T: Borrow<Task>> PeriodicTimer<T> {
    /// A timer of `period_ns` for `task`; it starts at the first deadline given to
    /// [`sleep_until`](rtlat_core::Timer::sleep_until).
    pub fn new(task: T, period_ns: u64) -> Result<Self, Error> {
        let ns_per_tick = call::timer_inquire().period.max(1);
        let period = period_ns / ns_per_tick;
        if period == 0 {
            return Err(Error::call("rt_task_set_periodic", -libc::EINVAL));
        }
        Ok(PeriodicTimer {
            task,
            period,
            started: false,
            next_release: 0,
            last_release: 0,
            released: false,
            overruns: 0,
            overruns_total: 0,
        })
    }

    /// The task whose timer this is.
    pub fn task(&self) -> &Task {
        self.task.borrow()
    }

    /// The period in clock ticks.
    pub fn period_ticks(&self) -> u64 {
        self.period
    }

    /// Releases Xenomai reported missed (`-ETIMEDOUT` from `rt_task_wait_period`) since the
    /// last call; resets the count.
    pub fn take_overruns(&mut self) -> u64 {
        core::mem::take(&mut self.overruns)
    }

    /// Every release Xenomai reported missed since the timer started.
    pub fn overruns_total(&self) -> u64 {
        self.overruns_total
    }

    /// Programs the task's timer: first release at `first` (moved ahead on the grid while
    /// Cobalt says it is past), then every period.
    fn start(&mut self, first: u64) -> Result<(), Error> {
        let mut idate = first;
        // A few tries: each moves the start ahead of the clock, so only a task preempted
        // between the clock read and the call every time runs out of them.
        let mut tries = 0;
        loop {
            match call::set_own_periodic(idate, self.period) {
                0 => break,
                ret if ret == -libc::ETIMEDOUT && tries < 100 => {
                    tries += 1;
                    let now = call::alchemy_clock_ticks();
                    let behind = now.saturating_sub(idate) / self.period + 1;
                    idate = idate.saturating_add(behind.saturating_mul(self.period));
                }
                ret => return Err(Error::call("rt_task_set_periodic", ret)),
            }
        }
        self.started = true;
        self.next_release = idate;
        Ok(())
    }

    /// One `rt_task_wait_period`: the release it returned at.
    #[inline(always)]
    fn wait_one(&mut self) -> Result<u64, Error> {
        // Zeroed before each call: Xenomai writes it on success and on -ETIMEDOUT only.
        let mut missed: c_ulong = 0;
        let ret = call::wait_period(&mut missed);
        let missed = if ret == 0 {
            0
        } else if ret == -libc::ETIMEDOUT {
            self.note_overruns(missed as u64)
        } else {
            return Err(Error::call("rt_task_wait_period", ret));
        };
        let release = self
            .next_release
            .saturating_add(missed.saturating_mul(self.period));
        self.next_release = release.saturating_add(self.period);
        self.last_release = release;
        self.released = true;
        Ok(release)
    }

    #[cold]
    fn note_overruns(&mut self, missed: u64) -> u64 {
        self.overruns += missed;
        self.overruns_total += missed;
        missed
    }
}

impl<T: Borrow<Task>> rtlat_core::Timer for PeriodicTimer<T> {
    type Error = Error;

    /// Waits for the release at or after `deadline` (ticks); see the module docs.
    #[inline]
    fn sleep_until(&mut self, deadline: u64) -> Result<(), Error> {
        if !self.started {
            self.start(deadline)?;
        }
        // Released already: the last wait returned at or after `deadline`.
        if self.released && self.last_release >= deadline {
            return Ok(());
        }
        loop {
            if self.wait_one()? >= deadline {
                return Ok(());
            }
        }
    }
}

impl<T: Borrow<Task>> Drop for PeriodicTimer<T> {
    fn drop(&mut self) {
        if self.started {
            // Stops the task's timer (TM_INFINITE period); nothing to do if that fails.
            let _ = call::set_own_periodic(crate::sys::TM_NOW, crate::sys::TM_INFINITE);
        }
    }
}
