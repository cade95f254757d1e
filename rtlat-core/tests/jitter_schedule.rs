//! The monitor against loops that stall for ten periods, replayed tick by tick with exact
//! figures: one that catches up (missed periods run back to back, as LinuxCNC and a hardware
//! timer do, and as rtlat-examples' servo_monitor does) and one that skips them (as cyclictest
//! does).
//!
//! Before `tick_at`, the monitor's own schedule skipped the ten periods while the loop ran
//! them: it then saw every later tick ten periods early, for the rest of the run (the
//! shipped example printed `lateness p50 -9894250 ns`; replayed here, `tick` gives a
//! minimum of −10 ms and a mean of −4.7 ms, where the loop was never early).

use core::num::NonZeroU64;
use rtlat_core::{JitterMonitor, JitterReport, Summary, TickScale};

const P: u64 = 1_000_000;

fn monitor() -> JitterMonitor {
    JitterMonitor::new(NonZeroU64::new(P).unwrap())
}

/// Deadline `k` of the loop: 1 ms + k ms.
fn d(k: u64) -> u64 {
    P + k * P
}

/// (start, deadline) of each run of a 1 ms loop that starts 50 µs late, except run 5,
/// which starts 10 periods + 80 µs late; the ten runs it owes then run back to back, 1 µs
/// apart, the last one 90 µs late, and run 16 sleeps to its deadline again.
fn catching_up() -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = (0..5).map(|k| (d(k) + 50_000, d(k))).collect();
    let stalled = d(5) + 10 * P + 80_000;
    runs.extend((5..16).map(|k| (stalled + (k - 5) * 1_000, d(k))));
    runs.extend((16..20).map(|k| (d(k) + 50_000, d(k))));
    runs
}

/// The same stall in a loop that skips the ten deadlines it passed: after run 5 comes the
/// run of deadline 16.
fn skipping() -> Vec<(u64, u64)> {
    let mut runs: Vec<(u64, u64)> = (0..5).map(|k| (d(k) + 50_000, d(k))).collect();
    runs.push((d(5) + 10 * P + 80_000, d(5)));
    runs.extend((16..20).map(|k| (d(k) + 50_000, d(k))));
    runs
}

fn summary(values: &[i64]) -> Summary {
    let mut s = Summary::new();
    values.iter().for_each(|&v| s.record_n(v, 1));
    s
}

#[test]
fn tick_at_follows_a_loop_that_catches_up() {
    let mut m = monitor();
    let ticks: Vec<_> = catching_up()
        .into_iter()
        .map(|(now, deadline)| m.tick_at(now, deadline))
        .collect();
    // Every run 50 µs late but the stalled one and the ten it owed, late by what they waited.
    let mut lateness = vec![50_000; 5];
    lateness.extend((5..16).map(|k| (15 - k) * P as i64 + 80_000 + (k - 5) * 1_000));
    lateness.extend([50_000; 4]);
    assert_eq!(lateness[5], 10_080_000);
    assert_eq!(lateness[15], 90_000);
    let seen: Vec<i64> = ticks.iter().map(|t| t.lateness.unwrap()).collect();
    assert_eq!(seen, lateness);
    // The ten deadlines passed during the stall are charged once, to the stalled run.
    let overruns: Vec<u64> = ticks.iter().map(|t| t.overruns).collect();
    assert_eq!(overruns, [[0; 5].as_slice(), &[10], &[0; 14]].concat());
    assert_eq!(
        m.report(),
        JitterReport {
            period_ns: P,
            ticks: 20,
            min_interval_ns: Some(1_000),
            max_interval_ns: Some(11 * P + 30_000),
            max_jitter_ns: Some(10 * P + 30_000),
            lateness: summary(&lateness),
            last_lateness_ns: Some(50_000),
            overruns: 10,
        }
    );
    let r = m.report().lateness;
    assert_eq!(
        (r.min(), r.max(), r.sum()),
        (Some(50_000), Some(10_080_000), 56_385_000)
    );
}

#[test]
fn tick_at_follows_a_loop_that_skips() {
    let mut m = monitor();
    let ticks: Vec<_> = skipping()
        .into_iter()
        .map(|(now, deadline)| m.tick_at(now, deadline))
        .collect();
    assert_eq!(ticks[5].overruns, 10);
    assert_eq!(ticks[6].interval, Some(P - 30_000));
    let r = m.report();
    assert_eq!((r.ticks, r.overruns), (10, 10));
    assert_eq!(
        (r.min_interval_ns, r.max_interval_ns),
        (Some(P - 30_000), Some(11 * P + 30_000))
    );
    assert_eq!(r.max_jitter_ns, Some(10 * P + 30_000));
    let l = r.lateness;
    assert_eq!(
        (l.count(), l.min(), l.max(), l.sum()),
        (10, Some(50_000), Some(10_080_000), 10_530_000)
    );
}

