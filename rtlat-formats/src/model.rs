//! The common model every reader produces: a [`Run`] of per-thread or per-CPU [`Series`],
//! all values in nanoseconds, each with the [`Histogram`] its format carries (if any) and
//! percentiles computed from that histogram by the nearest-rank definition.

use std::fmt;

pub use rtlat_core::Bucket;

use crate::schema::explain::{ExplainRecord, SpikeRecord, TimerlatSpikeRecord};

/// The result formats rtlat reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `rtlat run --json`: cyclictest's JSON plus `"rtlat"` objects (ns, log-linear histogram).
    RtlatJson,
    /// `cyclictest --json` (rt-tests 2.x): µs, or ns when `resolution_in_ns` is 1.
    CyclictestJson,
    /// cyclictest's `-h`/`-H` histogram text (stdout or `--histfile`), also rtlat's.
    CyclictestHist,
    /// jitterdebugger's `results.json` (version 3).
    Jitterdebugger,
    /// Xenomai 3 `latency` standard output (`RTD|` lines, `-h` `HSD|` histograms).
    XenomaiLatency,
    /// Xenomai 3 `latency -g FILE`: the gnuplot histogram file.
    XenomaiGnuplot,
}

impl Format {
    /// All formats, in detection order.
    pub const ALL: [Format; 6] = [
        Format::RtlatJson,
        Format::CyclictestJson,
        Format::CyclictestHist,
        Format::Jitterdebugger,
        Format::XenomaiLatency,
        Format::XenomaiGnuplot,
    ];

    /// A short machine-readable name (`"cyclictest-json"`).
    pub fn id(self) -> &'static str {
        match self {
            Format::RtlatJson => "rtlat-json",
            Format::CyclictestJson => "cyclictest-json",
            Format::CyclictestHist => "cyclictest-hist",
            Format::Jitterdebugger => "jitterdebugger",
            Format::XenomaiLatency => "xenomai-latency",
            Format::XenomaiGnuplot => "xenomai-gnuplot",
        }
    }

    /// The name people use for it (`"cyclictest JSON"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::RtlatJson => "rtlat JSON",
            Format::CyclictestJson => "cyclictest JSON",
            Format::CyclictestHist => "cyclictest -h histogram",
            Format::Jitterdebugger => "jitterdebugger results.json",
            Format::XenomaiLatency => "Xenomai latency output",
            Format::XenomaiGnuplot => "Xenomai latency -g gnuplot file",
        }
    }

    /// Whether the tool that writes the format counts overruns (missed periods): rtlat and
    /// Xenomai do, cyclictest and jitterdebugger do not (rtlat's `-h` text adds them to
    /// cyclictest's format in `# rtlat Overruns:`).
    pub fn counts_overruns(self) -> bool {
        matches!(
            self,
            Format::RtlatJson | Format::XenomaiLatency | Format::XenomaiGnuplot
        )
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One result file: where it came from, the machine and settings it states, and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The format it was read as.
    pub format: Format,
    /// The file it was read from, when read through [`crate::read_file`].
    pub file: Option<String>,
    /// Host name, where the format states it.
    pub host: Option<String>,
    /// Kernel release (and version string), where the format states it.
    pub kernel: Option<String>,
    /// Other facts the file states, in file order: command line, tool version, period,
    /// kernel parameters …
    pub settings: Vec<(String, String)>,
    /// One series per thread (cyclictest, rtlat, Xenomai) or CPU (jitterdebugger).
    pub series: Vec<Series>,
    /// What the reader noticed and the user should know (truncated averages, assumptions).
    pub notes: Vec<String>,
}

