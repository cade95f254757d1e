//! `rtlat monitor --explain`: why each window's maximum. `rtlat run --explain`'s evidence
//! sampler ([`Explainer`]) runs on the CPUs no thread measures; each pass of the main thread
//! explains the largest latency of each thread's window under way as soon as the sampler has
//! sampled past its wake-up (a new maximum replaces it), so its evidence (kept about 2 s) is
//! never too old whatever the window's length. When a window closes, its maximum's first
//! cause replaces the thread's `rtlat_window_max_cause_info` series, and a line on stderr
//! tells it when the maximum is above the threshold (`--explain-above`, else the thread's
//! p99.9 so far).
//!
//! Only window maxima are explained (one scan of the sampler's ring each, a few per window),
//! not every latency above the threshold as `rtlat run --explain` does: a monitor runs for
//! days, and its main thread stays cheap.

use rtlat_system::noise::{SpikeRecord, Threshold, Verdict};

use super::metrics::{Labels, Metrics, label_value};
use super::windows::{ThreadWindows, WindowMax};
use crate::cli::cyclic::explain::{self, Explainer};
use crate::cli::cyclic::options::{Plan, RunConfig, Unit};
use crate::cli::explain::TracerUse;

/// Samples before a thread's p99.9 is the threshold of the stderr line (before that, every
/// window's maximum is told).
const P999_AFTER: u64 = rtlat_system::noise::watch::P999_AFTER;

/// One thread's window maxima being explained.
#[derive(Debug, Default)]
struct ThreadCause {
    /// The window under way's maximum and, once the sampler passed it, its record.
    current: Option<(WindowMax, Option<SpikeRecord>)>,
    /// A closed window's maximum whose evidence was not sampled yet.
    closed: Option<WindowMax>,
    /// The labels of the thread's cause series now shown.
    shown: Option<Labels>,
}

/// The sampler and each thread's window maxima.
#[derive(Debug)]
pub struct WindowCauses {
    explainer: Explainer,
    threshold: Threshold,
    nanoseconds: bool,
    /// Per thread, in the plan's order: (thread number, CPU).
    ids: Vec<(u32, usize)>,
    threads: Vec<ThreadCause>,
}

impl WindowCauses {
    /// Starts the sampler for the measuring threads of `plan`, whose thread ids are `tids`
    /// (set up, not measuring yet), as `rtlat run --explain` does: the sampler on the
    /// `default_cpus` (the process's affinity mask) no thread measures.
    pub fn start(
        config: &RunConfig,
        plan: &Plan,
        default_cpus: &[usize],
        tids: &[i32],
    ) -> Result<WindowCauses, String> {
        // Each window is explained while the monitor runs, from the sampler; the tracer's
        // events are read once, at the end, so it is not started (its buffer would fill for
        // nothing, and the started line would claim it).
        let tracer = TracerUse::Skip("monitor explains each window as it ends, from the sampler");
        let explainer = Explainer::start(config, plan, default_cpus, tids, tracer)?;
        Ok(WindowCauses {
            explainer,
            threshold: explain::threshold(config),
            nanoseconds: config.unit == Unit::Ns,
            ids: plan.threads.iter().map(|t| (t.index, t.cpu)).collect(),
            threads: plan
                .threads
                .iter()
                .map(|_| ThreadCause::default())
                .collect(),
        })
    }

    /// The line printed on stderr when the monitor starts.
    pub fn started_line(&self) -> String {
        self.explainer.started_line()
    }

    /// After a drain: explains each window's maximum so far, and a closed window's whose
    /// evidence has come since.
    pub fn update(&mut self, windows: &[ThreadWindows], metrics: &Metrics) {
        for i in 0..self.threads.len() {
            let Some(w) = windows.get(i) else { continue };
            if let Some(max) = w.current_max() {
                let thread = &mut self.threads[i];
                if thread.current.as_ref().is_none_or(|(m, _)| *m != max) {
                    thread.current = Some((max, None));
                }
                if let Some((max, record @ None)) = &mut thread.current {
                    *record = self
                        .explainer
                        .explain_now(i, max.cycle, max.latency_ns, max.wake);
                }
            }
            if let Some(closed) = self.threads[i].closed {
                let record =
                    self.explainer
                        .explain_now(i, closed.cycle, closed.latency_ns, closed.wake);
                if let Some(record) = record {
                    self.threads[i].closed = None;
                    self.tell(i, &record, w, metrics);
                }
            }
        }
    }