#[test]
fn tick_follows_a_loop_that_skips_from_its_first_tick() {
    // No deadline: the schedule is the first tick's time (50 µs late) plus k periods, so
    // lateness is relative to the first tick, which has none.
    let mut m = monitor();
    let ticks: Vec<_> = skipping().into_iter().map(|(now, _)| m.tick(now)).collect();
    assert_eq!(ticks[0].lateness, None);
    assert_eq!((ticks[5].lateness, ticks[5].overruns), (Some(30_000), 10));
    assert_eq!(ticks[6].lateness, Some(0));
    let r = m.report();
    assert_eq!((r.ticks, r.overruns), (10, 10));
    let l = r.lateness;
    assert_eq!(
        (l.count(), l.min(), l.max(), l.sum()),
        (9, Some(0), Some(30_000), 30_000)
    );
    assert_eq!(r.max_jitter_ns, Some(10 * P + 30_000));
}

#[test]
fn tick_cannot_follow_a_loop_that_catches_up() {
    // The documented limit of `tick` (and the bug `tick_at` fixes): its schedule skipped the
    // ten periods the loop then ran, so from then on every tick looks ten periods early.
    let mut m = monitor();
    for (now, _) in catching_up() {
        m.tick(now);
    }
    let r = m.report();
    assert_eq!(r.lateness.min(), Some(-10 * P as i64));
    assert_eq!(r.last_lateness_ns, Some(-10 * P as i64));
    assert_eq!(r.overruns, 10);
}

#[test]
fn first_tick_at_has_its_lateness() {
    let mut m = monitor();
    let t = m.tick_at(d(0) + 7_000, d(0));
    assert_eq!(
        (t.interval, t.jitter, t.lateness, t.overruns),
        (None, None, Some(7_000), 0)
    );
    let r = m.report();
    assert_eq!(
        (r.ticks, r.lateness.count(), r.lateness.min()),
        (1, 1, Some(7_000))
    );
    assert_eq!(r.max_jitter_ns, None);
}

#[test]
fn an_early_tick_is_negative() {
    let mut m = monitor();
    m.tick_at(d(0) - 2_500, d(0));
    m.tick_at(d(1) + 1_000, d(1));
    let r = m.report();
    assert_eq!(
        (r.lateness.min(), r.lateness.max()),
        (Some(-2_500), Some(1_000))
    );
    assert_eq!(r.lateness.mean_truncated(), Some(-750));
}

#[test]
fn ticks_in_ns_out() {
    // A 25 MHz counter (40 ns a tick), period 25 000 ticks = 1 ms, the catching-up replay.
    let scale = TickScale::from_hz(NonZeroU64::new(25_000_000).unwrap());
    let mut m = JitterMonitor::with_scale(NonZeroU64::new(25_000).unwrap(), scale);
    for (now, deadline) in catching_up() {
        m.tick_at(now / 40, deadline / 40);
    }
    let mut ns = monitor();
    for (now, deadline) in catching_up() {
        ns.tick_at(now, deadline);
    }
    // Every figure here is a whole number of 40 ns ticks, so both agree exactly.
    assert_eq!(m.report(), ns.report());
    assert_eq!(m.period_ns(), P);
    let s = m.snapshot();
    assert_eq!(
        (s.period, s.lateness, s.overruns),
        (25_000, Some((1_250, 252_000)), 10)
    );
    assert_eq!(s.max_jitter(), Some(250_750));
}

#[test]
fn report_and_reset_keeps_the_schedule() {
    let mut m = monitor();
    let runs = catching_up();
    for &(now, deadline) in &runs[..6] {
        m.tick_at(now, deadline);
    }
    let first = m.report_and_reset();
    for &(now, deadline) in &runs[6..] {
        m.tick_at(now, deadline);
    }
    let second = m.report();
    assert_eq!((first.ticks, second.ticks), (6, 14));
    assert_eq!((first.overruns, second.overruns), (10, 0));
    // The second window's first interval is measured from the first window's last tick.
    assert_eq!(second.min_interval_ns, Some(1_000));
    let mut all = first.lateness;
    all.merge(&second.lateness);
    let mut whole = monitor();
    for &(now, deadline) in &runs {
        whole.tick_at(now, deadline);
    }
    assert_eq!(all, whole.report().lateness);
}
