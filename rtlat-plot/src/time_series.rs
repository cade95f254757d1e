//! The per-second maximum latency of each thread, where a file has it: rtlat's JSON
//! (`thread.N.rtlat.seconds`, read here from the file itself) and Xenomai `latency` output
//! (one `RTD|` line a second, read by [`rtlat_formats`]).

use rtlat_formats::schema::Field;
use rtlat_formats::schema::cyclictest::{Document, Thread};
use rtlat_formats::{Format, Run};
use serde_json::{Number, Value};

/// The longest a run can last, seconds (`rtlat run -D`'s limit, about 136 years): every
/// window of a series lies within it.
pub const MAX_TIME_S: f64 = u32::MAX as f64;
/// The shortest window a series may have, seconds (rtlat writes whole seconds).
pub const MIN_PERIOD_S: f64 = 0.001;

/// One thread's maxima over time.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The series' label in the run (`T0` …).
    pub label: String,
    /// Seconds each point covers.
    pub period_s: f64,
    /// `(t, max)`: start of the window in seconds since the thread's start, its largest
    /// latency in ns (`None` for a window without cycles).
    pub points: Vec<(f64, Option<i64>)>,
}

/// The timelines of `run`, read from `text` (the file's content) where the format keeps them
/// in a part the readers do not model. Empty when the file has none; an error names the
/// malformed part.
pub fn timelines(run: &Run, text: &str) -> Result<Vec<Timeline>, String> {
    match run.format {
        Format::RtlatJson => rtlat_seconds(text),
        Format::XenomaiLatency => Ok(run
            .series
            .iter()
            .filter(|s| !s.per_second.is_empty())
            .map(|s| Timeline {
                label: s.label.clone(),
                period_s: 1.0,
                points: s
                    .per_second
                    .iter()
                    .enumerate()
                    .map(|(i, second)| (i as f64, Some(second.max)))
                    .collect(),
            })
            .collect()),
        _ => Ok(Vec::new()),
    }
}

/// `thread.N.rtlat.seconds = {"period_s": p, "entries": [{"t": s, "max": ns|null, …}]}`.
fn rtlat_seconds(text: &str) -> Result<Vec<Timeline>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Field::Valid(doc) = Field::<Document>::from_value(doc) else {
        return Ok(Vec::new());
    };
    let Some(threads) = doc.thread.valid() else {
        return Ok(Vec::new());
    };
    let mut keys: Vec<(u64, &String, &Field<Thread>)> = threads
        .0
        .iter()
        .filter_map(|(k, t)| k.parse().ok().map(|n| (n, k, t)))
        .collect();
    keys.sort_by(|(n, k, _), (m, l, _)| (n, k).cmp(&(m, l)));
    let mut timelines = Vec::new();
    for (_, key, thread) in keys {
        let Some(seconds) = thread
            .valid()
            .and_then(|t| t.rtlat.valid())
            .map(|r| &r.seconds)
        else {
            continue;
        };
        if seconds.is_absent() {
            continue;
        }
        let seconds = seconds.valid();
        let path = format!("thread.{key}.rtlat.seconds");
        let period_s = seconds
            .and_then(|s| s.period_s.valid())
            .and_then(Number::as_f64)
            .filter(|p| (MIN_PERIOD_S..=MAX_TIME_S).contains(p))
            .ok_or_else(|| {
                format!(
                    "{path}.period_s: expected a number of seconds from {MIN_PERIOD_S} to \
                     {MAX_TIME_S}"
                )
            })?;
        let entries = seconds
            .and_then(|s| s.entries.valid())
            .ok_or_else(|| format!("{path}.entries: expected an array"))?;
        let mut points: Vec<(f64, Option<i64>)> = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let entry = entry.valid();
            let place = format!("{path}.entries[{i}]");
            // The window, whole, within the longest run there can be.
            let t = entry
                .and_then(|e| e.t.valid())
                .and_then(Number::as_f64)
                .filter(|t| *t >= 0.0 && t + period_s <= MAX_TIME_S)
                .ok_or_else(|| {
                    format!(
                        "{place}.t: expected seconds from 0 to {MAX_TIME_S} (the longest run) \
                         minus period_s"
                    )
                })?;
            if let Some(&(previous, _)) = points.last()
                && t <= previous
            {
                return Err(format!(
                    "{place}.t: expected a time after entries[{}].t ({previous} s), got {t} s: \
                     entries are oldest first",
                    i - 1
                ));
            }
            let max = match entry.map(|e| &e.max) {
                None => None,
                Some(max) => max
                    .get("max")
                    .map_err(|_| format!("{place}.max: expected ns"))?
                    .copied()
                    .flatten(),
            };
            // A window without cycles has no maximum, one with cycles has one.
            let cycles = match entry.map(|e| &e.cycles) {
                None => None,
                Some(cycles) => cycles
                    .get("cycles")
                    .map_err(|_| format!("{place}.cycles: expected a count"))?
                    .copied(),
            };
            match (cycles, max) {
                (Some(0), Some(_)) => {
                    return Err(format!(
                        "{place}.max: expected null in a window of 0 cycles"
                    ));
                }
                (Some(n), None) if n > 0 => {
                    return Err(format!(
                        "{place}.max: expected ns in a window of {n} cycles"
                    ));
                }
                _ => {}
            }
            points.push((t, max));
        }
        if !points.is_empty() {
            timelines.push(Timeline {
                label: format!("T{key}"),
                period_s,
                points,
            });
        }
    }
    Ok(timelines)
}

