//! cyclictest's per-thread status line.

use super::template;
use core::fmt;

/// cyclictest's per-thread line, `T: 0 ( 1234) P:99 I:1000 C: 125668 Min:      0 Act:   19
/// Avg:   14 Max:     158`, byte for byte (`T:%2d (%5d) P:%2d I:%ld C:%7lu Min:%7ld
/// Act:%5ld Avg:%5ld Max:%8ld`; with `-N` Act and Avg are `%8ld` and values are ns).
///
/// Latencies are given in nanoseconds and shown truncated to µs unless `nanoseconds`.
/// No newline is written.
///
/// ```
/// use rtlat_core::report::CyclictestLine;
/// let line = CyclictestLine {
///     thread: 0, tid: 1234, priority: 99, interval_us: 1000, cycles: 125_668,
///     min_ns: 400, act_ns: 19_999, avg_ns: 14_200, max_ns: 158_000, nanoseconds: false,
/// };
/// assert_eq!(line.to_string(),
///     "T: 0 ( 1234) P:99 I:1000 C: 125668 Min:      0 Act:   19 Avg:   14 Max:     158");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CyclictestLine {
    /// Thread number (0-based).
    pub thread: u32,
    /// Kernel thread id.
    pub tid: i32,
    /// RT priority.
    pub priority: i32,
    /// Interval in µs.
    pub interval_us: u64,
    /// Cycles measured.
    pub cycles: u64,
    /// Minimum latency, ns.
    pub min_ns: i64,
    /// Latest latency, ns.
    pub act_ns: i64,
    /// Average latency, ns.
    pub avg_ns: i64,
    /// Maximum latency, ns.
    pub max_ns: i64,
    /// Show nanoseconds (cyclictest `-N`) instead of microseconds.
    pub nanoseconds: bool,
}

impl fmt::Display for CyclictestLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One template for the line (no format arguments, no call per field: a
        // microcontroller's report code stays small); `Act` and `Avg` are 8 wide with `-N`.
        const LINE: &[u8] =
            b"T:\x82 (\x95) P:\x92 I:\x80 C:\x87 Min:\xb7 Act:\xbf Avg:\xbf Max:\xb8";
        let figures = [
            u64::from(self.thread),
            self.tid as u64,
            self.priority as u64,
            self.interval_us,
            self.cycles,
            self.min_ns as u64,
            self.act_ns as u64,
            self.avg_ns as u64,
            self.max_ns as u64,
        ];
        template::write(f, LINE, &figures, self.nanoseconds)
    }
}

#[cfg(test)]
mod tests {
    use super::CyclictestLine;

    #[test]
    fn nanosecond_widths() {
        let line = CyclictestLine {
            thread: 1,
            tid: 42,
            priority: 80,
            interval_us: 500,
            cycles: 1017,
            min_ns: 9115,
            act_ns: 13_000,
            avg_ns: 13_982,
            max_ns: 436_427,
            nanoseconds: true,
        };
        assert_eq!(
            line.to_string(),
            "T: 1 (   42) P:80 I:500 C:   1017 Min:   9115 Act:   13000 Avg:   13982 Max:  436427"
        );
    }

    #[test]
    fn negative_latency_is_shown_signed() {
        let line = CyclictestLine {
            thread: 0,
            tid: 1,
            priority: 1,
            interval_us: 100,
            cycles: 1,
            min_ns: -2500,
            act_ns: -2500,
            avg_ns: -2500,
            max_ns: -2500,
            nanoseconds: false,
        };
        assert_eq!(
            line.to_string(),
            "T: 0 (    1) P: 1 I:100 C:      1 Min:     -2 Act:   -2 Avg:   -2 Max:      -2"
        );
    }
}
