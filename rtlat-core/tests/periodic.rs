//! LinuxCNC's periodic schedule (the cycle engine's back-to-back policy) against a simulated clock and timer: deterministic, no real
//! sleeping. The timer "wakes" each deadline plus a scripted delay; a scripted delay can also
//! hold the thread up after a run, and the test checks which deadlines were slept to, which
//! ran at once, and what was counted.

use rtlat_core::{CycleConfig, Error, Periodic, Run};
use std::cell::Cell;

use rtlat_core::sim;
use sim::{ScriptExhausted, SimClock, SimTimer};

fn schedule<'a>(
    now: &'a Cell<u64>,
    delays: Vec<i64>,
    period_ns: u64,
) -> Periodic<SimClock<'a>, SimTimer<'a>> {
    let clock = SimClock {
        now,
        rate_hz: 1_000_000_000,
    };
    let timer = SimTimer {
        now,
        delays: delays.into_iter(),
        deadlines: Vec::new(),
    };
    Periodic::with_policy(clock, timer, CycleConfig::new(period_ns)).unwrap()
}

#[test]
fn on_time_runs_sleep_to_every_deadline() {
    let now = Cell::new(5_000);
    let mut p = schedule(&now, vec![10, 0, 3], 1_000);
    let runs: Vec<Run> = (0..3).map(|_| p.wait().unwrap()).collect();
    assert_eq!(p.timer_mut().deadlines, vec![6_000, 7_000, 8_000]);
    assert_eq!(
        runs.iter().map(|r| r.lateness_ns).collect::<Vec<_>>(),
        vec![10, 0, 3]
    );
    assert_eq!(runs[2].index, 2);
    assert_eq!(runs[2].start_ticks, 8_003);
    assert!(runs.iter().all(|r| !r.overrun));
    assert_eq!((p.cycles(), p.overruns()), (3, 0));
    assert_eq!(p.next_deadline(), Some(9_000));
}

#[test]
fn a_held_up_thread_runs_every_missed_period_back_to_back() {
    let now = Cell::new(0);
    // Run 0 wakes 3.5 periods late (a stall): deadlines 2000, 3000 and 4000 have passed.
    let mut p = schedule(&now, vec![3_500, 0], 1_000);
    p.start_at(1_000);
    let first = p.wait().unwrap();
    assert_eq!((first.deadline_ticks, first.lateness_ns), (1_000, 3_500));
    assert!(!first.overrun, "it slept: the stall came during the sleep");
    // The thread takes 100 ticks per run; each missed deadline runs at once, none skipped.
    let mut caught_up = Vec::new();
    for _ in 0..3 {
        now.set(now.get() + 100);
        caught_up.push(p.wait().unwrap());
    }
    assert_eq!(
        caught_up
            .iter()
            .map(|r| (r.deadline_ticks, r.start_ticks, r.overrun))
            .collect::<Vec<_>>(),
        vec![
            (2_000, 4_600, true),
            (3_000, 4_700, true),
            (4_000, 4_800, true)
        ]
    );
    assert_eq!(
        caught_up.iter().map(|r| r.lateness_ns).collect::<Vec<_>>(),
        vec![2_600, 1_700, 800]
    );
    assert_eq!(
        p.timer_mut().deadlines,
        vec![1_000],
        "no sleep while behind"
    );
    // Caught up: the next deadline is in the future again and is slept to.
    now.set(now.get() + 100);
    let on_time = p.wait().unwrap();
    assert_eq!((on_time.deadline_ticks, on_time.overrun), (5_000, false));
    assert_eq!(p.timer_mut().deadlines, vec![1_000, 5_000]);
    // One run per period, and the runs' starts add up to (runs − 1) periods plus the
    // difference between the last and the first lateness.
    assert_eq!((p.cycles(), p.overruns()), (5, 3));
    let span = (on_time.start_ticks - first.start_ticks) as i64;
    assert_eq!(span - 4 * 1_000, on_time.lateness_ns - first.lateness_ns);
}

#[test]
fn a_deadline_reached_exactly_is_deadlines_not_an_overrun() {
    // LinuxCNC skips the sleep only when the deadline is strictly in the past.
    let now = Cell::new(0);
    let mut p = schedule(&now, vec![1_000, 0], 1_000);
    p.start_at(1_000);
    p.wait().unwrap();
    assert_eq!(now.get(), 2_000);
    let run = p.wait().unwrap();
    assert!(!run.overrun);
    assert_eq!(p.timer_mut().deadlines, vec![1_000, 2_000]);
}

#[test]
fn the_first_deadline_is_one_period_from_the_start() {
    let now = Cell::new(42);
    let mut p = schedule(&now, vec![0], 250);
    let run = p.wait().unwrap();
    assert_eq!(run.deadline_ticks, 292);
    assert_eq!(run.index, 0);
}

#[test]
fn other_clock_rates_convert_lateness_to_nanoseconds() {
    let now = Cell::new(0);
    let clock = SimClock {
        now: &now,
        rate_hz: 19_200_000,
    };
    let timer = SimTimer {
        now: &now,
        delays: vec![192].into_iter(),
        deadlines: Vec::new(),
    };
    let mut p = Periodic::with_policy(clock, timer, CycleConfig::new(1_000_000)).unwrap();
    assert_eq!(p.interval_ticks(), 19_200);
    assert_eq!(p.wait().unwrap().lateness_ns, 10_000);
}

#[test]
fn zero_periods_are_refused() {
    let now = Cell::new(0);
    let clock = |rate_hz| SimClock { now: &now, rate_hz };
    let timer = || SimTimer {
        now: &now,
        delays: Vec::new().into_iter(),
        deadlines: Vec::new(),
    };
    assert!(matches!(
        Periodic::with_policy(clock(1_000_000_000), timer(), CycleConfig::new(0)),
        Err(Error::ZeroInterval(_))
    ));
    // 10 ns at 1 MHz is less than a tick.
    assert!(matches!(
        Periodic::with_policy(clock(1_000_000), timer(), CycleConfig::new(10)),
        Err(Error::ZeroInterval(_))
    ));
    // A failing timer's error comes out as such.
    let mut p =
        Periodic::with_policy(clock(1_000_000_000), timer(), CycleConfig::new(1_000)).unwrap();
    assert_eq!(p.wait(), Err(Error::Timer(ScriptExhausted)));
}
