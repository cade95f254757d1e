//! The 32-bit shared monitor measures exactly what the 64-bit monitor measures, across the
//! counter's wraps, readers never see a torn snapshot, and the integer report lines equal
//! the ones built from a report.

use core::num::NonZeroU64;
use proptest::prelude::*;
use rtlat_core::jitter::SharedJitterMonitor32;
use rtlat_core::report::{CyclictestLine, JitterLine};
use rtlat_core::{JitterMonitor, JitterSnapshot};
use std::sync::atomic::{AtomicBool, Ordering};

const P: u32 = 1_000;

/// What a loop does next.
#[derive(Debug, Clone)]
enum Step {
    /// Its deadline moves on by `step` (from the latest deadline, the monitor's own included);
    /// it runs `late` after it (never before the previous tick): `tick_at`.
    At {
        step: u32,
        late: i32,
    },
    /// `tick` after `after` ticks of time.
    Own {
        after: u32,
    },
    Restart,
    /// A window ends.
    Reset,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..3 * P, -(P as i32) / 2..3 * P as i32).prop_map(|(step, late)| Step::At { step, late }),
        // Stalls: many periods late (a loop that catches up or skips after).
        2 => (0..3 * P, 0..40 * P as i32).prop_map(|(step, late)| Step::At { step, late }),
        // Long gaps that carry the 32-bit counter over its wrap.
        1 => (1u32 << 28..1u32 << 31, 0..2 * P as i32).prop_map(|(step, late)| Step::At { step, late }),
        2 => (0..5 * P).prop_map(|after| Step::Own { after }),
        1 => Just(Step::Restart),
        1 => Just(Step::Reset),
    ]
}

