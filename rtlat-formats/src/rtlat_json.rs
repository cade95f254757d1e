//! rtlat's `--json` file: cyclictest's JSON (same keys, same layout) plus an `"rtlat"` object
//! per thread and one for the run.
//!
//! Each thread's `"rtlat"` object holds everything in ns: `unit` (`"ns"`), `cycles`, `min`,
//! `max`, `mean`, `overruns`, `max_cycle`, `percentiles`, and the log-linear `histogram`
//! (`layout{kind,precision,zero}`, `summary{count,min,max,sum}`, `underflow`, `overflow`,
//! `buckets:[{low,high,count}…]` with inclusive bounds, the underflow and overflow guards
//! included with bounds running to `i64::MIN`/`i64::MAX`). This reader takes the series from
//! those objects (exact ns, percentiles within 0.78 %) and falls back to the cyclictest keys
//! for a thread without one. The run's `"rtlat"` object gives the version, configuration and
//! provenance (how the machine was tuned: settings `provenance.KEY`).
//!
//! With `rtlat run --explain`, a thread's `explain` object and its `spikes[]` (each with
//! `latency` ns, `t` s, `cpu`, `max`, `causes[{text, audit, score}]`, `unexplained`) become
//! the series' [`ExplainRecord`] and [`SpikeRecord`]s. A malformed value there refuses the
//! file like any other malformed key: one line naming the key and what it should hold.

use serde_json::{Number, Value};

use super::cyclictest_json;
use super::error::FormatError;
use super::json;
use super::model::{Bucket, Format, Histogram, Resolution, Run, Series};
use super::schema::cyclictest::Document;
use super::schema::explain::{
    CauseRecord, ExplainRecord, SpikeRecord, TimerlatPartRecord, TimerlatSpikeRecord,
};
use super::schema::rtlat::{self as schema, ThreadExtra};
use super::schema::{Field, bad_value};

/// Whether a JSON document is rtlat's: an `"rtlat"` object at the top or in a thread.
pub(crate) fn is_rtlat(doc: &Document) -> bool {
    doc.rtlat.valid().is_some()
        || doc.thread.valid().is_some_and(|threads| {
            threads
                .0
                .iter()
                .any(|(_, t)| t.valid().is_some_and(|t| t.rtlat.valid().is_some()))
        })
}

/// Reads an rtlat `--json` file.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let doc: Document = json::document(text)?;
    let mut run = Run::new(Format::RtlatJson);
    cyclictest_json::read_header(&doc, &mut run)?;
    if let Some(extra) = doc.rtlat.get("rtlat")? {
        if let Some(version) = json::setting(&extra.version) {
            run.settings.push(("rtlat_version".into(), version));
        }
        if let Some(config) = extra.config.valid() {
            for (k, v) in config {
                run.settings
                    .push((format!("config.{k}"), json::scalar_text(v)));
            }
        }
        // How the machine was tuned: what `rtlat compare` lists as changed between runs.
        if let Some(provenance) = extra.provenance.valid() {
            for (k, v) in provenance.settings() {
                run.settings.push((format!("provenance.{k}"), v));
            }
        }
    }
    let unit_ns = cyclictest_json::unit_ns(&doc)?;
    let buckets = cyclictest_json::histogram_size(&doc);
    for (key, thread) in doc.thread.required("thread")?.numbered() {
        let path = json::path("thread", key);
        let thread = thread.required(&path)?;
        let extra_path = json::path(&path, "rtlat");
        let series = match thread.rtlat.get(&extra_path)? {
            Some(extra) => {
                let mut s = rtlat_series(key, extra, &extra_path)?;
                if let Some(cpu) = thread.cpu.valid().and_then(Number::as_i64) {
                    s.cpu = u32::try_from(cpu).ok();
                }
                s
            }
            None => cyclictest_json::thread_series(
                key,
                thread,
                &path,
                unit_ns,
                buckets,
                &mut run.notes,
            )?,
        };
        run.series.push(series);
    }
    Ok(run)
}