impl Run {
    /// An empty run of `format`.
    pub fn new(format: Format) -> Run {
        Run {
            format,
            file: None,
            host: None,
            kernel: None,
            settings: Vec::new(),
            series: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The value of setting `key`, if the file states it.
    pub fn setting(&self, key: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The series labelled `label`.
    pub fn series(&self, label: &str) -> Option<&Series> {
        self.series.iter().find(|s| s.label == label)
    }

    /// The largest latency of all series (the run's worst case), `None` if no series knows
    /// its maximum.
    pub fn worst_case(&self) -> Option<i64> {
        self.series.iter().filter_map(|s| s.max).max()
    }
}

/// One thread's (or CPU's) latencies, in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `T0`, `T1` … for threads, `CPU0` … for jitterdebugger's per-CPU results.
    pub label: String,
    /// The CPU the thread ran on, where the format states it.
    pub cpu: Option<u32>,
    /// Samples (cycles), where the format states or implies it.
    pub cycles: Option<u64>,
    /// Smallest latency, ns.
    pub min: Option<i64>,
    /// Mean latency, ns.
    pub avg: Option<f64>,
    /// Largest latency, ns.
    pub max: Option<i64>,
    /// Missed periods, where the format counts them (cyclictest and jitterdebugger cannot).
    pub overruns: Option<u64>,
    /// The unit of `min`/`avg`/`max` as the file wrote them, ns (1000 for whole µs).
    pub resolution_ns: u64,
    /// The histogram the file carries, `None` when it has none.
    pub histogram: Option<Histogram>,
    /// Xenomai's one-line-per-second results (`RTD|`), empty for other formats.
    pub per_second: Vec<Interval>,
    /// The spikes `rtlat run --explain` explained, in the order they happened; empty for
    /// other files and formats.
    pub spikes: Vec<SpikeRecord>,
    /// How `rtlat run --explain` looked for their causes; `None` for other files and
    /// formats.
    pub explain: Option<ExplainRecord>,
    /// The worst wake-ups `rtlat run --timerlat --explain` split into the tracer's parts,
    /// worst first; empty for other files and formats.
    pub timerlat_spikes: Vec<TimerlatSpikeRecord>,
}

impl Series {
    /// A series labelled `label` with nothing known yet.
    pub fn new(label: impl Into<String>) -> Series {
        Series {
            label: label.into(),
            cpu: None,
            cycles: None,
            min: None,
            avg: None,
            max: None,
            overruns: None,
            resolution_ns: 1,
            histogram: None,
            per_second: Vec::new(),
            spikes: Vec::new(),
            timerlat_spikes: Vec::new(),
            explain: None,
        }
    }

    /// The value at percentile `p` (0 ..= 100) from the series' histogram: see
    /// [`Histogram::percentile`]. `None` when there is no histogram or it is empty.
    pub fn percentile(&self, p: f64) -> Option<Percentile> {
        self.histogram.as_ref()?.percentile(p, self.min, self.max)
    }
}

/// One second of a Xenomai `latency` run (an `RTD|` line), ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Smallest latency in the second.
    pub min: i64,
    /// Mean latency in the second.
    pub avg: i64,
    /// Largest latency in the second.
    pub max: i64,
    /// Overruns so far (Xenomai prints the running total).
    pub overruns: u64,
    /// Switches to secondary mode so far.
    pub mode_switches: u64,
}

/// How finely a histogram resolves values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Buckets of one width, ns (1000 for cyclictest's µs buckets).
    Linear {
        /// Bucket width, ns.
        width_ns: u64,
    },
    /// rtlat's log-linear buckets: `2^precision` sub-buckets per power of two.
    LogLinear {
        /// Sub-bucket bits.
        precision: u32,
    },
}

impl fmt::Display for Resolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Resolution::Linear { width_ns } if width_ns % 1000 == 0 => {
                write!(f, "{} µs buckets", width_ns / 1000)
            }
            Resolution::Linear { width_ns } => write!(f, "{width_ns} ns buckets"),
            Resolution::LogLinear { precision } => write!(
                f,
                "log-linear buckets, within {:.2} %",
                100.0 / (1u64 << precision.min(62).saturating_add(1)) as f64
            ),
        }
    }
}

/// A histogram as a result file gives it: non-empty buckets with inclusive bounds in ns,
/// plus the values below the first bucket and at or above the last.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    buckets: Vec<Bucket>,
    underflow: u64,
    underflow_limit: i64,
    overflow: u64,
    overflow_limit: i64,
    resolution: Resolution,
}

impl Histogram {
    /// A histogram of `buckets` (any order; empty ones dropped), `underflow` values below
    /// `underflow_limit` and `overflow` values at or above `overflow_limit`. Error if a
    /// bucket's bounds are reversed, two buckets overlap, or a bucket reaches past a limit.
    pub fn new(
        mut buckets: Vec<Bucket>,
        underflow: (u64, i64),
        overflow: (u64, i64),
        resolution: Resolution,
    ) -> Result<Histogram, String> {
        buckets.retain(|b| b.count != 0);
        buckets.sort_by_key(|b| (b.low, b.high));
        for b in &buckets {
            if b.low > b.high {
                return Err(format!(
                    "histogram bucket [{}, {}] ns has its bounds reversed",
                    b.low, b.high
                ));
            }
        }
        for pair in buckets.windows(2) {
            if pair[1].low <= pair[0].high {
                return Err(format!(
                    "histogram buckets [{}, {}] and [{}, {}] ns overlap",
                    pair[0].low, pair[0].high, pair[1].low, pair[1].high
                ));
            }
        }
        if let (Some(first), Some(last)) = (buckets.first(), buckets.last()) {
            if underflow.0 != 0 && first.low < underflow.1 {
                return Err(format!(
                    "histogram bucket [{}, {}] ns lies below the underflow limit {} ns",
                    first.low, first.high, underflow.1
                ));
            }
            if overflow.0 != 0 && last.high >= overflow.1 {
                return Err(format!(
                    "histogram bucket [{}, {}] ns reaches the overflow limit {} ns",
                    last.low, last.high, overflow.1
                ));
            }
        }
        Ok(Histogram {
            buckets,
            underflow: underflow.0,
            // Without underflows the limit says nothing: one value, so equal histograms compare
            // equal whichever reader made them.
            underflow_limit: if underflow.0 == 0 {
                i64::MIN
            } else {
                underflow.1
            },
            overflow: overflow.0,
            overflow_limit: overflow.1,
            resolution,
        })
    }

