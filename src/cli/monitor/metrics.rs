//! The metrics of `rtlat monitor`, in a prometheus-client [`Registry`]: made once, with one
//! handle per measuring thread, updated by the aggregating thread ([`super::windows`]) and
//! encoded by the server and the textfile writer. Every label set is made at start (the
//! info metric's is replaced, not added to), so the registry does not grow while it runs.
//!
//! | metric | type | labels |
//! | --- | --- | --- |
//! | `rtlat_latency_seconds` | histogram, buckets 1 µs … 10 ms | `cpu`, `thread` |
//! | `rtlat_cycles_total`, `rtlat_overruns_total` | counter | `cpu`, `thread` |
//! | `rtlat_latency_min_seconds`, `rtlat_latency_max_seconds` | gauge (since start) | `cpu`, `thread` |
//! | `rtlat_window_max_seconds` | gauge | `cpu`, `thread`, `window` (`current`, `last`) |
//! | `rtlat_spikes_total` | counter | `cpu`, `thread`, `above` (seconds) |
//! | `rtlat_samples_lost_total` | counter | `cpu`, `thread` |
//! | `rtlat_system_info` | gauge, 1 | `host`, `kernel_release`, `preempt_rt`, `isolated_cpus`, `governor`, `version`, `window_seconds` |
//! | `rtlat_audit_worst_severity` | gauge: 0 ok, 1 info, 2 warn, 3 fail, -1 not run | — |
//! | `rtlat_audit_up` | gauge: 1 the last audit ran, 0 not | — |
//! | `rtlat_tuning_drift` | gauge: 1 the item drifted from the profile, 0 not (`--profile-verify` only) | `item` (`rtlat verify`'s ids) |
//! | `rtlat_tuning_drifted_items` | gauge: how many drifted, -1 not verified (`--profile-verify` only) | — |
//! | `rtlat_window_max_cause_info` | gauge, 1 (`--explain` only) | `cpu`, `thread`, `cause`, `audit` |
//! | `rtlat_timerlat_latency_seconds` | histogram, the same buckets (`--timerlat` only) | `cpu`, `context` (`irq`, `thread`, `user`) |
//! | `rtlat_timerlat_lost_events_total` | counter (`--timerlat` only) | `cpu` |

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

/// A label set: (name, value) pairs.
pub type Labels = Vec<(String, String)>;
/// A gauge of seconds.
pub type Seconds = Gauge<f64, AtomicU64>;

/// The histogram's bucket bounds, seconds: 1-2-5 steps from 1 µs to 10 ms (and +Inf).
pub const BUCKETS: [f64; 13] = [
    1e-6, 2e-6, 5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3,
];

fn latency_histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// One measuring thread's metric handles.
#[derive(Debug, Clone)]
pub struct ThreadMetrics {
    /// Every latency drained from the thread's ring, seconds.
    pub latency: Histogram,
    /// Cycles measured (the engine's count).
    pub cycles: Counter,
    /// Deadlines missed (the engine's count).
    pub overruns: Counter,
    /// Least latency since start.
    pub min: Seconds,
    /// Largest latency since start.
    pub max: Seconds,
    /// Largest latency of the window under way.
    pub window_current: Seconds,
    /// Largest latency of the last closed window.
    pub window_last: Seconds,
    /// Latencies above each `--spike-above` threshold (ascending, as the thresholds).
    pub spikes: Vec<Counter>,
    /// Samples the ring dropped before they were read (in cycles and min/max, not in the
    /// histogram).
    pub lost: Counter,
}

/// The registry and every handle into it.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// Per measuring thread, in thread order.
    pub threads: Vec<ThreadMetrics>,
    info: Family<Labels, Gauge>,
    /// The audit's worst severity (0 ok … 3 fail, -1 not run).
    pub audit_worst: Gauge,
    /// 1 when the last audit ran and gave a report.
    pub audit_up: Gauge,
    /// `--explain`: the likely cause of each thread's last closed window's maximum (not
    /// registered without it).
    window_cause: Option<Family<Labels, Gauge>>,
    /// `--timerlat`: the tracer's families (not registered without it).
    pub timerlat: Option<TimerlatMetrics>,
    /// `--profile-verify`: the profile's items (not registered without it).
    pub drift: Option<DriftMetrics>,
}

