//! The per-second maximum latency of each thread, where a file has it: rtlat's JSON
//! (`thread.N.rtlat.seconds`, read here from the file itself) and Xenomai `latency` output
//! (one `RTD|` line a second, read by [`crate::formats`]).

use crate::formats::schema::Field;
use crate::formats::schema::cyclictest::{Document, Thread};
use crate::formats::{Format, Run};
use serde_json::{Number, Value};

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
            .filter(|p| p.is_finite() && *p > 0.0)
            .ok_or_else(|| format!("{path}.period_s: expected a positive number of seconds"))?;
        let entries = seconds
            .and_then(|s| s.entries.valid())
            .ok_or_else(|| format!("{path}.entries: expected an array"))?;
        let mut points = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let entry = entry.valid();
            let t = entry
                .and_then(|e| e.t.valid())
                .and_then(Number::as_f64)
                .filter(|t| t.is_finite())
                .ok_or_else(|| format!("{path}.entries[{i}].t: expected seconds"))?;
            let max = match entry.map(|e| &e.max) {
                None => None,
                Some(max) => max
                    .get("max")
                    .map_err(|_| format!("{path}.entries[{i}].max: expected ns"))?
                    .copied()
                    .flatten(),
            };
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
        assert_eq!(e, "thread.0.rtlat.seconds.entries[0].t: expected seconds");
        let e =
            rtlat_seconds(r#"{"thread":{"0":{"rtlat":{"seconds":{"entries":[]}}}}}"#).unwrap_err();
        assert!(e.starts_with("thread.0.rtlat.seconds.period_s"), "{e}");
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
