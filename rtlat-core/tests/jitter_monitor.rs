//! The jitter monitor: LinuxCNC's interval jitter and lateness against the ideal schedule.

use core::num::NonZeroU64;
use rtlat_core::{DefaultHistogram, JitterMonitor, Tick};

const MS: u64 = 1_000_000;

fn monitor() -> JitterMonitor {
    JitterMonitor::new(NonZeroU64::new(MS).unwrap())
}

#[test]
fn first_tick_fixes_the_schedule() {
    let mut m = monitor();
    assert_eq!(
        m.tick(5 * MS),
        Tick {
            interval: None,
            jitter: None,
            lateness: None,
            overruns: 0
        }
    );
    let r = m.report();
    assert_eq!(
        (r.ticks, r.max_jitter_ns, r.min_interval_ns),
        (1, None, None)
    );
    // No deadline, no lateness: nothing recorded that would force `Min: 0`.
    assert_eq!((r.lateness.count(), r.last_lateness_ns), (0, None));
}

#[test]
fn interval_jitter_follows_linuxcnc() {
    let mut m = monitor();
    // Ticks at 0, 1.000 ms, 2.030 ms, 2.990 ms, 4.000 ms.
    let times = [0, MS, 2 * MS + 30_000, 3 * MS - 10_000, 4 * MS];
    let ticks: Vec<Tick> = times.iter().map(|&t| m.tick(t)).collect();
    let jitter: Vec<_> = ticks.iter().map(|t| t.jitter).collect();
    assert_eq!(
        jitter,
        vec![None, Some(0), Some(30_000), Some(-40_000), Some(10_000)]
    );
    let lateness: Vec<_> = ticks.iter().map(|t| t.lateness).collect();
    assert_eq!(
        lateness,
        vec![None, Some(0), Some(30_000), Some(-10_000), Some(0)],
        "against 0, 1, 2, 3, 4 ms"
    );
    let r = m.report();
    assert_eq!(r.min_interval_ns, Some(960_000));
    assert_eq!(r.max_interval_ns, Some(1_030_000));
    // max(max_interval - period, period - min_interval) = max(30 µs, 40 µs)
    assert_eq!(r.max_jitter_ns, Some(40_000));
    assert_eq!(r.lateness.max(), Some(30_000));
    assert_eq!(r.lateness.min(), Some(-10_000));
    assert_eq!(r.overruns, 0);
}

#[test]
fn missed_periods_are_counted_and_the_schedule_realigns() {
    let mut m = monitor();
    m.tick(0);
    // Next tick comes at 3.2 ms: deadlines 1 and 2 ms passed (2 overruns), lateness vs 3 ms.
    let t = m.tick(3 * MS + 200_000);
    assert_eq!(t.overruns, 2);
    assert_eq!(t.lateness, Some(200_000));
    assert_eq!(t.interval, Some(3_200_000));
    let t = m.tick(4 * MS);
    assert_eq!((t.overruns, t.lateness), (0, Some(0)));
    assert_eq!(m.report().overruns, 2);
    assert_eq!(m.report().max_jitter_ns, Some(2_200_000));
}

#[test]
fn tick_into_feeds_a_histogram() {
    let mut m = monitor();
    let mut h = DefaultHistogram::default();
    for k in 0..1000u64 {
        m.tick_into(k * MS + (k % 7) * 1_000, &mut h);
    }
    assert_eq!(h.count(), 999, "the first tick has no lateness");
    assert_eq!(h.max(), Some(6_000));
    assert_eq!(h.min(), Some(0));
}

#[test]
fn reset_starts_over() {
    let mut m = monitor();
    m.tick(0);
    m.tick(MS + 5);
    m.reset();
    assert_eq!(m, monitor());
}
