//! `DelayProbe` against `rtlat_core::sim`'s simulated clock and delay: every overshoot is
//! known exactly, so the test checks what was recorded, not a range.

use rtlat_core::delay::{DelayProbe, DelayRequest};
use rtlat_core::sim::{SimClock, SimDelay};
use rtlat_core::{Error, Record, SmallHistogram, Summary};
use std::cell::Cell;

/// Records every value in order.
#[derive(Default)]
struct Log(Vec<i64>);
impl Record for Log {
    fn record(&mut self, value: i64) {
        self.0.push(value);
    }
}

fn delay(now: &Cell<u64>, rate_hz: u64, overshoots: Vec<i64>) -> SimDelay<'_> {
    SimDelay {
        now,
        rate_hz,
        overshoots: overshoots.into_iter(),
        requests: Vec::new(),
    }
}

#[test]
fn each_overshoot_is_elapsed_minus_requested_signed() {
    let now = Cell::new(7_000);
    let mut probe = DelayProbe::new(SimClock {
        now: &now,
        rate_hz: 1_000_000_000,
    })
    .unwrap();
    let mut d = delay(&now, 1_000_000_000, vec![0, 12, 3_500, -2, 40_000]);
    let mut log = Log::default();
    probe
        .measure(&mut d, DelayRequest::Us(100), 5, &mut log)
        .unwrap();
    assert_eq!(log.0, [0, 12, 3_500, -2, 40_000]);
    assert_eq!(d.requests, [100_000; 5]);
    assert_eq!(now.get(), 7_000 + 5 * 100_000 + 12 + 3_500 - 2 + 40_000);
}

#[test]
fn every_method_is_called_with_its_unit() {
    let now = Cell::new(0);
    let mut probe = DelayProbe::new(SimClock {
        now: &now,
        rate_hz: 1_000_000_000,
    })
    .unwrap();
    let mut d = delay(&now, 1_000_000_000, vec![5, 6, 7]);
    assert_eq!(probe.overshoot(&mut d, DelayRequest::Ns(250)), Ok(5));
    assert_eq!(probe.overshoot(&mut d, DelayRequest::Us(3)), Ok(6));
    assert_eq!(probe.overshoot(&mut d, DelayRequest::Ms(2)), Ok(7));
    assert_eq!(d.requests, [250, 3_000, 2_000_000]);
}

#[test]
fn ticks_of_a_slower_clock_become_nanoseconds() {
    // A 25 MHz clock (40 ns a tick): a delay rounded up to whole ticks, then late by 10 ticks.
    let now = Cell::new(0);
    let mut probe = DelayProbe::new(SimClock {
        now: &now,
        rate_hz: 25_000_000,
    })
    .unwrap();
    let mut d = delay(&now, 25_000_000, vec![10, 0, -1]);
    let mut log = Log::default();
    probe
        .measure(&mut d, DelayRequest::Ns(1_000), 1, &mut log)
        .unwrap();
    // 1000 ns is 25 ticks exactly: 35 ticks = 1400 ns.
    probe
        .measure(&mut d, DelayRequest::Ns(1_010), 1, &mut log)
        .unwrap();
    // 1010 ns rounds up to 26 ticks = 1040 ns: 30 ns over.
    probe
        .measure(&mut d, DelayRequest::Ns(1_000), 1, &mut log)
        .unwrap();
    // 24 ticks = 960 ns: 40 ns early.
    assert_eq!(log.0, [400, 30, -40]);
}

#[test]
fn into_a_histogram_and_a_summary_at_once() {
    let now = Cell::new(0);
    let mut probe = DelayProbe::new(SimClock {
        now: &now,
        rate_hz: 1_000_000_000,
    })
    .unwrap();
    let overshoots: Vec<i64> = (0..1_000).map(|i| 1_000 + (i % 10) * 100).collect();
    let mut d = delay(&now, 1_000_000_000, overshoots);
    let mut histogram = SmallHistogram::empty();
    let mut summary = Summary::new();
    probe
        .measure(
            &mut d,
            DelayRequest::Us(50),
            1_000,
            &mut (&mut histogram, &mut summary),
        )
        .unwrap();
    assert_eq!(histogram.count(), 1_000);
    assert_eq!(summary.count(), 1_000);
    assert_eq!((summary.min(), summary.max()), (Some(1_000), Some(1_900)));
    assert_eq!(
        (histogram.min(), histogram.max()),
        (Some(1_000), Some(1_900))
    );
    assert_eq!(summary.mean_truncated(), Some(1_450));
    assert_eq!(histogram.underflow() + histogram.overflow(), 0);
    // Percentiles within the small layout's error (1.56 %) of the exact ones.
    let p50 = histogram.percentile(50.0).unwrap();
    assert!((1_400 - 23..=1_400 + 23).contains(&p50), "{p50}");
}

#[test]
fn a_clock_without_a_rate_is_refused() {
    let now = Cell::new(0);
    let refused = DelayProbe::new(SimClock {
        now: &now,
        rate_hz: 0,
    });
    assert_eq!(refused.err(), Some(Error::ZeroInterval("clock rate")));
}

#[test]
fn no_calls_no_records() {
    let now = Cell::new(0);
    let mut probe = DelayProbe::new(SimClock {
        now: &now,
        rate_hz: 1_000_000_000,
    })
    .unwrap();
    let mut d = delay(&now, 1_000_000_000, vec![]);
    let mut log = Log::default();
    probe
        .measure(&mut d, DelayRequest::Ms(1), 0, &mut log)
        .unwrap();
    assert!(log.0.is_empty() && d.requests.is_empty());
    assert_eq!(probe.into_clock().now.get(), 0);
}