/// `--profile-verify`'s metrics: each item of the last verification (the family is
/// replaced whole each time: an item that no longer exists, such as an IRQ moved back, goes).
#[derive(Debug, Clone)]
pub struct DriftMetrics {
    /// `rtlat_tuning_drift{item}`.
    pub items: Family<Labels, Gauge>,
    /// `rtlat_tuning_drifted_items`.
    pub drifted: Gauge,
}

/// `--timerlat`'s families: each part of the tracer's wake-ups per CPU, and the events its
/// ring buffer lost.
#[derive(Debug, Clone)]
pub struct TimerlatMetrics {
    /// `rtlat_timerlat_latency_seconds{cpu, context}`.
    pub latency: Family<Labels, Histogram, fn() -> Histogram>,
    /// `rtlat_timerlat_lost_events_total{cpu}`.
    pub lost: Family<Labels, Counter>,
}

/// A measuring thread's identity in the labels.
#[derive(Debug, Clone, Copy)]
pub struct ThreadId {
    /// Thread number.
    pub index: usize,
    /// Its CPU.
    pub cpu: usize,
}

/// `text` as a label value of both text formats: `\`, `"` and line feeds escaped (the encoder
/// writes label values as given).
pub fn label_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// A duration in seconds as a label value (`0.00005`).
pub fn seconds_label(ns: i64) -> String {
    format!("{}", ns as f64 / 1e9)
}

impl Metrics {
    /// The registry for `threads`, with one spike counter per threshold (ns).
    pub fn new(threads: &[ThreadId], thresholds_ns: &[i64]) -> Metrics {
        let mut registry = Registry::default();
        let latency =
            Family::<Labels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        let cycles = Family::<Labels, Counter>::default();
        let overruns = Family::<Labels, Counter>::default();
        let min = Family::<Labels, Seconds>::default();
        let max = Family::<Labels, Seconds>::default();
        let window = Family::<Labels, Seconds>::default();
        let spikes = Family::<Labels, Counter>::default();
        let lost = Family::<Labels, Counter>::default();
        let info = Family::<Labels, Gauge>::default();
        let audit_worst = Gauge::default();
        let audit_up = Gauge::default();
        audit_worst.set(-1);
        registry.register(
            "rtlat_latency_seconds",
            "Wake-up latency of each measuring thread (wake-up minus deadline), seconds",
            latency.clone(),
        );
        registry.register(
            "rtlat_cycles",
            "Cycles measured by each thread",
            cycles.clone(),
        );
        registry.register(
            "rtlat_overruns",
            "Deadlines missed by each thread (a wake-up more than an interval late)",
            overruns.clone(),
        );
        registry.register(
            "rtlat_latency_min_seconds",
            "Least latency since the monitor started, seconds",
            min.clone(),
        );
        registry.register(
            "rtlat_latency_max_seconds",
            "Largest latency since the monitor started, seconds",
            max.clone(),
        );
        registry.register(
            "rtlat_window_max_seconds",
            "Largest latency of the window under way (window=current) and of the last closed one (window=last), seconds",
            window.clone(),
        );
        registry.register(
            "rtlat_spikes",
            "Latencies above each --spike-above threshold (above, seconds)",
            spikes.clone(),
        );
        registry.register(
            "rtlat_samples_lost",
            "Latencies the monitor could not read in time (counted in cycles, min and max, missing from the histogram)",
            lost.clone(),
        );
        registry.register(
            "rtlat_system_info",
            "The measured machine: host, kernel release, PREEMPT_RT, isolated CPUs, governor, rtlat version",
            info.clone(),
        );
        registry.register(
            "rtlat_audit_worst_severity",
            "Worst severity of rtlat audit's findings: 0 ok, 1 info, 2 warn, 3 fail, -1 not run",
            audit_worst.clone(),
        );
        registry.register(
            "rtlat_audit_up",
            "1 when the last rtlat audit ran and gave a report, 0 when it could not",
            audit_up.clone(),
        );
        let threads = threads
            .iter()
            .map(|t| {
                let labels = || -> Labels {
                    vec![
                        ("cpu".into(), t.cpu.to_string()),
                        ("thread".into(), t.index.to_string()),
                    ]
                };
                let with = |name: &str, value: String| -> Labels {
                    let mut l = labels();
                    l.push((name.into(), value));
                    l
                };
                ThreadMetrics {
                    latency: latency.get_or_create_owned(&labels()),
                    cycles: cycles.get_or_create_owned(&labels()),
                    overruns: overruns.get_or_create_owned(&labels()),
                    min: min.get_or_create_owned(&labels()),
                    max: max.get_or_create_owned(&labels()),
                    window_current: window.get_or_create_owned(&with("window", "current".into())),
                    window_last: window.get_or_create_owned(&with("window", "last".into())),
                    spikes: thresholds_ns
                        .iter()
                        .map(|&ns| spikes.get_or_create_owned(&with("above", seconds_label(ns))))
                        .collect(),
                    lost: lost.get_or_create_owned(&labels()),
                }
            })
            .collect();
        Metrics {
            registry,
            threads,
            info,
            audit_worst,
            audit_up,
            window_cause: None,
            timerlat: None,
            drift: None,
        }
    }

