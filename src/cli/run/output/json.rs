//! The `--json` file: cyclictest's keys exactly (its `"cmdline:"` and `"rt_test_version:"`
//! keys really end in a colon), plus an `"rtlat"` object per thread and per run with what
//! cyclictest cannot say: overruns, percentiles, the cycle of the maximum, the log-linear
//! histogram and the run's configuration.

use serde_json::{Map, Value, json};

use super::super::report::ThreadReport;

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
}

/// The whole document, pretty-printed like cyclictest's.
pub fn document(facts: &RunFacts, threads: &[ThreadReport]) -> String {
    let unit = if facts.nanoseconds { 1 } else { 1000 };
    let mut per_thread = Map::new();
    for t in threads {
        let s = t.stats.summary();
        let mut histogram = Map::new();
        if let Some(l) = &t.linear {
            for (i, &c) in l.counts.iter().enumerate().filter(|(_, c)| **c != 0) {
                histogram.insert(i.to_string(), json!(c));
            }
        }
        let avg = s
            .mean()
            .map_or(0.0, |m| (m / unit as f64 * 100.0).round() / 100.0);
        per_thread.insert(
            t.index.to_string(),
            json!({
                "histogram": histogram,
                "cycles": s.count(),
                "min": s.min().map_or(0, |v| v / unit),
                "max": s.max().map_or(0, |v| v / unit),
                "avg": avg,
                "cpu": t.cpu.map_or(-1, |c| c as i64),
                "node": -1,
                "rtlat": thread_extra(t, facts.lost_samples.get(t.index).copied().unwrap_or(0)),
            }),
        );
    }
    let total_overruns: u64 = threads.iter().map(|t| t.overruns).sum();
    let doc = json!({
        "file_version": 1,
        "cmdline:": facts.cmdline,
        "rt_test_version:": RT_TESTS_FORMAT_VERSION,
        "start_time": rfc2822(facts.start_unix),
        "end_time": rfc2822(facts.end_unix),
        "return_code": facts.return_code,
        "sysinfo": sysinfo(),
        "num_threads": threads.len(),
        "resolution_in_ns": u8::from(facts.nanoseconds),
        "thread": per_thread,
        "rtlat": {
            "version": env!("CARGO_PKG_VERSION"),
            "unit": "ns",
            "overruns": total_overruns,
            "break_thread": facts.break_tid,
            "config": facts.config,
        },
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// rtlat's per-thread object: everything in ns, exact where the summary is exact.
fn thread_extra(t: &ThreadReport, lost_samples: u64) -> Value {
    let s = t.stats.summary();
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
    json!({
        "unit": "ns",
        "tid": t.tid,
        "priority": t.priority,
        "interval_us": t.interval_us,
        "cycles": s.count(),
        "min": s.min(),
        "max": s.max(),
        "mean": s.mean(),
        "stddev": t.stats.std_dev(),
        "overruns": t.overruns,
        "max_cycle": t.max_at.map(|(_, cycle)| cycle),
        "percentiles": percentiles,
        "percentile_relative_error": h.layout().relative_error(),
        "minor_page_faults_while_measuring": t.minor_faults,
        "allocations_while_measuring": t.allocations,
        "lost_verbose_samples": lost_samples,
        "histogram": serde_json::to_value(&**h).unwrap_or(Value::Null),
    })
}

/// uname's fields as cyclictest reports them.
fn sysinfo() -> Value {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    let realtime = std::fs::read_to_string("/sys/kernel/realtime").is_ok_and(|s| s.trim() == "1");
    json!({
        "sysname": read("ostype"),
        "nodename": read("hostname"),
        "release": read("osrelease"),
        "version": read("version"),
        "machine": std::env::consts::ARCH,
        "realtime": u8::from(realtime),
    })
}

/// RFC 2822 date in UTC: `Sun, 29 Nov 2026 18:47:07 +0000`.
pub fn rfc2822(unix: u64) -> String {
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
        "{}, {:02} {} {} {:02}:{:02}:{:02} +0000",
        DAYS[(days % 7) as usize],
        day,
        MONTHS[(month - 1) as usize],
        year,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::rfc2822;

    #[test]
    fn dates_match_cyclictest_fixture() {
        // "Sun, 29 Nov 2026 18:47:07 +0000" from the captured cyclictest JSON.
        assert_eq!(rfc2822(1_795_978_027), "Sun, 29 Nov 2026 18:47:07 +0000");
        assert_eq!(rfc2822(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(rfc2822(951_782_400), "Tue, 29 Feb 2000 00:00:00 +0000");
    }
}