    /// The non-empty buckets, lowest first.
    pub fn buckets(&self) -> &[Bucket] {
        &self.buckets
    }

    /// Values below [`Histogram::underflow_limit`].
    pub fn underflow(&self) -> u64 {
        self.underflow
    }

    /// Every underflow value is below this, ns (`i64::MIN` when there are none).
    pub fn underflow_limit(&self) -> i64 {
        self.underflow_limit
    }

    /// Values at or above [`Histogram::overflow_limit`] (cyclictest's "Histogram Overflows").
    pub fn overflow(&self) -> u64 {
        self.overflow
    }

    /// Every overflow value is at least this, ns (the histogram's limit).
    pub fn overflow_limit(&self) -> i64 {
        self.overflow_limit
    }

    /// How finely the buckets resolve values.
    pub fn resolution(&self) -> Resolution {
        self.resolution
    }

    /// Values in the buckets, not counting underflow and overflow.
    pub fn in_range(&self) -> u64 {
        self.buckets
            .iter()
            .map(|b| b.count)
            .fold(0, u64::saturating_add)
    }

    /// All values: buckets, underflow and overflow.
    pub fn count(&self) -> u64 {
        self.in_range()
            .saturating_add(self.underflow)
            .saturating_add(self.overflow)
    }

    /// The value at percentile `p` (0 ..= 100) by the nearest-rank definition, as
    /// [`rtlat_core::Histogram::percentile`] computes it: the rank is `⌈p·N/100⌉` (at least
    /// 1) over all `N` values, and the value of that rank is
    ///
    /// * in a bucket: the middle of the bucket narrowed to `[min, max]` (when given and
    ///   consistent), off by at most half the bucket's width, which
    ///   [`Percentile::Within`] states;
    /// * among the overflows: [`Percentile::AtLeast`] the histogram's limit, a bound and
    ///   not a number;
    /// * among the underflows: [`Percentile::Below`] the lower limit.
    ///
    /// `None` when empty or when `p` is not within 0 ..= 100.
    pub fn percentile(&self, p: f64, min: Option<i64>, max: Option<i64>) -> Option<Percentile> {
        if !(0.0..=100.0).contains(&p) {
            return None;
        }
        let total = self.count();
        if total == 0 {
            return None;
        }
        let ppb = (p * 1e7 + 0.5) as u128;
        let rank = (total as u128 * ppb).div_ceil(1_000_000_000).max(1) as u64;
        let mut seen = self.underflow;
        if seen >= rank {
            return Some(Percentile::Below(self.underflow_limit));
        }
        for b in &self.buckets {
            seen = seen.saturating_add(b.count);
            if seen >= rank {
                let (mut a, mut z) = (b.low as i128, b.high as i128);
                let lo = min.map_or(a, |m| a.max(m as i128));
                let hi = max.map_or(z, |m| z.min(m as i128));
                if lo <= hi {
                    (a, z) = (lo, hi);
                }
                return Some(Percentile::Within {
                    value: (a + (z - a) / 2) as i64,
                    low: b.low,
                    high: b.high,
                });
            }
        }
        Some(Percentile::AtLeast(self.overflow_limit))
    }
}

/// A percentile read from a histogram, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Percentile {
    /// The value lies in bucket `low ..= high`; `value` is its estimate (the bucket's
    /// middle, narrowed to the series' min and max).
    Within {
        /// The estimate.
        value: i64,
        /// Smallest value of the bucket.
        low: i64,
        /// Largest value of the bucket.
        high: i64,
    },
    /// The value is among the histogram's overflows: at least this, ns.
    AtLeast(i64),
    /// The value is among the underflows: below this, ns.
    Below(i64),
}

impl Percentile {
    /// The estimate when the value lies in a bucket, `None` for a bound.
    pub fn value(&self) -> Option<i64> {
        match *self {
            Percentile::Within { value, .. } => Some(value),
            _ => None,
        }
    }
}
