//! Windows and spikes: what the aggregating thread makes of each measuring thread's samples.
//! It drains the thread's sample ring (rtlat-core's lock-free ring, which the measuring
//! thread writes and never waits on) and its live figures (rtlat-core's sequence lock), and
//! keeps, per thread: the histogram, the spike counters per threshold, the maximum of the
//! window under way and of the last closed one, and its own exact log-linear histogram (for
//! the percentiles it prints at the end). Everything is allocated at start: nothing grows per
//! cycle or per window.

use std::time::{Duration, Instant};

use rtlat_engine::LiveStatus;
use rtlat_engine::rings::SampleRing;
use rtlat_engine::run::{RunHistogram, new_run_histogram};

use super::metrics::ThreadMetrics;

/// A window's largest latency: the sample that had it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowMax {
    /// Its cycle (from 0).
    pub cycle: u64,
    /// Its latency, ns.
    pub latency_ns: i64,
    /// Its wake-up, in the run clock's ticks (ns on CLOCK_MONOTONIC, `--explain`'s clock).
    pub wake: u64,
}

/// One measuring thread's windows, spikes and counts, as last drained.
#[derive(Debug)]
pub struct ThreadWindows {
    metrics: ThreadMetrics,
    thresholds_ns: Vec<i64>,
    /// Largest latency of the window under way (`None`: no sample in it yet).
    current_max: Option<WindowMax>,
    /// Largest latency of the last closed window.
    last_max: Option<i64>,
    /// Cycles and overruns as last published by the thread (the counters get the difference).
    cycles: u64,
    overruns: u64,
    lost: u64,
    /// Every latency drained, exact to 0.78 % (the end-of-run percentiles).
    histogram: Box<RunHistogram>,
}

impl ThreadWindows {
    /// A thread's windows, counting spikes above `thresholds_ns` (ascending).
    pub fn new(metrics: ThreadMetrics, thresholds_ns: &[i64]) -> ThreadWindows {
        ThreadWindows {
            metrics,
            thresholds_ns: thresholds_ns.to_vec(),
            current_max: None,
            last_max: None,
            cycles: 0,
            overruns: 0,
            lost: 0,
            histogram: new_run_histogram(),
        }
    }

    /// Takes one sample: its cycle, latency (ns) and wake-up (clock ticks).
    fn record(&mut self, cycle: u64, latency_ns: i64, wake: u64) {
        self.metrics.latency.observe(latency_ns as f64 / 1e9);
        self.histogram.record(latency_ns);
        if self.current_max.is_none_or(|m| latency_ns > m.latency_ns) {
            self.current_max = Some(WindowMax {
                cycle,
                latency_ns,
                wake,
            });
        }
        // Ascending thresholds: every one below the latency is crossed.
        for (threshold, counter) in self.thresholds_ns.iter().zip(&self.metrics.spikes) {
            if latency_ns <= *threshold {
                break;
            }
            counter.inc();
        }
    }

    /// Drains the thread's ring and reads its live figures into the metrics.
    pub fn drain(&mut self, ring: &SampleRing, live: &LiveStatus) {
        ring.drain(|cycle, latency_ns, wake| self.record(cycle, latency_ns, wake));
        let lost = ring.lost();
        self.metrics.lost.inc_by(lost.saturating_sub(self.lost));
        self.lost = lost;
        let figures = live.read();
        if figures.cycles > 0 {
            self.metrics
                .cycles
                .inc_by(figures.cycles.saturating_sub(self.cycles));
            self.cycles = self.cycles.max(figures.cycles);
            self.metrics
                .overruns
                .inc_by(figures.overruns.saturating_sub(self.overruns));
            self.overruns = self.overruns.max(figures.overruns);
            self.metrics.min.set(figures.min_ns as f64 / 1e9);
            self.metrics.max.set(figures.max_ns as f64 / 1e9);
        }
        if let Some(max) = self.current_max {
            self.metrics.window_current.set(max.latency_ns as f64 / 1e9);
        }
    }

    /// The largest latency of the window under way, as drained so far.
    pub fn current_max(&self) -> Option<WindowMax> {
        self.current_max
    }

