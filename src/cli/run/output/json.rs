//! The `--json` file: cyclictest's keys exactly (its `"cmdline:"` and `"rt_test_version:"`
//! keys really end in a colon), plus an `"rtlat"` object per thread and per run with what
//! cyclictest cannot say: overruns, percentiles, the cycle of the maximum, the log-linear
//! histogram and the run's configuration.

use rtlat_formats::schema::cyclictest::{Avg, Document, LinearHistogram, Sysinfo, Thread};
use rtlat_formats::schema::provenance::Provenance;
use rtlat_formats::schema::rtlat::{
    DeadlineTranslation, Explain, RunConfig, RunExtra, Second, Seconds, Spike, ThreadExtra,
    Timerlat,
};
use rtlat_formats::schema::{Count, Entries, Field};
use serde_json::{Number, Value};

use rtlat_engine::run::{RUN_LAYOUT, RunHistogram, ThreadReport};
use rtlat_engine::seconds::SecondsSeries;

/// The rt-tests release whose JSON layout this reproduces.
pub const RT_TESTS_FORMAT_VERSION: &str = "2.40";

/// Facts about the run as a whole.
#[derive(Debug, Clone)]
pub struct RunFacts {
    /// The command line as typed.
    pub cmdline: String,
    /// Start, seconds since the epoch.
    pub start_unix: u64,
    /// End, seconds since the epoch.
    pub end_unix: u64,
    /// The exit status the run ends with.
    pub return_code: i32,
    /// `-N`: values in ns instead of µs.
    pub nanoseconds: bool,
    /// The run's configuration, as rtlat resolved it.
    pub config: RunConfig,
    /// TID of the thread that broke the run (`-b`), if any.
    pub break_tid: Option<i32>,
    /// `-v` samples that could not be printed, per thread.
    pub lost_samples: Vec<u64>,
    /// Whether `"node"` names each thread's NUMA node: cyclictest looks nodes up unless `-S`
    /// (then it writes -1).
    pub numa_nodes: bool,
    /// `--explain`: each thread's `explain` object and `spikes` (empty without it).
    pub explained: Vec<(Explain, Vec<Field<Spike>>)>,
    /// `--timerlat`: each thread's `timerlat` object (empty without it).
    pub timerlat: Vec<Timerlat>,
    /// How the machine was tuned as the run started.
    pub provenance: Option<Provenance>,
}

/// The whole document, laid out exactly as cyclictest writes it (two-space indents, `avg`
/// with two decimals, an empty histogram as `{      }`), with the `"rtlat"` objects after
/// each thread's `"node"` and after `"thread"`.
pub fn document(facts: &RunFacts, threads: &[ThreadReport]) -> String {
    let unit = if facts.nanoseconds { 1 } else { 1000 };
    let sys = sysinfo();
    let thread = threads
        .iter()
        .map(|t| {
            let s = t.summary();
            let histogram = t
                .linear
                .as_ref()
                .map(|l| {
                    l.counts
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| **c != 0)
                        .map(|(bucket, count)| (bucket.to_string(), Field::from(Count(*count))))
                        .collect()
                })
                .unwrap_or_default();
            let entry = Thread {
                histogram: LinearHistogram(Entries(histogram)).into(),
                cycles: Count(s.count()).into(),
                min: Number::from(s.min().map_or(0, |v| v / unit)).into(),
                max: Number::from(s.max().map_or(0, |v| v / unit)).into(),
                avg: Avg(s.mean().map_or(0.0, |m| m / unit as f64)).into(),
                cpu: Number::from(t.cpu.map_or(-1, |c| c as i64)).into(),
                node: Number::from(t.cpu.filter(|_| facts.numa_nodes).map_or(-1, numa_node)).into(),
                rtlat: {
                    let mut extra =
                        thread_extra(t, facts.lost_samples.get(t.index).copied().unwrap_or(0));
                    if let Some((explain, spikes)) = facts.explained.get(t.index) {
                        extra.explain = explain.clone().into();
                        extra.spikes = spikes.clone().into();
                    }
                    if let Some(timerlat) = facts.timerlat.get(t.index) {
                        extra.timerlat = timerlat.clone().into();
                    }
                    extra.into()
                },
            };
            (t.index.to_string(), Field::from(entry))
        })
        .collect();
    let doc = Document {
        file_version: Number::from(1).into(),
        cmdline: facts.cmdline.clone().into(),
        rt_test_version: RT_TESTS_FORMAT_VERSION.to_string().into(),
        start_time: rfc2822_local(facts.start_unix).into(),
        end_time: rfc2822_local(facts.end_unix).into(),
        return_code: Number::from(facts.return_code).into(),
        sysinfo: Sysinfo {
            sysname: sys.sysname.into(),
            nodename: sys.nodename.into(),
            release: sys.release.into(),
            version: sys.version.into(),
            machine: sys.machine.into(),
            realtime: Number::from(u8::from(sys.realtime)).into(),
            ..Sysinfo::default()
        }
        .into(),
        num_threads: Number::from(threads.len()).into(),
        resolution_in_ns: Number::from(u8::from(facts.nanoseconds)).into(),
        thread: Entries(thread).into(),
        rtlat: RunExtra {
            version: env!("CARGO_PKG_VERSION").to_string().into(),
            unit: "ns".to_string().into(),
            overruns: threads.iter().map(|t| t.overruns).sum::<u64>().into(),
            break_thread: facts.break_tid.map(i64::from).into(),
            config: match serde_json::to_value(&facts.config) {
                Ok(Value::Object(config)) => config.into(),
                _ => Field::Invalid(Value::Null),
            },
            provenance: facts.provenance.clone().map_or(Field::Absent, Field::from),
        }
        .into(),
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}