    /// Registers `--profile-verify`'s metrics ([`DriftMetrics`]): no item, -1 drifted, until
    /// the first verification.
    pub fn add_drift(&mut self) {
        let items = Family::<Labels, Gauge>::default();
        let drifted = Gauge::default();
        drifted.set(-1);
        self.registry.register(
            "rtlat_tuning_drift",
            "1 for each item of the --profile-verify profile that differs from the machine, 0 for each that does not (rtlat verify's ids)",
            items.clone(),
        );
        self.registry.register(
            "rtlat_tuning_drifted_items",
            "How many items of the --profile-verify profile differ from the machine; -1 when it could not be verified",
            drifted.clone(),
        );
        self.drift = Some(DriftMetrics { items, drifted });
    }

    /// Replaces the drift metrics with a verification's items (`(id, drifted)`), or marks it
    /// failed (`None`).
    pub fn set_drift(&self, items: Option<&[(String, bool)]>) {
        let Some(drift) = &self.drift else {
            return;
        };
        drift.items.clear();
        match items {
            Some(items) => {
                for (id, drifted) in items {
                    drift
                        .items
                        .get_or_create(&vec![("item".to_owned(), id.clone())])
                        .set(i64::from(*drifted));
                }
                drift
                    .drifted
                    .set(items.iter().filter(|(_, d)| *d).count() as i64);
            }
            None => {
                drift.drifted.set(-1);
            }
        }
    }

    /// Registers `--timerlat`'s families ([`TimerlatMetrics`]), empty until the trace is read.
    pub fn add_timerlat(&mut self) {
        let latency =
            Family::<Labels, Histogram, fn() -> Histogram>::new_with_constructor(latency_histogram);
        let lost = Family::<Labels, Counter>::default();
        self.registry.register(
            "rtlat_timerlat_latency_seconds",
            "The kernel's timerlat tracer on each measured CPU (rtlat monitor --timerlat): how late its timer IRQ ran (context irq), the woken thread ran (thread) and, where the measuring threads are its workload, they were back at their next read (user), seconds",
            latency.clone(),
        );
        self.registry.register(
            "rtlat_timerlat_lost_events",
            "Events of the timerlat trace its ring buffer dropped before they were read, per CPU",
            lost.clone(),
        );
        self.timerlat = Some(TimerlatMetrics { latency, lost });
    }

    /// Registers `rtlat_window_max_cause_info` (`--explain`), empty until a window closes.
    pub fn add_window_causes(&mut self) {
        let family = Family::<Labels, Gauge>::default();
        self.registry.register(
            "rtlat_window_max_cause_info",
            "The likely cause of each thread's largest latency in the last closed window (rtlat monitor --explain): the first cause found (empty: none), and the rtlat audit check that covers it (empty: none)",
            family.clone(),
        );
        self.window_cause = Some(family);
    }

    /// Replaces a thread's window cause: `previous` (its labels as last set) goes, `labels`
    /// shows. Nothing without [`Metrics::add_window_causes`].
    pub fn set_window_cause(&self, previous: Option<&Labels>, labels: &Labels) {
        if let Some(family) = &self.window_cause {
            if let Some(previous) = previous {
                family.remove(previous);
            }
            family.get_or_create(labels).set(1);
        }
    }

