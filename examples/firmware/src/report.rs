//! What the main loop prints over semihosting, one line at a time:
//!
//! ```text
//! T: 0 (    0) P: 0 I:1000 C:    100 Min:    160 Act:     200 Avg:     680 Max:    8040
//! J: 0 I:1000000 C:    100 MinInterval:  993040 MaxInterval: 1008120 MaxJitter:   8120 Overruns: 0
//! H: 0 C:    100 P50:     520 P90:    1480 P99:    8040 P99.9:    8040
//! ```
//!
//! `T:` is cyclictest's line with `-N` (lateness in ns against the ideal schedule; thread id
//! and priority are 0 on bare metal), `J:` LinuxCNC's interval jitter (ns; `MaxJitter` =
//! max(MaxInterval − period, period − MinInterval)), `H:` the lateness percentiles (ns) of the
//! `histogram` build (its `C:` is the histogram's own count, taken a moment after the
//! monitor's: one interrupt more is possible).

use cortex_m_semihosting::hprintln;
use rtlat_core::jitter::JitterReport;
use rtlat_core::report::CyclictestLine;

/// Prints the `T:` and `J:` lines for `report`, `act_ns` the latest lateness.
pub fn lines(report: &JitterReport, act_ns: i64) {
    let lateness = &report.lateness;
    let line = CyclictestLine {
        thread: 0,
        tid: 0,
        priority: 0,
        interval_us: report.period_ns / 1000,
        cycles: report.ticks,
        min_ns: lateness.min().unwrap_or(0),
        act_ns,
        avg_ns: lateness.mean_truncated().unwrap_or(0),
        max_ns: lateness.max().unwrap_or(0),
        nanoseconds: true,
    };
    hprintln!("{}", line);
    hprintln!(
        "J: 0 I:{} C:{:7} MinInterval:{:8} MaxInterval:{:8} MaxJitter:{:7} Overruns: {}",
        report.period_ns,
        report.ticks,
        report.min_interval_ns.unwrap_or(0),
        report.max_interval_ns.unwrap_or(0),
        report.max_jitter_ns.unwrap_or(0),
        report.overruns
    );
    #[cfg(feature = "histogram")]
    if let Some((count, [p50, p90, p99, p999])) = crate::histogram::percentiles() {
        hprintln!(
            "H: 0 C:{:7} P50:{:8} P90:{:8} P99:{:8} P99.9:{:8}",
            count,
            p50,
            p90,
            p99,
            p999
        );
    }
}