/// The NUMA node of `cpu` (`/sys/devices/system/cpu/cpuN/nodeM`), -1 when unknown.
fn numa_node(cpu: usize) -> i64 {
    std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{cpu}"))
        .ok()
        .and_then(|entries| {
            entries.flatten().find_map(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_prefix("node"))
                    .and_then(|n| n.parse().ok())
            })
        })
        .unwrap_or(-1)
}

/// `p50` … `p99.99` of a run histogram (each `null` without one, or without values).
pub fn percentiles(h: Option<&RunHistogram>) -> Entries<Option<i64>> {
    Entries(
        [
            ("p50", 50.0),
            ("p90", 90.0),
            ("p99", 99.0),
            ("p99.9", 99.9),
            ("p99.99", 99.99),
        ]
        .into_iter()
        .map(|(name, p)| (name.to_string(), h.and_then(|h| h.percentile(p))))
        .collect(),
    )
}

/// rtlat's per-thread object: everything in ns, exact where the summary is exact.
fn thread_extra(t: &ThreadReport, lost_samples: u64) -> ThreadExtra {
    let s = t.summary();
    // Kept by every run that writes JSON (`kept_histogram`); without it the figures it alone
    // gives are null, never made up.
    let h = t.histogram.as_deref();
    ThreadExtra {
        unit: "ns".to_string().into(),
        tid: i64::from(t.tid).into(),
        priority: i64::from(t.priority).into(),
        interval_us: t.interval_us.into(),
        cycles: Count(s.count()).into(),
        min: s.min().map(Number::from).into(),
        max: s.max().map(Number::from).into(),
        mean: s.mean().into(),
        stddev: h.and_then(|h| h.std_dev()).into(),
        overruns: Some(Count(t.overruns)).into(),
        max_cycle: t.max_at.map(|(_, cycle)| cycle).into(),
        percentiles: percentiles(h).into(),
        percentile_relative_error: RUN_LAYOUT.relative_error().into(),
        minor_page_faults_while_measuring: t.minor_faults.into(),
        allocations_while_measuring: t.allocations.into(),
        lost_verbose_samples: lost_samples.into(),
        // Per-second min/avg/max/overruns (bounded: see rtlat_engine::seconds).
        seconds: seconds_json(&t.seconds).into(),
        // rtlat-core's own serialization of the histogram (null if its sum is beyond
        // what JSON's integers hold).
        histogram: Field::from_value(
            h.and_then(|h| serde_json::to_value(h).ok())
                .unwrap_or(Value::Null),
        ),
        // Only the generic-timer clock's timer translates deadlines (to CLOCK_MONOTONIC),
        // and so can wake early on the counter or meet a rate it refuses.
        deadline_translation: t.translation.map_or(Field::Absent, |t| {
            DeadlineTranslation {
                early_wakeups: t.early_wakeups.into(),
                slew_ppm: t.slew_ppm.into(),
                calibrations: t.calibrations.into(),
                refused: t.refused.into(),
            }
            .into()
        }),
        // Only Xenomai's timer counts overruns of its own (`--backend xenomai`).
        xenomai_overruns: t.reported_overruns.map_or(Field::Absent, Field::from),
        smis: t.smis.map_or(Field::Absent, Field::from),
        explain: Field::Absent,
        spikes: Field::Absent,
        timerlat: Field::Absent,
    }
}

