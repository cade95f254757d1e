//! `defmt::Format` for the report types, so firmware can send them over RTT or a probe.
//! Only `Format` implementations live here: the library never calls defmt's logging macros
//! (they would not link on a host).

use crate::Histogram;
use crate::cycle::{Outcome, Sample};
use crate::histogram::{Bucket, Layout, Storage};
use crate::jitter::{JitterReport, Tick};
use crate::stats::{Stats, Summary};
use defmt::{Format, Formatter, write};

impl Format for Summary {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "Summary {{ count: {=u64}, min: {}, max: {}, sum: {=i128} }}",
            self.count(),
            self.min(),
            self.max(),
            self.sum()
        )
    }
}

impl Format for Stats {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "Stats {{ {}, sum_of_squares: {=u128} }}",
            self.summary(),
            self.sum_of_squares()
        )
    }
}

impl Format for Bucket {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "[{=i64}, {=i64}]: {=u64}",
            self.low, self.high, self.count
        )
    }
}

impl<L: Layout, S: Storage> Format for Histogram<L, S> {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "Histogram {{ {}, underflow: {=u64}, overflow: {=u64} }}",
            self.summary(),
            self.underflow(),
            self.overflow()
        )
    }
}

impl Format for Sample {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "Sample {{ cycle: {=u64}, latency_ns: {=i64}, overruns: {=u64}, wake_ticks: {=u64} }}",
            self.cycle, self.latency_ns, self.overruns, self.wake_ticks
        )
    }
}

impl Format for Outcome {
    fn format(&self, f: Formatter) {
        match self {
            Outcome::Sample(s) => write!(f, "Sample({})", s),
            Outcome::Break(s) => write!(f, "Break({})", s),
            Outcome::Done => write!(f, "Done"),
        }
    }
}

impl Format for Tick {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "Tick {{ interval: {}, jitter: {}, lateness: {}, overruns: {=u64} }}",
            self.interval, self.jitter, self.lateness, self.overruns
        )
    }
}

impl Format for JitterReport {
    fn format(&self, f: Formatter) {
        write!(
            f,
            "JitterReport {{ period_ns: {=u64}, ticks: {=u64}, min_interval_ns: {}, max_interval_ns: {}, max_jitter_ns: {}, lateness: {}, last_lateness_ns: {}, overruns: {=u64} }}",
            self.period_ns,
            self.ticks,
            self.min_interval_ns,
            self.max_interval_ns,
            self.max_jitter_ns,
            self.lateness,
            self.last_lateness_ns,
            self.overruns
        )
    }
}
