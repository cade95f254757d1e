//! The cycle engine against a simulated clock and timer: deterministic, no real sleeping.
//! The timer "wakes" each deadline plus a scripted delay, and the test checks exactly what
//! the engine recorded, skipped and reported.

use rtlat_core::{CycleConfig, CycleEngine, Error, Outcome, Record, Stats};
use std::cell::Cell;

use rtlat_core::sim;
use sim::{ScriptExhausted, SimClock, SimTimer};

/// Records every latency in order.
#[derive(Default)]
struct Log(Vec<i64>);
impl Record for Log {
    fn record(&mut self, value: i64) {
        self.0.push(value);
    }
}

fn engine<'a>(
    now: &'a Cell<u64>,
    rate_hz: u64,
    delays: Vec<i64>,
    config: CycleConfig,
) -> CycleEngine<SimClock<'a>, SimTimer<'a>> {
    let clock = SimClock { now, rate_hz };
    let timer = SimTimer {
        now,
        delays: delays.into_iter(),
        deadlines: Vec::new(),
    };
    CycleEngine::new(clock, timer, config).unwrap()
}

#[test]
fn latencies_are_wake_minus_deadline_signed() {
    let now = Cell::new(5_000);
    let config = CycleConfig {
        loops: Some(5),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, vec![10, 0, -3, 250, 999], config);
    let mut log = Log::default();
    assert_eq!(e.run(&mut log), Ok(None));
    assert_eq!(log.0, vec![10, 0, -3, 250, 999]);
    assert_eq!(e.cycles(), 5);
    assert_eq!(e.overruns(), 0);
    assert_eq!(e.max(), Some((999, 4)));
    assert_eq!(
        e.step(&mut log),
        Ok(Outcome::Done),
        "loop count reached: no more sleeping"
    );
}

#[test]
fn schedule_is_absolute_and_late_wakes_do_not_shift_it() {
    let now = Cell::new(0);
    let config = CycleConfig {
        loops: Some(4),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, vec![400, 900, 0, 5], config);
    e.run(&mut ()).unwrap();
    assert_eq!(timer_of(&mut e).deadlines, vec![1_000, 2_000, 3_000, 4_000]);
}

fn timer_of<'b, 'a>(e: &'b mut CycleEngine<SimClock<'a>, SimTimer<'a>>) -> &'b mut SimTimer<'a> {
    e.timer_mut()
}

#[test]
fn late_wakes_skip_missed_deadlines_and_count_them() {
    let now = Cell::new(0);
    let config = CycleConfig {
        loops: Some(5),
        ..CycleConfig::new(1_000)
    };
    // cycle 1 wakes exactly one interval late: the next deadline equals now and is kept.
    // cycle 2 wakes 1.5 intervals late: one deadline passed, skipped.
    // cycle 3 wakes 3 intervals + 1 late: three passed, skipped.
    let mut e = engine(&now, 1_000_000_000, vec![0, 1_000, 1_500, 3_001, 7], config);
    let mut log = Log::default();
    let mut overruns = Vec::new();
    let mut wakes = Vec::new();
    while let Outcome::Sample(s) = e.step(&mut log).unwrap() {
        overruns.push(s.overruns);
        wakes.push(s.wake_ticks);
    }
    assert_eq!(
        wakes,
        vec![1_000, 3_000, 4_500, 8_001, 9_007],
        "deadline + delay"
    );
    assert_eq!(log.0, vec![0, 1_000, 1_500, 3_001, 7]);
    assert_eq!(overruns, vec![0, 0, 1, 3, 0]);
    assert_eq!(e.overruns(), 4);
    assert_eq!(e.max(), Some((3_001, 3)));
    let deadlines = &timer_of(&mut e).deadlines;
    // 1000, 2000, 3000 (woke 4500: 4000 skipped), 5000 (woke 8001: 6000,7000,8000 skipped), 9000
    assert_eq!(deadlines, &vec![1_000, 2_000, 3_000, 5_000, 9_000]);
}

#[test]
fn break_threshold_stops_with_value_and_cycle() {
    let now = Cell::new(0);
    let config = CycleConfig {
        loops: Some(100),
        break_above_ns: Some(500),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, vec![10, 500, 20, 501, 30], config);
    let mut stats = Stats::new();
    let brk = e.run(&mut stats).unwrap().expect("break");
    assert_eq!((brk.cycle, brk.latency_ns), (3, 501));
    assert_eq!(
        stats.summary().count(),
        4,
        "the breaking sample is recorded too"
    );
    assert_eq!(stats.summary().max(), Some(501));
}