/// A series from a thread's `"rtlat"` object.
fn rtlat_series(key: &str, extra: &ThreadExtra, path: &str) -> Result<Series, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    if let Some(unit) = extra.unit.get(&key_path("unit"))?
        && unit != "ns"
    {
        return Err(bad_value(
            &key_path("unit"),
            "\"ns\"",
            &Value::String(unit.clone()),
        ));
    }
    let mut series = Series::new(format!("T{key}"));
    series.resolution_ns = 1;
    series.cycles = Some(extra.cycles.required(&key_path("cycles"))?.0);
    let optional_ns = |field: &Field<Option<Number>>, name: &str| {
        let key = key_path(name);
        match field.get(&key)? {
            None | Some(None) => Ok(None),
            Some(Some(n)) => json::nanoseconds(n, &key, 1).map(Some),
        }
    };
    series.min = optional_ns(&extra.min, "min")?;
    series.max = optional_ns(&extra.max, "max")?;
    series.avg = extra.mean.get(&key_path("mean"))?.copied().flatten();
    series.overruns = extra
        .overruns
        .get(&key_path("overruns"))?
        .copied()
        .flatten()
        .map(|c| c.0);
    if let Some(h) = extra.histogram.get(&key_path("histogram"))? {
        series.histogram = Some(histogram(h, &key_path("histogram"))?);
    }
    if let Some(e) = extra.explain.get(&key_path("explain"))? {
        series.explain = Some(explain(e, &key_path("explain"))?);
    }
    if let Some(list) = extra.spikes.get(&key_path("spikes"))? {
        let list_path = key_path("spikes");
        series.spikes = list
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let s_path = format!("{list_path}[{i}]");
                spike(s.required(&s_path)?, &s_path)
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(timerlat) = extra.timerlat.get(&key_path("timerlat"))?
        && let Some(list) = timerlat
            .spikes
            .get(&json::path(&key_path("timerlat"), "spikes"))?
    {
        let list_path = json::path(&key_path("timerlat"), "spikes");
        series.timerlat_spikes = list
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let s_path = format!("{list_path}[{i}]");
                timerlat_spike(s.required(&s_path)?, &s_path)
            })
            .collect::<Result<_, _>>()?;
    }
    Ok(series)
}

/// One of `timerlat.spikes[]`: `thread` and `parts` required (a wake-up in parts), the rest
/// optional; each part's `part` and `ns` required.
fn timerlat_spike(
    s: &schema::TimerlatSpike,
    path: &str,
) -> Result<TimerlatSpikeRecord, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    let parts_path = key_path("parts");
    let parts = s
        .parts
        .required(&parts_path)?
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let p_path = format!("{parts_path}[{i}]");
            let p = p.required(&p_path)?;
            Ok(TimerlatPartRecord {
                part: p.part.required(&json::path(&p_path, "part"))?.clone(),
                name: p
                    .name
                    .get(&json::path(&p_path, "name"))?
                    .cloned()
                    .unwrap_or_default(),
                ns: *p.ns.required(&json::path(&p_path, "ns"))?,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    Ok(TimerlatSpikeRecord {
        seq: s.seq.get(&key_path("seq"))?.copied(),
        thread_ns: *s.thread.required(&key_path("thread"))?,
        irq_ns: s.irq.get(&key_path("irq"))?.copied(),
        user_ns: s.user.get(&key_path("user"))?.copied().flatten(),
        parts,
    })
}

/// A thread's `explain` object: every fact optional, none of the wrong kind.
fn explain(e: &schema::Explain, path: &str) -> Result<ExplainRecord, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    Ok(ExplainRecord {
        threshold_ns: e
            .threshold_ns
            .get_as(&key_path("threshold_ns"), "an integer (ns)")?
            .copied(),
        threshold_from: e.threshold_from.get(&key_path("threshold_from"))?.cloned(),
        above_threshold: e
            .above_threshold
            .get(&key_path("above_threshold"))?
            .copied(),
        left_off: e.left_off.get(&key_path("left_off"))?.copied(),
        unseen: e.unseen.get(&key_path("unseen"))?.copied(),
        sampler_period_ns: e
            .sampler_period_ns
            .get(&key_path("sampler_period_ns"))?
            .copied(),
        sampler_cpus: e.sampler_cpus.get(&key_path("sampler_cpus"))?.cloned(),
        tracer: e.tracer.get(&key_path("tracer"))?.cloned(),
    })
}