/// Runs `steps` on both monitors (times from `start`, the 32-bit one given their low 32
/// bits), comparing every tick's lateness, every window and the final figures.
fn replay(start: u64, steps: &[Step]) {
    let wide_period = NonZeroU64::new(u64::from(P)).unwrap();
    let mut wide = JitterMonitor::new(wide_period);
    let narrow: SharedJitterMonitor32<P> = SharedJitterMonitor32::new();
    let (mut now, mut deadline) = (start, start);
    for step in steps {
        match *step {
            Step::At { step, late } => {
                deadline += u64::from(step);
                now = now.max(deadline.wrapping_add_signed(i64::from(late)));
                let expected = wide.tick_at(now, deadline).lateness;
                let got = narrow.tick_at(now as u32, deadline as u32);
                assert_eq!(Some(i64::from(got)), expected, "{step:?}");
            }
            Step::Own { after } => {
                now += u64::from(after);
                let expected = wide.tick(now).lateness;
                assert_eq!(narrow.tick(now as u32).map(i64::from), expected);
                // Deadlines move forward, as a loop's do: the next `tick_at`'s from this one.
                let own = now.wrapping_add_signed(-expected.unwrap_or(0));
                deadline = deadline.max(own);
            }
            Step::Restart => {
                wide.restart();
                narrow.restart();
            }
            Step::Reset => {
                let expected = wide.snapshot();
                wide.report_and_reset();
                assert_eq!(narrow.snapshot_and_reset(), expected);
            }
        }
        assert_eq!(narrow.snapshot(), wide.snapshot(), "after {step:?}");
    }
    let snapshot = narrow.snapshot();
    let report = snapshot.report();
    assert_eq!(
        CyclictestLine::from_snapshot(3, &snapshot).to_string(),
        CyclictestLine::from_jitter(3, &report).to_string()
    );
    assert_eq!(
        JitterLine::from_snapshot(3, &snapshot).to_string(),
        JitterLine::from_report(3, &report).to_string()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn same_figures_as_the_64_bit_monitor(
        start in prop_oneof![Just(u64::from(P)), Just(u64::from(u32::MAX) - 5_000), u64::from(P)..1 << 40],
        steps in prop::collection::vec(step(), 1..120),
    ) {
        replay(start, &steps);
    }
}

#[test]
fn overruns_counted_long_ago_are_not_charged_after_the_counter_wrapped() {
    // A stall counts deadlines up to d + 5P; then the loop runs on for more than 2^32 ticks,
    // and stalls again with those same 32-bit values inside its late window: all counted.
    let d = 10_000u64;
    let mut steps = vec![
        Step::At { step: 0, late: 0 },
        Step::At {
            step: u64::from(P) as u32,
            late: 5 * P as i32 + 300,
        },
    ];
    // Catch up, then move on by about 2^32 ticks in steps below 2^31.
    steps.extend((0..6).map(|_| Step::At { step: P, late: 10 }));
    steps.extend((0..2).map(|_| Step::At {
        step: 1 << 30,
        late: 10,
    }));
    steps.extend((0..2).map(|_| Step::At {
        step: (1 << 30) - 3 * P,
        late: 10,
    }));
    steps.push(Step::At {
        step: P,
        late: 9 * P as i32,
    });
    replay(d, &steps);
    let narrow: SharedJitterMonitor32<P> = SharedJitterMonitor32::new();
    let mut wide = JitterMonitor::new(NonZeroU64::new(u64::from(P)).unwrap());
    let (mut now, mut deadline) = (d, d);
    for step in &steps {
        if let Step::At { step, late } = *step {
            deadline += u64::from(step);
            now = now.max(deadline.wrapping_add_signed(i64::from(late)));
            wide.tick_at(now, deadline);
            narrow.tick_at(now as u32, deadline as u32);
        }
    }
    assert!(now - d > 1 << 32, "the run spans a wrap");
    assert_eq!(narrow.snapshot().overruns, 5 + 8);
    assert_eq!(narrow.snapshot(), wide.snapshot());
}

#[test]
fn readers_never_see_a_torn_snapshot() {
    // Tick k at k·(P + 1) (wrapping at 2^32), k ticks late: a window of ticks a..b has
    // lateness min a, max and last b − 1, sum (a + b − 1)(b − a)/2, intervals P + 1; a
    // snapshot mixing two ticks' stores breaks one of these, and windows tile the run.
    const TICKS: u32 = 200_000;
    // A long period: the growing lateness never overruns.
    static SERVO: SharedJitterMonitor32<{ 1 << 30 }> = SharedJitterMonitor32::new();
    static DONE: AtomicBool = AtomicBool::new(false);
    let start = u32::MAX - 50 * (P + 1);
    let writer = std::thread::spawn(move || {
        for k in 0..TICKS {
            let now = start.wrapping_add(k.wrapping_mul(P + 1));
            SERVO.tick_at(now, now.wrapping_sub(k));
        }
        DONE.store(true, Ordering::Release);
    });
    let check = |s: &JitterSnapshot| {
        let Some((min, max)) = s.lateness else {
            assert_eq!((s.ticks, s.lateness_count, s.interval), (0, 0, None));
            return 0;
        };
        let (a, last) = (min as u64, max as u64);
        assert_eq!(s.lateness_count, s.ticks, "{s:?}");
        assert_eq!(last - a + 1, s.ticks, "{s:?}");
        assert_eq!(s.last_lateness, Some(max), "{s:?}");
        assert_eq!(s.lateness_sum as u64, (a + last) * s.ticks / 2, "{s:?}");
        if a > 0 || s.ticks > 1 {
            assert_eq!(
                s.interval,
                Some((u64::from(P + 1), u64::from(P + 1))),
                "{s:?}"
            );
        }
        assert_eq!(s.overruns, 0);
        s.ticks
    };
    let reader = std::thread::spawn(move || {
        let mut windows = 0u64;
        while !DONE.load(Ordering::Acquire) {
            check(&SERVO.snapshot());
            windows += check(&SERVO.snapshot_and_reset());
        }
        windows
    });
    writer.join().unwrap();
    let counted = reader.join().unwrap() + check(&SERVO.snapshot_and_reset());
    assert_eq!(
        counted,
        u64::from(TICKS),
        "every tick in exactly one window"
    );
}

#[test]
fn what_a_tick_records_is_read_with_its_figures() {
    // The recorder runs inside the tick's sequence: `read` sees it and the tick count together.
    const TICKS: u32 = 100_000;
    static SERVO: SharedJitterMonitor32<P> = SharedJitterMonitor32::new();
    static RECORDED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static DONE: AtomicBool = AtomicBool::new(false);
    let writer = std::thread::spawn(|| {
        for k in 0..TICKS {
            SERVO.tick_at_with(k * P, k * P, |_| {
                RECORDED.store(RECORDED.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            });
        }
        DONE.store(true, Ordering::Release);
    });
    let read = || SERVO.read(|| (SERVO.snapshot().ticks, RECORDED.load(Ordering::Relaxed)));
    while !DONE.load(Ordering::Acquire) {
        let (ticks, recorded) = read();
        assert_eq!(ticks, recorded);
    }
    writer.join().unwrap();
    assert_eq!(read(), (u64::from(TICKS), u64::from(TICKS)));
}