/// A loop that goes on past a break sees every latency above the threshold as a break,
/// whether or not it is a new maximum, and the maximum follows every value, above the
/// threshold or below it, negative ones included.
#[test]
fn every_step_above_the_threshold_breaks_and_the_maximum_follows_every_value() {
    let now = Cell::new(0);
    let delays = vec![-40, -7, 10, 500, 20, 900, 501, 700, 30, 901, 5];
    let config = CycleConfig {
        loops: Some(delays.len() as u64),
        break_above_ns: Some(500),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, delays.clone(), config);
    let mut outcomes = Vec::new();
    let mut maxima = Vec::new();
    loop {
        match e.step(&mut ()).unwrap() {
            Outcome::Sample(s) => outcomes.push((s.latency_ns, false)),
            Outcome::Break(s) => outcomes.push((s.latency_ns, true)),
            Outcome::Done => break,
        }
        maxima.push(e.max());
    }
    let expected: Vec<(i64, bool)> = delays.iter().map(|&d| (d, d > 500)).collect();
    assert_eq!(outcomes, expected);
    let mut running = Vec::new();
    for (cycle, &d) in delays.iter().enumerate() {
        let best = running
            .last()
            .copied()
            .filter(|&(m, _): &(i64, u64)| m >= d);
        running.push(best.unwrap_or((d, cycle as u64)));
    }
    assert_eq!(maxima, running.into_iter().map(Some).collect::<Vec<_>>());
}

#[test]
fn ticks_are_converted_to_nanoseconds() {
    // A 19.2 MHz generic timer: 1 tick = 52.083 ns; a 100 µs interval is 1920 ticks.
    let now = Cell::new(1 << 40);
    let config = CycleConfig {
        loops: Some(3),
        ..CycleConfig::new(100_000)
    };
    let mut e = engine(&now, 19_200_000, vec![0, 1, 192], config);
    assert_eq!(e.interval_ticks(), 1_920);
    let mut log = Log::default();
    e.run(&mut log).unwrap();
    assert_eq!(log.0, vec![0, 52, 10_000]);
}

#[test]
fn backend_errors_come_out_typed() {
    let now = Cell::new(0);
    let mut e = engine(&now, 1_000_000_000, vec![1], CycleConfig::new(1_000));
    assert!(matches!(e.step(&mut ()), Ok(Outcome::Sample(_))));
    assert_eq!(e.step(&mut ()), Err(Error::Timer(ScriptExhausted)));
}

#[test]
fn bad_configuration_is_refused() {
    let now = Cell::new(0);
    let clock = SimClock {
        now: &now,
        rate_hz: 1_000_000_000,
    };
    let timer = SimTimer {
        now: &now,
        delays: vec![].into_iter(),
        deadlines: vec![],
    };
    assert_eq!(
        CycleEngine::new(clock, timer, CycleConfig::new(0)).err(),
        Some(Error::ZeroInterval("interval"))
    );
    let clock = SimClock {
        now: &now,
        rate_hz: 1_000,
    };
    let timer = SimTimer {
        now: &now,
        delays: vec![].into_iter(),
        deadlines: vec![],
    };
    assert_eq!(
        CycleEngine::new(clock, timer, CycleConfig::new(100)).err(),
        Some(Error::ZeroInterval("interval in clock ticks")),
        "100 ns is less than one tick of a 1 kHz clock"
    );
}

#[test]
fn aligned_start_uses_the_given_first_deadline() {
    let now = Cell::new(123);
    let config = CycleConfig {
        loops: Some(2),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, vec![0, 0], config);
    e.start_at(10_000);
    e.run(&mut ()).unwrap();
    assert_eq!(timer_of(&mut e).deadlines, vec![10_000, 11_000]);
}

#[test]
fn step_started_follows_the_fixed_start_and_step_starts_only_when_there_is_a_cycle() {
    let now = Cell::new(0);
    let config = CycleConfig {
        loops: Some(2),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, vec![5, 7], config);
    e.start_at(3_000);
    let mut log = Log::default();
    assert!(matches!(e.step_started(&mut log), Ok(Outcome::Sample(_))));
    assert!(matches!(e.step_started(&mut log), Ok(Outcome::Sample(_))));
    assert_eq!(e.step_started(&mut log), Ok(Outcome::Done));
    assert_eq!(log.0, vec![5, 7]);
    assert_eq!(e.timer_mut().deadlines, [3_000, 4_000]);

    // No cycle to measure: `step` leaves the engine unstarted.
    let config = CycleConfig {
        loops: Some(0),
        ..CycleConfig::new(1_000)
    };
    let mut e = engine(&now, 1_000_000_000, vec![], config);
    assert_eq!(e.step(&mut log), Ok(Outcome::Done));
    assert_eq!(e.next_deadline(), None);
}