/// One of `spikes[]`: `latency` and `t` required (a spike is a latency at a time), the
/// rest optional.
fn spike(s: &schema::Spike, path: &str) -> Result<SpikeRecord, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    let latency = *s
        .latency
        .required_as(&key_path("latency"), "an integer (ns)")?;
    let t_path = key_path("t");
    let t_number =
        s.t.required_as(&t_path, "seconds since the thread's start")?;
    let t = t_number.as_f64().filter(|t| *t >= 0.0).ok_or_else(|| {
        bad_value(
            &t_path,
            "seconds since the thread's start",
            &Value::Number(t_number.clone()),
        )
    })?;
    let causes = match s.causes.get(&key_path("causes"))? {
        None => None,
        Some(list) => {
            let list_path = key_path("causes");
            Some(
                list.iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let c_path = format!("{list_path}[{i}]");
                        let c = c.required(&c_path)?;
                        Ok(CauseRecord {
                            text: c.text.required(&json::path(&c_path, "text"))?.clone(),
                            audit: c
                                .audit
                                .get(&json::path(&c_path, "audit"))?
                                .cloned()
                                .flatten(),
                            score: c.score.get(&json::path(&c_path, "score"))?.copied(),
                        })
                    })
                    .collect::<Result<Vec<_>, FormatError>>()?,
            )
        }
    };
    Ok(SpikeRecord {
        cycle: s.cycle.get(&key_path("cycle"))?.copied(),
        latency,
        t,
        cpu: s.cpu.get(&key_path("cpu"))?.copied().flatten(),
        max: s.max.get(&key_path("max"))?.copied().unwrap_or(false),
        causes,
        unexplained: s.unexplained.get(&key_path("unexplained"))?.cloned(),
    })
}