/// uname's fields as rt-tests' JSON writes them (`sysinfo`), for the other rt-tests shapes
/// rtlat writes (`rtlat noise`'s oslat JSON).
pub fn sysinfo_fields() -> Sysinfo {
    let sys = sysinfo();
    Sysinfo {
        sysname: sys.sysname.into(),
        nodename: sys.nodename.into(),
        release: sys.release.into(),
        version: sys.version.into(),
        machine: sys.machine.into(),
        realtime: Number::from(u8::from(sys.realtime)).into(),
        ..Sysinfo::default()
    }
}

/// uname's fields as cyclictest reports them.
struct SysInfo {
    sysname: String,
    nodename: String,
    release: String,
    version: String,
    machine: String,
    realtime: bool,
}

fn sysinfo() -> SysInfo {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    SysInfo {
        sysname: read("ostype"),
        nodename: read("hostname"),
        release: read("osrelease"),
        version: read("version"),
        machine: std::env::consts::ARCH.to_string(),
        realtime: std::fs::read_to_string("/sys/kernel/realtime").is_ok_and(|s| s.trim() == "1"),
    }
}

/// RFC 2822 date in local time, as cyclictest writes it (`%a, %d %b %Y %T %z`):
/// `Sun, 29 Nov 2026 18:47:07 +0000`.
pub fn rfc2822_local(unix: u64) -> String {
    let offset = rtlat_linux::utc_offset_seconds(unix as i64).unwrap_or(0);
    rfc2822(unix, offset)
}

/// RFC 2822 date at `offset` seconds east of UTC.
pub fn rfc2822(unix: u64, offset: i64) -> String {
    let local = (unix as i64 + offset).max(0) as u64;
    let sign = if offset < 0 { '-' } else { '+' };
    let zone = format!(
        "{sign}{:02}{:02}",
        offset.unsigned_abs() / 3600,
        offset.unsigned_abs() / 60 % 60
    );
    let unix = local;
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = (unix / 86_400) as i64;
    let secs = unix % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}, {:02} {} {} {:02}:{:02}:{:02} {zone}",
        DAYS[(days % 7) as usize],
        day,
        MONTHS[(month - 1) as usize],
        year,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// A thread's time series as the JSON object: `{"period_s": s, "entries": [{"t", "cycles", "min", "avg", "max",
/// "overruns"}, …]}`, times in seconds since the thread's start, latencies in ns (`null`
/// for a second without cycles).
fn seconds_json(series: &SecondsSeries) -> Seconds {
    let period = series.period_s();
    let entries = series
        .entries()
        .iter()
        .map(|e| {
            let some = e.cycles > 0;
            Field::from(Second {
                t: Number::from(e.slot.saturating_mul(period)).into(),
                cycles: e.cycles.into(),
                min: some.then_some(e.min_ns).into(),
                avg: e.avg_ns().into(),
                max: some.then_some(e.max_ns).into(),
                overruns: e.overruns.into(),
            })
        })
        .collect::<Vec<_>>();
    Seconds {
        period_s: Number::from(period).into(),
        entries: entries.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::rfc2822;

    #[test]
    fn the_time_series_has_a_null_for_an_empty_second() {
        use rtlat_engine::Window;
        let window = |index| Window {
            index,
            cycles: 1,
            min_ns: 1,
            max_ns: 9,
            sum_ns: 10,
            overruns: 0,
            complete: true,
        };
        let mut series = super::SecondsSeries::default();
        series.push(&window(0));
        series.push(&window(2));
        let doc = serde_json::to_value(super::seconds_json(&series)).unwrap();
        assert_eq!(doc["period_s"], 1);
        assert_eq!(doc["entries"][1]["min"], serde_json::Value::Null);
        assert_eq!(doc["entries"][2]["t"], 2);
        assert_eq!(doc["entries"][2]["avg"], 10);
    }

    #[test]
    fn dates_match_cyclictest_fixture() {
        // "Sun, 29 Nov 2026 18:47:07 +0000" from the captured cyclictest JSON.
        assert_eq!(rfc2822(1_795_978_027, 0), "Sun, 29 Nov 2026 18:47:07 +0000");
        assert_eq!(rfc2822(0, 0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(rfc2822(951_782_400, 0), "Tue, 29 Feb 2000 00:00:00 +0000");
        assert_eq!(
            rfc2822(1_795_978_027, 3 * 3600),
            "Sun, 29 Nov 2026 21:47:07 +0300"
        );
        assert_eq!(
            rfc2822(1_795_978_027, -(9 * 3600 + 1800)),
            "Sun, 29 Nov 2026 09:17:07 -0930"
        );
    }
}
