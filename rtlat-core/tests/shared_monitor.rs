//! The lock-free shared monitor: a writer thread ticking, readers hammering it, and not one
//! torn snapshot; windows taken while it ticks tile the run exactly.

use core::num::NonZeroU64;
use rtlat_core::{CounterExtender, JitterSnapshot, SharedJitterMonitor, TickScale};
use std::sync::atomic::{AtomicBool, Ordering};

const P: u64 = 1_000_000;
const TICKS: u64 = 300_000;

/// Tick `k` comes at `k·(P + 1)`, `k` ticks after its deadline: a window of ticks `a..b`
/// has lateness min `a`, max and last `b − 1`, sum `(a + b − 1)(b − a)/2`, and every
/// interval is `P + 1`. A snapshot mixing two ticks' stores breaks one of these.
fn tick(monitor: &SharedJitterMonitor, k: u64) {
    let now = k * (P + 1);
    monitor.tick_at(now, now - k);
}

/// Checks a window's invariants; its lateness range `(a, b − 1)`.
fn check(s: &JitterSnapshot) -> Option<(u64, u64)> {
    assert_eq!(
        s.lateness_count, s.ticks,
        "every tick_at has a lateness: {s:?}"
    );
    let Some((min, max)) = s.lateness else {
        assert_eq!((s.ticks, s.interval, s.last_lateness), (0, None, None));
        return None;
    };
    let (a, last) = (min as u64, max as u64);
    assert!(a <= last, "{s:?}");
    assert_eq!(last - a + 1, s.ticks, "{s:?}");
    assert_eq!(s.last_lateness, Some(max), "{s:?}");
    assert_eq!(s.lateness_sum as u64, (a + last) * s.ticks / 2, "{s:?}");
    if a > 0 || s.ticks > 1 {
        assert_eq!(s.interval, Some((P + 1, P + 1)), "{s:?}");
    }
    assert_eq!(s.overruns, 0);
    Some((a, last))
}

#[test]
fn readers_never_see_a_torn_snapshot_and_windows_tile_the_run() {
    static SERVO: SharedJitterMonitor = SharedJitterMonitor::new(NonZeroU64::new(P).unwrap());
    static DONE: AtomicBool = AtomicBool::new(false);
    // The loop: `TICKS` ticks, a little work between two.
    let writer = std::thread::spawn(|| {
        for k in 0..TICKS {
            tick(&SERVO, k);
            (0..20).for_each(|_| std::hint::spin_loop());
        }
        DONE.store(true, Ordering::Release);
    });
    // Two readers taking snapshots and reports all along.
    let readers: Vec<_> = (0..2)
        .map(|_| {
            std::thread::spawn(|| {
                let mut reads = 0u64;
                while !DONE.load(Ordering::Acquire) {
                    check(&SERVO.snapshot());
                    let r = SERVO.report();
                    assert_eq!(r.lateness.count(), r.ticks);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    // Two window readers (taking turns): per-window reports, as fast as they can.
    let resetters: Vec<_> = (0..2)
        .map(|_| {
            std::thread::spawn(|| {
                let mut windows = Vec::new();
                while !DONE.load(Ordering::Acquire) {
                    windows.extend(check(&SERVO.snapshot_and_reset()));
                }
                windows
            })
        })
        .collect();
    writer.join().unwrap();
    let reads: Vec<u64> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    let mut windows: Vec<_> = resetters
        .into_iter()
        .flat_map(|r| r.join().unwrap())
        .collect();
    windows.extend(check(&SERVO.snapshot_and_reset()));
    windows.sort_unstable();
    assert_eq!(
        check(&SERVO.snapshot()),
        None,
        "nothing after the last window"
    );
    // Windows in order, each starting where the one before ended: none lost, none twice.
    let mut next = 0;
    for &(a, last) in &windows {
        assert_eq!(a, next, "windows {windows:?}");
        next = last + 1;
    }
    assert_eq!(next, TICKS);
    println!(
        "{TICKS} ticks in {} windows; snapshots by the readers: {reads:?}",
        windows.len()
    );
}

#[test]
fn the_same_figures_as_the_plain_monitor() {
    let period = NonZeroU64::new(P).unwrap();
    let shared = SharedJitterMonitor::new(period);
    let mut plain = rtlat_core::JitterMonitor::new(period);
    let times = [0, P + 30, 2 * P - 50, 5 * P + 7, 6 * P, 6 * P + 10];
    for (i, &t) in times.iter().enumerate() {
        let (a, b) = if i % 2 == 0 {
            (shared.tick(t), plain.tick(t))
        } else {
            (
                shared.tick_at(t, i as u64 * P),
                plain.tick_at(t, i as u64 * P),
            )
        };
        assert_eq!(a, b);
    }
    assert_eq!(shared.snapshot(), plain.snapshot());
    assert_eq!(shared.report_and_reset(), plain.report_and_reset());
    assert_eq!(shared.tick(7 * P), plain.tick(7 * P));
    assert_eq!(shared.report(), plain.report());
    shared.restart();
    plain.reset();
    shared.reset();
    assert_eq!(shared.tick(9 * P), plain.tick(9 * P));
    assert_eq!(shared.report(), plain.report());
}

#[test]
fn statics_need_no_run_time_init() {
    const SCALE: TickScale = TickScale::from_hz(NonZeroU64::new(168_000_000).unwrap());
    static MONITOR: SharedJitterMonitor =
        SharedJitterMonitor::with_scale(NonZeroU64::new(168_000).unwrap(), SCALE);
    static PLAIN: std::sync::Mutex<rtlat_core::JitterMonitor> = std::sync::Mutex::new(
        rtlat_core::JitterMonitor::with_scale(NonZeroU64::new(168_000).unwrap(), SCALE),
    );
    static COUNTER: CounterExtender<24> = CounterExtender::new();
    // A 24-bit counter at 168 MHz wraps every 99.9 ms: read every 1 ms period, it never
    // wraps twice between two readings.
    let mut raw = 0xFF_0000u32;
    for k in 0..300u64 {
        let now = COUNTER.extend(raw & 0xFF_FFFF);
        MONITOR.tick_at(now, 0xFF_0000 + k * 168_000);
        PLAIN.lock().unwrap().tick_at(now, 0xFF_0000 + k * 168_000);
        raw = raw.wrapping_add(168_000 + (k % 3) as u32);
    }
    let r = MONITOR.report();
    assert_eq!(r, PLAIN.lock().unwrap().report());
    assert_eq!((r.ticks, r.period_ns, r.overruns), (300, 1_000_000, 0));
    assert_eq!((MONITOR.period().get(), MONITOR.scale()), (168_000, SCALE));
    // Lateness k·(k mod 3)… accumulated: tick k is Σ_{j<k} (j mod 3) ticks late.
    let late = |k: u64| (0..k).map(|j| j % 3).sum::<u64>();
    assert_eq!(MONITOR.snapshot().last_lateness, Some(late(299) as i64));
    assert_eq!(r.max_jitter_ns, Some(SCALE.to_ns(2)));
}