/// rtlat-core's serialized histogram.
fn histogram(h: &schema::Histogram, path: &str) -> Result<Histogram, FormatError> {
    let key_path = |name: &str| json::path(path, name);
    let layout_path = key_path("layout");
    let layout = h.layout.required(&layout_path)?;
    let kind_path = json::path(&layout_path, "kind");
    let resolution = match layout.kind.required(&kind_path)?.as_str() {
        "log-linear" => {
            let p_path = json::path(&layout_path, "precision");
            let precision = layout.precision.required(&p_path)?.0;
            Resolution::LogLinear {
                precision: precision.min(62) as u32,
            }
        }
        "linear" => {
            let w_path = json::path(&layout_path, "width");
            let width = layout.width.required(&w_path)?.0;
            Resolution::Linear {
                width_ns: width.max(1),
            }
        }
        kind => {
            return Err(bad_value(
                &kind_path,
                "\"log-linear\" or \"linear\"",
                &Value::String(kind.to_string()),
            ));
        }
    };
    let underflow = h.underflow.required(&key_path("underflow"))?.0;
    let overflow = h.overflow.required(&key_path("overflow"))?.0;
    let list_path = key_path("buckets");
    let list = h.buckets.required(&list_path)?;
    let mut buckets = Vec::with_capacity(list.len());
    let (mut underflow_limit, mut overflow_limit) = (None, None);
    for (i, b) in list.iter().enumerate() {
        let b_path = format!("{list_path}[{i}]");
        let o = b.required(&b_path)?;
        let bound = |field: &Field<i64>, name: &str| {
            field
                .required_as(&json::path(&b_path, name), "an integer (ns)")
                .copied()
        };
        let (low, high) = (bound(&o.low, "low")?, bound(&o.high, "high")?);
        let count = o.count.required(&json::path(&b_path, "count"))?.0;
        if low == i64::MIN && high < i64::MAX {
            underflow_limit = Some(high.saturating_add(1));
        } else if high == i64::MAX && low > i64::MIN {
            overflow_limit = Some(low);
        } else {
            buckets.push(Bucket { low, high, count });
        }
    }
    let top = buckets.iter().map(|b| b.high).max();
    let bottom = buckets.iter().map(|b| b.low).min();
    let overflow_limit = overflow_limit
        .or(top.map(|t| t.saturating_add(1)))
        .unwrap_or(i64::MAX);
    let underflow_limit = underflow_limit.or(bottom).unwrap_or(i64::MIN);
    Histogram::new(
        buckets,
        (underflow, underflow_limit),
        (overflow, overflow_limit),
        resolution,
    )
    .map_err(|message| FormatError::Inconsistent {
        line: None,
        message: format!("{path}: {message}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's `"rtlat"` object with `extra` added, in a minimal rtlat document.
    fn doc(extra: &str) -> String {
        format!(r#"{{"thread": {{"0": {{"rtlat": {{"unit": "ns", "cycles": 10{extra}}}}}}}}}"#)
    }

    #[test]
    fn timerlat_spikes_are_read_and_a_part_without_ns_is_refused() {
        let run = parse(&doc(r#",
            "timerlat": {"workload": "user", "cpu": 1, "spikes": [
                {"seq": 2, "thread": 705000, "irq": 5000, "user": 715000, "parts": [
                    {"part": "irq_latency", "name": "", "ns": 5000, "percent": 0.7},
                    {"part": "thread_interference", "name": "sh:400", "ns": 600000},
                    {"part": "irq_duration_and_switch", "ns": 100000}]}]}"#))
        .unwrap();
        let spikes = &run.series[0].timerlat_spikes;
        assert_eq!(spikes.len(), 1);
        let s = &spikes[0];
        assert_eq!(
            (s.seq, s.thread_ns, s.irq_ns, s.user_ns),
            (Some(2), 705_000, Some(5000), Some(715_000))
        );
        assert_eq!(s.parts.len(), 3);
        assert_eq!(
            (
                s.parts[1].part.as_str(),
                s.parts[1].name.as_str(),
                s.parts[1].ns
            ),
            ("thread_interference", "sh:400", 600_000)
        );
        assert_eq!(s.parts[2].name, "");
        let err = parse(&doc(
            r#", "timerlat": {"spikes": [{"thread": 5, "parts": [{"part": "x"}]}]}"#,
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("timerlat.spikes[0].parts[0].ns"), "{err}");
    }

    #[test]
    fn explain_and_spikes_are_read() {
        let run = parse(&doc(r#",
            "explain": {"threshold_ns": 40000, "threshold_from": "p99.9", "above_threshold": 7,
                        "left_off": 2, "unseen": 0, "sampler_period_ns": 1000000,
                        "sampler_cpus": [1], "tracer": "absent: no osnoise"},
            "spikes": [
                {"cycle": 3, "latency": 50000, "t": 0.5, "wake_ns": 9, "cpu": 2, "max": false,
                 "evidence_ns": [1, 9],
                 "causes": [{"text": "IRQ 24 (enp1s0) fired 3× on CPU 2: move it", "audit": "irq",
                             "score": 12}, {"text": "ksoftirqd/2", "audit": null}]},
                {"latency": 90000, "t": 2, "cpu": null, "max": true, "causes": []},
                {"latency": 45000, "t": 3.25, "unexplained": "evidence no longer kept"}]"#))
        .unwrap();
        let s = &run.series[0];
        let e = s.explain.as_ref().unwrap();
        assert_eq!(e.threshold_ns, Some(40000));
        assert_eq!(e.threshold_from.as_deref(), Some("p99.9"));
        assert_eq!(
            (e.above_threshold, e.left_off, e.unseen),
            (Some(7), Some(2), Some(0))
        );
        assert_eq!(e.sampler_period_ns, Some(1_000_000));
        assert_eq!(e.sampler_cpus, Some(vec![1]));
        assert_eq!(e.tracer.as_deref(), Some("absent: no osnoise"));
        assert_eq!(s.spikes.len(), 3);
        let first = &s.spikes[0];
        assert_eq!((first.cycle, first.latency, first.t), (Some(3), 50000, 0.5));
        assert_eq!((first.cpu, first.max), (Some(2), false));
        let causes = first.causes.as_ref().unwrap();
        assert_eq!(causes[0].text, "IRQ 24 (enp1s0) fired 3× on CPU 2: move it");
        assert_eq!(
            (causes[0].audit.as_deref(), causes[0].score),
            (Some("irq"), Some(12))
        );
        assert_eq!((causes[1].audit.as_deref(), causes[1].score), (None, None));
        assert_eq!((s.spikes[1].cpu, s.spikes[1].max), (None, true));
        assert_eq!(s.spikes[1].causes, Some(Vec::new()), "[]: no cause found");
        assert_eq!(s.spikes[2].causes, None);
        assert_eq!(
            s.spikes[2].unexplained.as_deref(),
            Some("evidence no longer kept")
        );
    }

    #[test]
    fn without_explain_there_is_nothing() {
        let s = &parse(&doc("")).unwrap().series[0];
        assert!(s.spikes.is_empty() && s.explain.is_none());
        let s = &parse(&doc(r#", "spikes": []"#)).unwrap().series[0];
        assert!(s.spikes.is_empty() && s.explain.is_none());
    }

    #[test]
    fn malformed_spikes_name_their_key() {
        for (extra, key, message) in [
            (
                r#", "spikes": {"latency": 1}"#,
                "thread.0.rtlat.spikes",
                "expected an array, found an object",
            ),
            (
                r#", "spikes": [7]"#,
                "thread.0.rtlat.spikes[0]",
                "expected an object, found a number (7)",
            ),
            (
                r#", "spikes": [{"t": 1}]"#,
                "thread.0.rtlat.spikes[0].latency",
                "is missing",
            ),
            (
                r#", "spikes": [{"latency": "50 us", "t": 1}]"#,
                "thread.0.rtlat.spikes[0].latency",
                "expected an integer (ns), found a string",
            ),
            (
                r#", "spikes": [{"latency": 5, "t": -1}]"#,
                "thread.0.rtlat.spikes[0].t",
                "expected seconds since the thread's start, found a \
                 number (-1)",
            ),
            (
                r#", "spikes": [{"latency": 5, "t": 1, "causes": "IRQ"}]"#,
                "thread.0.rtlat.spikes[0].causes",
                "expected an array",
            ),
            (
                r#", "spikes": [{"latency": 5, "t": 1, "causes": [{"audit": "irq"}]}]"#,
                "thread.0.rtlat.spikes[0].causes[0].text",
                "is missing",
            ),
            (
                r#", "spikes": [{"latency": 5, "t": 1, "max": "yes"}]"#,
                "thread.0.rtlat.spikes[0].max",
                "expected a boolean",
            ),
            (
                r#", "explain": {"above_threshold": -3}"#,
                "thread.0.rtlat.explain.above_threshold",
                "expected a non-negative integer",
            ),
        ] {
            let e = parse(&doc(extra)).unwrap_err().to_string();
            assert!(e.starts_with(&format!("key \"{key}\"")), "{extra}: {e}");
            assert!(e.contains(message), "{extra}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }
}