    /// Closes the window under way: its maximum becomes the last window's, and is given back
    /// (`None`: no sample in it).
    pub fn close_window(&mut self) -> Option<WindowMax> {
        let closed = self.current_max.take();
        if let Some(max) = closed {
            self.last_max = Some(max.latency_ns);
            self.metrics.window_last.set(max.latency_ns as f64 / 1e9);
        }
        // An empty window (a thread that ended) keeps the last one's figure.
        self.metrics.window_current.set(0.0);
        closed
    }

    /// The exact histogram of every latency drained.
    pub fn histogram(&self) -> &RunHistogram {
        &self.histogram
    }

    /// The maximum of the last closed window, ns.
    pub fn last_window_max(&self) -> Option<i64> {
        self.last_max
    }
}

/// When windows close: every `length` from the start.
#[derive(Debug)]
pub struct WindowClock {
    length: Duration,
    next: Instant,
}

impl WindowClock {
    /// Windows of `length` from now.
    pub fn new(length: Duration) -> WindowClock {
        WindowClock {
            length,
            next: Instant::now() + length,
        }
    }

    /// True once per window, when it has ended (by `now`).
    pub fn ended(&mut self, now: Instant) -> bool {
        if now < self.next {
            return false;
        }
        // A window is never shorter than asked; a late look does not crowd the next ones.
        while self.next <= now {
            self.next += self.length;
        }
        true
    }

    /// Time left in the window under way.
    pub fn left(&self, now: Instant) -> Duration {
        self.next.saturating_duration_since(now)
    }
}

#[cfg(test)]
mod tests {
    use super::super::metrics::{Metrics, ThreadId};
    use super::*;
    use rtlat_engine::LiveFigures;
    use rtlat_engine::rings::sample_ring;

    #[test]
    fn spikes_windows_and_counts() {
        let metrics = Metrics::new(&[ThreadId { index: 0, cpu: 0 }], &[50_000, 100_000]);
        let mut w = ThreadWindows::new(metrics.threads[0].clone(), &[50_000, 100_000]);
        let ring = sample_ring(16);
        let live = LiveStatus::default();
        for (cycle, latency) in [(1, 10_000), (2, 60_000), (3, 150_000), (4, 100_000)] {
            ring.push(cycle, latency, 0);
        }
        live.publish(&LiveFigures {
            cycles: 4,
            min_ns: 10_000,
            act_ns: 100_000,
            max_ns: 150_000,
            sum_ns: 320_000,
            overruns: 1,
            smis: 0,
        });
        w.drain(&ring, &live);
        let t = &metrics.threads[0];
        assert_eq!(t.spikes[0].get(), 3, "above 50 µs: 60, 150, 100");
        assert_eq!(t.spikes[1].get(), 1, "above 100 µs: 150 only");
        assert_eq!(t.cycles.get(), 4);
        assert_eq!(t.overruns.get(), 1);
        assert!(
            metrics
                .openmetrics()
                .contains("rtlat_latency_seconds_count{cpu=\"0\",thread=\"0\"} 4")
        );
        assert_eq!(t.window_current.get(), 150e-6);
        assert_eq!(
            w.close_window(),
            Some(WindowMax {
                cycle: 3,
                latency_ns: 150_000,
                wake: 0
            }),
            "the window's largest latency, first of equals"
        );
        assert_eq!(t.window_last.get(), 150e-6);
        assert_eq!(t.window_current.get(), 0.0);
        ring.push(5, 20_000, 7);
        live.publish(&LiveFigures {
            cycles: 5,
            min_ns: 10_000,
            act_ns: 20_000,
            max_ns: 150_000,
            sum_ns: 340_000,
            overruns: 1,
            smis: 0,
        });
        w.drain(&ring, &live);
        assert_eq!(t.cycles.get(), 5, "counters advance by the difference");
        assert_eq!(t.window_current.get(), 20e-6);
        assert_eq!(w.current_max().map(|m| (m.cycle, m.wake)), Some((5, 7)));
        w.close_window();
        assert_eq!(w.last_window_max(), Some(20_000));
        assert_eq!(w.histogram().count(), 5);
    }

    #[test]
    fn windows_close_once_per_length() {
        let mut clock = WindowClock::new(Duration::from_secs(10));
        let start = Instant::now();
        assert!(!clock.ended(start));
        assert!(clock.ended(start + Duration::from_secs(11)));
        assert!(!clock.ended(start + Duration::from_secs(12)));
        assert!(
            clock.ended(start + Duration::from_secs(35)),
            "late: one close"
        );
        assert!(!clock.ended(start + Duration::from_secs(39)));
    }
}
