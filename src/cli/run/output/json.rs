//! The `--json` file: cyclictest's keys exactly (its `"cmdline:"` and `"rt_test_version:"`
//! keys really end in a colon), plus an `"rtlat"` object per thread and per run with what
//! cyclictest cannot say: overruns, percentiles, the cycle of the maximum, the log-linear
//! histogram and the run's configuration.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use rtlat_engine::run::ThreadReport;
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
    pub config: Value,
    /// TID of the thread that broke the run (`-b`), if any.
    pub break_tid: Option<i32>,
    /// `-v` samples that could not be printed, per thread.
    pub lost_samples: Vec<u64>,
    /// Whether `"node"` names each thread's NUMA node: cyclictest looks nodes up unless `-S`
    /// (then it writes -1).
    pub numa_nodes: bool,
}

/// The whole document, laid out exactly as cyclictest writes it (two-space indents, `avg`
/// with two decimals, an empty histogram as `{      }`), with the `"rtlat"` objects after
/// each thread's `"node"` and after `"thread"`.
pub fn document(facts: &RunFacts, threads: &[ThreadReport]) -> String {
    let unit = if facts.nanoseconds { 1 } else { 1000 };
    let text = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let sys = sysinfo();
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\n  \"file_version\": 1,\n  \"cmdline:\": {},\n  \"rt_test_version:\": {},\n  \"start_time\": {},\n  \"end_time\": {},\n  \"return_code\": {},\n",
        text(&facts.cmdline),
        text(RT_TESTS_FORMAT_VERSION),
        text(&rfc2822_local(facts.start_unix)),
        text(&rfc2822_local(facts.end_unix)),
        facts.return_code
    );
    let _ = write!(
        out,
        "  \"sysinfo\": {{\n    \"sysname\": {},\n    \"nodename\": {},\n    \"release\": {},\n    \"version\": {},\n    \"machine\": {},\n    \"realtime\": {}\n  }},\n",
        text(&sys.sysname),
        text(&sys.nodename),
        text(&sys.release),
        text(&sys.version),
        text(&sys.machine),
        u8::from(sys.realtime)
    );
    let _ = write!(
        out,
        "  \"num_threads\": {},\n  \"resolution_in_ns\": {},\n  \"thread\": {{\n",
        threads.len(),
        u8::from(facts.nanoseconds)
    );
    for (k, t) in threads.iter().enumerate() {
        let s = t.summary();
        let _ = write!(out, "    \"{}\": {{\n      \"histogram\": {{", t.index);
        let buckets: Vec<(usize, u64)> = t
            .linear
            .as_ref()
            .map(|l| {
                l.counts
                    .iter()
                    .copied()
                    .enumerate()
                    .filter(|(_, c)| *c != 0)
                    .collect()
            })
            .unwrap_or_default();
        if buckets.is_empty() {
            out.push_str("      },\n");
        } else {
            out.push('\n');
            for (j, (bucket, count)) in buckets.iter().enumerate() {
                let comma = if j + 1 < buckets.len() { "," } else { "" };
                let _ = writeln!(out, "        \"{bucket}\": {count}{comma}");
            }
            out.push_str("      },\n");
        }
        let avg = s.mean().map_or(0.0, |m| m / unit as f64);
        let _ = write!(
            out,
            "      \"cycles\": {},\n      \"min\": {},\n      \"max\": {},\n      \"avg\": {avg:.2},\n      \"cpu\": {},\n      \"node\": {},\n",
            s.count(),
            s.min().map_or(0, |v| v / unit),
            s.max().map_or(0, |v| v / unit),
            t.cpu.map_or(-1, |c| c as i64),
            t.cpu.filter(|_| facts.numa_nodes).map_or(-1, numa_node)
        );
        let extra = thread_extra(t, facts.lost_samples.get(t.index).copied().unwrap_or(0));
        let _ = writeln!(out, "      \"rtlat\": {}", indented(&extra, 6));
        let comma = if k + 1 < threads.len() { "," } else { "" };
        let _ = writeln!(out, "    }}{comma}");
    }
    let total_overruns: u64 = threads.iter().map(|t| t.overruns).sum();
    let run = json!({
        "version": env!("CARGO_PKG_VERSION"),
        "unit": "ns",
        "overruns": total_overruns,
        "break_thread": facts.break_tid,
        "config": facts.config,
    });
    let _ = write!(out, "  }},\n  \"rtlat\": {}\n}}\n", indented(&run, 2));
    out
}

/// `value` pretty-printed, its lines after the first indented by `by` spaces.
fn indented(value: &Value, by: usize) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into());
    let pad = " ".repeat(by);
    pretty.replace('\n', &format!("\n{pad}"))
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

/// rtlat's per-thread object: everything in ns, exact where the summary is exact.
fn thread_extra(t: &ThreadReport, lost_samples: u64) -> Value {
    let s = t.summary();
    let h = &t.histogram;
    let percentiles: Map<String, Value> = [
        ("p50", 50.0),
        ("p90", 90.0),
        ("p99", 99.0),
        ("p99.9", 99.9),
        ("p99.99", 99.99),
    ]
    .into_iter()
    .map(|(name, p)| (name.to_string(), json!(h.percentile(p))))
    .collect();
    let mut extra = json!({
        "unit": "ns",
        "tid": t.tid,
        "priority": t.priority,
        "interval_us": t.interval_us,
        "cycles": s.count(),
        "min": s.min(),
        "max": s.max(),
        "mean": s.mean(),
        "stddev": t.histogram.std_dev(),
        "overruns": t.overruns,
        "max_cycle": t.max_at.map(|(_, cycle)| cycle),
        "percentiles": percentiles,
        "percentile_relative_error": h.layout().relative_error(),
        "minor_page_faults_while_measuring": t.minor_faults,
        "allocations_while_measuring": t.allocations,
        "lost_verbose_samples": lost_samples,
        // Per-second min/avg/max/overruns (bounded: see rtlat_engine::seconds).
        "seconds": seconds_json(&t.seconds),
        "histogram": serde_json::to_value(&**h).unwrap_or(Value::Null),
    });
    // Only the generic-timer clock's timer translates deadlines (to CLOCK_MONOTONIC), and
    // so can wake early on the counter or meet a rate it refuses.
    if let (Some(t), Some(map)) = (t.translation, extra.as_object_mut()) {
        map.insert(
            "deadline_translation".into(),
            json!({
                "early_wakeups": t.early_wakeups,
                "slew_ppm": t.slew_ppm,
                "calibrations": t.calibrations,
                "refused": t.refused,
            }),
        );
    }
    extra
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
fn seconds_json(series: &SecondsSeries) -> Value {
    let period = series.period_s();
    let entries: Vec<Value> = series
        .entries()
        .iter()
        .map(|e| {
            let some = e.cycles > 0;
            json!({
                "t": e.slot.saturating_mul(period),
                "cycles": e.cycles,
                "min": some.then_some(e.min_ns),
                "avg": e.avg_ns(),
                "max": some.then_some(e.max_ns),
                "overruns": e.overruns,
            })
        })
        .collect();
    json!({ "period_s": period, "entries": entries })
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
        let doc = super::seconds_json(&series);
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
