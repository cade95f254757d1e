//! Report lines reproduce the peers' real output byte for byte.

use rtlat_core::report::{CyclictestLine, XenomaiLine};

/// "19.558" → 19558 ns (the fixture's µs with three decimals).
fn ns(field: &str) -> i64 {
    let (int, frac) = field.trim().split_once('.').unwrap();
    let sign = if int.starts_with('-') { -1 } else { 1 };
    sign * (int.trim_start_matches('-').parse::<i64>().unwrap() * 1000
        + frac.parse::<i64>().unwrap())
}

#[test]
fn xenomai_rtd_lines_match_real_latency_output() {
    // Xenomai 3.2.7 (Mercury) `latency -T 4 -p 500 -h -s -g FILE`, captured on a 2-CPU VM.
    let text = include_str!("data/xenomai-latency-hs.txt");
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("RTD|")).collect();
    assert_eq!(lines.len(), 3);
    for real in lines {
        let f: Vec<&str> = real.split('|').collect();
        let line = XenomaiLine {
            min_ns: ns(f[1]),
            avg_ns: ns(f[2]),
            max_ns: ns(f[3]),
            overruns: f[4].trim().parse().unwrap(),
            mode_switches: f[5].trim().parse().unwrap(),
            best_ns: ns(f[6]),
            worst_ns: ns(f[7]),
        };
        assert_eq!(line.to_string(), real);
    }
}

#[test]
fn cyclictest_line_matches_the_documented_example() {
    // The example line of PEERS.md / the issue.
    let line = CyclictestLine {
        thread: 0,
        tid: 1234,
        priority: 99,
        interval_us: 1000,
        cycles: 125_668,
        min_ns: 0,
        act_ns: 19_000,
        avg_ns: 14_000,
        max_ns: 158_000,
        nanoseconds: false,
    };
    assert_eq!(
        line.to_string(),
        "T: 0 ( 1234) P:99 I:1000 C: 125668 Min:      0 Act:   19 Avg:   14 Max:     158"
    );
}

#[test]
fn lines_write_into_a_fixed_buffer_without_allocation() {
    // What firmware does: format into a stack buffer, then send it over a serial port.
    struct Serial {
        buf: [u8; 128],
        len: usize,
    }
    impl core::fmt::Write for Serial {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            let end = self.len + s.len();
            self.buf
                .get_mut(self.len..end)
                .ok_or(core::fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }
    let mut serial = Serial {
        buf: [0; 128],
        len: 0,
    };
    let line = XenomaiLine {
        min_ns: -1_250,
        avg_ns: 3_000,
        max_ns: 9_999,
        overruns: 2,
        mode_switches: 0,
        best_ns: -1_250,
        worst_ns: 9_999,
    };
    core::fmt::write(&mut serial, format_args!("{line}")).unwrap();
    assert_eq!(
        &serial.buf[..serial.len],
        b"RTD|     -1.250|      3.000|      9.999|       2|     0|     -1.250|      9.999"
    );
}
