//! A monitor's report as bare-metal report lines, formatted into a fixed buffer.

use core::fmt::Write;
use core::num::NonZeroU64;
use rtlat_core::report::{CyclictestLine, JitterLine, LineBuffer};
use rtlat_core::{JitterMonitor, TickScale};

#[test]
fn t_and_j_lines_of_a_window_into_a_stack_buffer() {
    // A 25 MHz counter, 1 ms period; ticks 10, 5, 40 and 25 ticks late (400, 200, 1600,
    // 1000 ns).
    let scale = TickScale::from_hz(NonZeroU64::new(25_000_000).unwrap());
    let mut m = JitterMonitor::with_scale(NonZeroU64::new(25_000).unwrap(), scale);
    for (k, late) in [10u64, 5, 40, 25].into_iter().enumerate() {
        let deadline = 25_000 * (k as u64 + 1);
        m.tick_at(deadline + late, deadline);
    }
    let r = m.report_and_reset();
    let mut line = LineBuffer::<200>::new();
    writeln!(line, "{}", CyclictestLine::from_jitter(0, &r)).unwrap();
    write!(line, "{}", JitterLine::from_report(0, &r)).unwrap();
    assert_eq!(
        line.as_str(),
        "T: 0 (    0) P: 0 I:1000 C:      4 Min:      0 Act:    1 Avg:    0 Max:       1\n\
         J: 0 I:1000 C:      4 MinI:   999400 MaxI:  1001400 Jitter:     1400 Overruns:      0"
    );
    // The next window is empty: zeros, as cyclictest shows before its first cycle.
    assert_eq!(
        JitterLine::from_report(1, &m.report()).to_string(),
        "J: 1 I:1000 C:      0 MinI:        0 MaxI:        0 Jitter:        0 Overruns:      0"
    );
}

#[test]
fn a_line_that_does_not_fit_is_an_error_not_a_panic() {
    let m = JitterMonitor::new(NonZeroU64::new(1_000_000).unwrap());
    let mut line = LineBuffer::<40>::new();
    assert!(write!(line, "{}", CyclictestLine::from_jitter(0, &m.report())).is_err());
    assert!(line.as_str().len() <= 40);
}