    /// Thread `i`'s window has closed with maximum `closed` (`None`: no sample in it): its
    /// cause is told now, or once its evidence has come.
    pub fn close(
        &mut self,
        i: usize,
        closed: Option<WindowMax>,
        w: &ThreadWindows,
        metrics: &Metrics,
    ) {
        let Some(thread) = self.threads.get_mut(i) else {
            return;
        };
        let current = thread.current.take();
        let Some(closed) = closed else { return };
        match current {
            Some((max, Some(record))) if max == closed => self.tell(i, &record, w, metrics),
            _ => self.threads[i].closed = Some(closed),
        }
    }

    /// Shows thread `i`'s window cause: its series replaced, and the stderr line when the
    /// maximum is above the threshold.
    fn tell(&mut self, i: usize, record: &SpikeRecord, w: &ThreadWindows, metrics: &Metrics) {
        let (index, cpu) = self.ids[i];
        let first = match &record.verdict {
            Verdict::Causes(causes) => causes.first(),
            Verdict::Unexplained(_) => None,
        };
        let labels: Labels = vec![
            ("cpu".into(), cpu.to_string()),
            ("thread".into(), index.to_string()),
            (
                "cause".into(),
                label_value(first.map_or("", |c| short(&c.text))),
            ),
            (
                "audit".into(),
                label_value(first.and_then(|c| c.audit).unwrap_or("")),
            ),
        ];
        let thread = &mut self.threads[i];
        metrics.set_window_cause(thread.shown.as_ref(), &labels);
        thread.shown = Some(labels);
        let threshold_ns = match self.threshold {
            Threshold::ExplainAbove(ns) | Threshold::Break(ns) => Some(ns),
            Threshold::P999 if w.histogram().count() >= P999_AFTER => {
                w.histogram().percentile(99.9)
            }
            Threshold::P999 => None,
        };
        if threshold_ns.is_none_or(|t| record.latency_ns > t) {
            errln!("{}", line(index, record, self.nanoseconds));
        }
    }
}

/// The stderr line of a window's maximum: `# window T:0 max 457 µs: <first cause> (rtlat
/// audit: <check>)`, or `no cause found`, or `no verdict: <why>`.
pub fn line(index: u32, record: &SpikeRecord, nanoseconds: bool) -> String {
    let latency = if nanoseconds {
        format!("{} ns", record.latency_ns)
    } else {
        format!("{} µs", record.latency_ns / 1000)
    };
    let cause = match &record.verdict {
        Verdict::Causes(causes) => causes
            .first()
            .map_or_else(|| "no cause found".to_string(), ToString::to_string),
        Verdict::Unexplained(why) => format!("no verdict: {why}"),
    };
    format!("# window T:{index} max {latency}: {cause}")
}

/// A cause's evidence without its remedy: its text up to the first `: `.
fn short(text: &str) -> &str {
    text.split_once(": ").map_or(text, |(evidence, _)| evidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_system::noise::Cause;

    fn record(verdict: Verdict) -> SpikeRecord {
        SpikeRecord {
            cycle: 7,
            latency_ns: 457_300,
            wake_ns: 1,
            window_ns: (0, 1),
            cpu: Some(1),
            max: false,
            verdict,
        }
    }

    #[test]
    fn the_line_names_the_first_cause_and_its_audit_check() {
        let causes = vec![
            Cause {
                score: 2,
                text: "IRQ 24 (eth0) fired 3× on CPU 1 (usually 0): move it with rtlat irq --away-from 1".into(),
                audit: Some("irq.on_isolated"),
            },
            Cause {
                score: 1,
                text: "NET_RX softirq ×3 on CPU 1 (usually 0)".into(),
                audit: None,
            },
        ];
        assert_eq!(
            line(0, &record(Verdict::Causes(causes)), false),
            "# window T:0 max 457 µs: IRQ 24 (eth0) fired 3× on CPU 1 (usually 0): move it with rtlat irq --away-from 1 (rtlat audit: irq.on_isolated)"
        );
        assert_eq!(
            line(2, &record(Verdict::Causes(Vec::new())), true),
            "# window T:2 max 457300 ns: no cause found"
        );
        assert_eq!(
            line(0, &record(Verdict::Unexplained("gone".into())), false),
            "# window T:0 max 457 µs: no verdict: gone"
        );
        assert_eq!(
            short("IRQ 24 (eth0) fired 3× on CPU 1: move it"),
            "IRQ 24 (eth0) fired 3× on CPU 1"
        );
        assert_eq!(short("NET_RX softirq ×3"), "NET_RX softirq ×3");
    }
}