/// `timeline` with at most `limit` points: adjacent windows merged (the maximum of the
/// maxima, exact for the merged window), the period multiplied accordingly.
pub fn decimated(timeline: &Timeline, limit: usize) -> Timeline {
    let n = timeline.points.len();
    if n <= limit || limit == 0 {
        return timeline.clone();
    }
    let group = n.div_ceil(limit);
    let points = timeline
        .points
        .chunks(group)
        .map(|chunk| (chunk[0].0, chunk.iter().filter_map(|p| p.1).max()))
        .collect();
    Timeline {
        label: timeline.label.clone(),
        period_s: timeline.period_s * group as f64,
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTLAT: &str = r#"{"thread": {
        "1": {"rtlat": {"seconds": {"period_s": 1, "entries": [
            {"t": 0, "cycles": 3, "min": 1, "avg": 2, "max": 3000, "overruns": 0},
            {"t": 1, "cycles": 0, "min": null, "avg": null, "max": null, "overruns": 0}]}}},
        "0": {"rtlat": {"seconds": {"period_s": 2, "entries": [
            {"t": 0, "max": 5000}, {"t": 2, "max": 7000}]}}},
        "2": {"cycles": 5}
    }}"#;

    #[test]
    fn rtlat_threads_in_order_with_empty_seconds_kept_as_gaps() {
        let t = rtlat_seconds(RTLAT).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].label.as_str(), t[0].period_s), ("T0", 2.0));
        assert_eq!(t[0].points, [(0.0, Some(5000)), (2.0, Some(7000))]);
        assert_eq!(t[1].points, [(0.0, Some(3000)), (1.0, None)]);
    }

    #[test]
    fn malformed_entries_are_named() {
        let e = rtlat_seconds(
            r#"{"thread":{"0":{"rtlat":{"seconds":{"period_s":1,"entries":[{"t":"x"}]}}}}}"#,
        )
        .unwrap_err();
        assert_eq!(
            e,
            "thread.0.rtlat.seconds.entries[0].t: expected seconds from 0 to 4294967295 (the \
             longest run) minus period_s"
        );
        let e =
            rtlat_seconds(r#"{"thread":{"0":{"rtlat":{"seconds":{"entries":[]}}}}}"#).unwrap_err();
        assert!(e.starts_with("thread.0.rtlat.seconds.period_s"), "{e}");
    }

    #[test]
    fn series_no_run_can_have_are_named() {
        let block = |seconds: &str| {
            rtlat_seconds(&format!(
                r#"{{"thread":{{"0":{{"rtlat":{{"seconds":{seconds}}}}}}}}}"#
            ))
        };
        for period in ["0", "-1", "1e300", "1e-300", "0.0009", "4294967296"] {
            let e = block(&format!(r#"{{"period_s":{period},"entries":[]}}"#)).unwrap_err();
            assert_eq!(
                e,
                "thread.0.rtlat.seconds.period_s: expected a number of seconds from 0.001 to \
                 4294967295",
                "{period}"
            );
        }
        for t in ["-1", "1e300", "4294967295", "18446744073709551615"] {
            let e = block(&format!(r#"{{"period_s":1,"entries":[{{"t":{t}}}]}}"#)).unwrap_err();
            assert!(
                e.starts_with("thread.0.rtlat.seconds.entries[0].t: "),
                "{t}: {e}"
            );
        }
        let e = block(r#"{"period_s":1,"entries":[{"t":1},{"t":0.5}]}"#).unwrap_err();
        assert_eq!(
            e,
            "thread.0.rtlat.seconds.entries[1].t: expected a time after entries[0].t (1 s), \
             got 0.5 s: entries are oldest first"
        );
        let e = block(r#"{"period_s":1,"entries":[{"t":0,"cycles":0,"max":5}]}"#).unwrap_err();
        assert!(e.ends_with("entries[0].max: expected null in a window of 0 cycles"));
        let e = block(r#"{"period_s":1,"entries":[{"t":0,"cycles":3,"max":null}]}"#).unwrap_err();
        assert!(e.ends_with("entries[0].max: expected ns in a window of 3 cycles"));
        // The longest run's last window, and the shortest window, are a series.
        let t = block(r#"{"period_s":0.001,"entries":[{"t":4294967294,"max":-5}]}"#).unwrap();
        assert_eq!(t[0].points, [(4294967294.0, Some(-5))]);
    }

    #[test]
    fn decimation_keeps_the_maxima() {
        let t = Timeline {
            label: "T0".into(),
            period_s: 1.0,
            points: (0..10)
                .map(|i| (i as f64, (i != 3).then_some(i * 10)))
                .collect(),
        };
        let d = decimated(&t, 4);
        assert_eq!(d.period_s, 3.0);
        assert_eq!(
            d.points,
            [
                (0.0, Some(20)),
                (3.0, Some(50)),
                (6.0, Some(80)),
                (9.0, Some(90))
            ]
        );
        assert_eq!(decimated(&t, 100), t);
    }
}