    /// Replaces the info metric's labels.
    pub fn set_info(&self, labels: Labels) {
        self.info.clear();
        self.info.get_or_create(&labels).set(1);
    }

    /// The OpenMetrics text exposition (prometheus-client's encoder), `# EOF` included.
    pub fn openmetrics(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }

    /// The Prometheus text format (0.0.4) of the same metrics: what node_exporter's textfile
    /// collector and `promtool check metrics` read. prometheus-client writes OpenMetrics only
    /// (its issue #51); the two differ, for these metrics, in two things only, which this
    /// adds to its output: a counter's `# HELP` and `# TYPE` name its `_total` samples, and
    /// there is no `# EOF`. (No unit, info type or `_created` sample is used.)
    pub fn prometheus_text(&self) -> String {
        prometheus_text(&self.openmetrics())
    }
}

/// See [`Metrics::prometheus_text`].
pub fn prometheus_text(openmetrics: &str) -> String {
    let counters: Vec<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len() + 64);
    for line in openmetrics.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(&name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        match renamed {
            Some(line) => out.push_str(&line),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_every_family_and_the_classic_text_names_counters_by_their_samples() {
        let m = Metrics::new(&[ThreadId { index: 0, cpu: 3 }], &[50_000]);
        let t = &m.threads[0];
        t.latency.observe(12e-6);
        t.cycles.inc_by(5);
        t.spikes[0].inc();
        m.set_info(vec![("host".into(), "a".into())]);
        m.set_info(vec![("host".into(), "b".into())]);
        let om = m.openmetrics();
        assert!(om.ends_with("# EOF\n"), "{om}");
        assert!(om.contains("# TYPE rtlat_cycles counter"), "{om}");
        assert!(
            om.contains("rtlat_cycles_total{cpu=\"3\",thread=\"0\"} 5"),
            "{om}"
        );
        assert!(
            om.contains("rtlat_latency_seconds_bucket{le=\"0.00001\",cpu=\"3\",thread=\"0\"} 0"),
            "{om}"
        );
        assert!(
            om.contains("rtlat_latency_seconds_bucket{le=\"0.00002\",cpu=\"3\",thread=\"0\"} 1"),
            "{om}"
        );
        assert!(om.contains("above=\"0.00005\""), "{om}");
        assert!(om.contains("host=\"b\""), "{om}");
        assert!(!om.contains("host=\"a\""), "the info is replaced: {om}");
        assert!(!om.contains("rtlat_window_max_cause_info"), "{om}");
        let classic = prometheus_text(&om);
        assert!(!classic.contains("# EOF"));
        assert!(
            classic.contains("# TYPE rtlat_cycles_total counter\n"),
            "{classic}"
        );
        assert!(
            classic.contains("# HELP rtlat_cycles_total Cycles"),
            "{classic}"
        );
        assert!(classic.contains("# TYPE rtlat_latency_seconds histogram\n"));
    }

    #[test]
    fn a_window_cause_replaces_the_last_one_and_its_label_values_are_escaped() {
        let mut m = Metrics::new(&[ThreadId { index: 0, cpu: 1 }], &[]);
        m.add_window_causes();
        let om = m.openmetrics();
        assert!(
            !om.contains("rtlat_window_max_cause_info"),
            "no window closed yet: {om}"
        );
        let labels = |cause: &str| -> Labels {
            vec![
                ("cpu".into(), "1".into()),
                ("thread".into(), "0".into()),
                ("cause".into(), label_value(cause)),
                ("audit".into(), String::new()),
            ]
        };
        let first = labels("task \"a\\b\"\nx");
        m.set_window_cause(None, &first);
        let om = m.openmetrics();
        assert!(
            om.contains("# TYPE rtlat_window_max_cause_info gauge"),
            "{om}"
        );
        assert!(
            om.contains("cause=\"task \\\"a\\\\b\\\"\\nx\",audit=\"\"} 1"),
            "{om}"
        );
        m.set_window_cause(Some(&first), &labels("IRQ 24"));
        let om = m.openmetrics();
        assert_eq!(
            om.matches("rtlat_window_max_cause_info{").count(),
            1,
            "{om}"
        );
        assert!(om.contains("cause=\"IRQ 24\""), "{om}");
    }
}
