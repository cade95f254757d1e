//! Tasks and their periodic timers as embedded-hal 1.0 `DelayNs`, timed by rtlat-core's
//! `DelayProbe` on the Alchemy clock, against the real Xenomai (Mercury here): every delay
//! lasts at least what was asked for, through each of the three methods, and a delay
//! between two periodic waits leaves the period's grid where it was. Structure and bounds
//! only, never how late: the VM is shared.

use embedded_hal::delay::DelayNs;
use rtlat_core::delay::{DelayProbe, DelayRequest};
use rtlat_core::{Summary, Timer};
use rtlat_xenomai_ffi::{AlchemyClock, Error, Task};

/// The three methods, each with a time a Mercury task sleeps reliably.
const REQUESTS: [DelayRequest; 3] = [
    DelayRequest::Ns(50_000),
    DelayRequest::Us(200),
    DelayRequest::Ms(1),
];

/// Delays per request.
const DELAYS: u64 = 20;

/// Each request's overshoots (ns) through `delay`.
fn probe<D: DelayNs>(delay: &mut D) -> Result<Vec<(DelayRequest, Summary)>, Error> {
    let mut probe = DelayProbe::new(AlchemyClock::new()?).expect("the Alchemy clock's rate");
    Ok(REQUESTS
        .iter()
        .map(|&request| {
            let mut summary = Summary::new();
            let Ok(()) = probe.measure(delay, request, DELAYS, &mut summary);
            (request, summary)
        })
        .collect())
}

/// Runs `f` on a fresh thread made an Alchemy task (SCHED_FIFO 80), as rtlat's measuring
/// threads are (`Task::shadow`), and returns its result.
fn on_shadowed_task<T: Send + 'static>(
    name: &'static str,
    f: impl FnOnce(Task) -> Result<T, Error> + Send + 'static,
) -> T {
    std::thread::spawn(move || f(Task::shadow(name, 80, None)?))
        .join()
        .expect("the task's thread")
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn never_short(what: &str, results: &[(DelayRequest, Summary)]) {
    assert_eq!(results.len(), REQUESTS.len());
    for (request, summary) in results {
        assert_eq!(summary.count(), DELAYS, "{what} {request:?}");
        let min = summary.min().expect("delays were timed");
        assert!(
            min >= 0,
            "{what} {request:?}: a delay returned {} ns before the time asked for",
            -min
        );
    }
}

/// `Task`'s `delay_ns`, `delay_us` and `delay_ms` (`rt_task_sleep_until`).
pub fn a_task_delay_is_never_short() {
    let results = on_shadowed_task("rtlat-delay", |mut task| probe(&mut task));
    never_short("Task", &results);
}

/// A `PeriodicTimer`'s delays between its waits: never short, and the waits after them still
/// return at or after the grid's deadlines (the delay does not move the period).
pub fn a_periodic_timers_delay_leaves_the_grid() {
    let (results, early) = on_shadowed_task("rtlat-delay-grid", |task| {
        let clock = AlchemyClock::new()?;
        let period = 2_000_000;
        let mut timer = task.periodic_timer(period)?;
        let start = clock.ticks() + 2 * period;
        let mut early = 0u32;
        let mut results = Vec::new();
        for k in 0..4u64 {
            let deadline = start + k * 40 * period;
            timer.sleep_until(deadline)?;
            early += u32::from(clock.ticks() < deadline);
            // Between two waits: the three requests, 20 each (about 25 ms in all, well
            // within the 40 periods to the next deadline).
            results.push(probe(&mut timer)?);
        }
        Ok((results, early))
    });
    assert_eq!(early, 0, "a periodic wait returned before its deadline");
    for round in &results {
        never_short("PeriodicTimer", round);
    }
}
