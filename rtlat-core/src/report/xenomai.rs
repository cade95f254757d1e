//! Xenomai `latency`'s per-second `RTD|` line.

use super::Micros3;
use core::fmt;

/// Xenomai `latency`'s per-second result line,
/// `RTD|%11.3f|%11.3f|%11.3f|%8d|%6u|%11.3f|%11.3f`, in µs with three decimals from ns.
/// No newline is written.
///
/// ```
/// use rtlat_core::report::XenomaiLine;
/// let line = XenomaiLine {
///     min_ns: 19_558, avg_ns: 33_579, max_ns: 195_041, overruns: 0, mode_switches: 0,
///     best_ns: 19_558, worst_ns: 195_041,
/// };
/// assert_eq!(line.to_string(),
///     "RTD|     19.558|     33.579|    195.041|       0|     0|     19.558|    195.041");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XenomaiLine {
    /// Minimum latency in this second, ns.
    pub min_ns: i64,
    /// Average latency in this second, ns.
    pub avg_ns: i64,
    /// Maximum latency in this second, ns.
    pub max_ns: i64,
    /// Overruns so far.
    pub overruns: u64,
    /// Mode switches so far (Xenomai's `msw`; 0 off Cobalt).
    pub mode_switches: u32,
    /// Minimum since the start, ns.
    pub best_ns: i64,
    /// Maximum since the start, ns.
    pub worst_ns: i64,
}

impl fmt::Display for XenomaiLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RTD|{:11}|{:11}|{:11}|{:8}|{:6}|{:11}|{:11}",
            Micros3(self.min_ns),
            Micros3(self.avg_ns),
            Micros3(self.max_ns),
            self.overruns,
            self.mode_switches,
            Micros3(self.best_ns),
            Micros3(self.worst_ns)
        )
    }
}
