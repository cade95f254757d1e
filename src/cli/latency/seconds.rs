//! The main thread during a `latency` run: each second's `RTD|` line as the sampling thread
//! completes it ([`Live`], the session's supervisor), and the figures gathered from the
//! reported seconds ([`Seconds`]) that `RTS|` and the histograms are made of.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_core::Record;
use rtlat_core::report::XenomaiLine;
use rtlat_engine::Window;
use rtlat_engine::latency::Shared;
use rtlat_engine::latency::histogram::XenomaiHistogram;
use rtlat_engine::session::{Pass, Supervisor};

use super::options::Config;
use super::output::{self, Overall};
use super::{print_now, seconds_since};

/// How often the main thread looks for finished seconds and for the end of the run.
const POLL: Duration = Duration::from_millis(20);

/// What the main thread gathers from the reported seconds.
#[derive(Debug, Clone)]
pub struct Seconds {
    /// Seconds reported (`RTD|` lines, printed or not with `-q`).
    pub reported: u64,
    /// The best latency of the reported seconds, ns.
    pub best_ns: i64,
    /// The worst latency of the reported seconds, ns.
    pub worst_ns: i64,
    /// Sum of the reported seconds' averages, ns.
    avg_sum_ns: i128,
    overruns: u64,
    /// The per-second minima, Xenomai's way.
    pub min_histogram: XenomaiHistogram,
    /// The per-second maxima, Xenomai's way.
    pub max_histogram: XenomaiHistogram,
    /// `RTD|` lines printed so far (a header comes before every `-l`-th).
    lines: u64,
}

impl Seconds {
    /// Nothing reported yet: Xenomai's initial best and worst, empty histograms of the
    /// configured cells and bucket width.
    pub fn new(config: &Config) -> Result<Seconds, String> {
        let histogram = || {
            XenomaiHistogram::new(config.cells, config.bucket_ns)
                .ok_or_else(|| "the histogram needs at least one cell".to_string())
        };
        Ok(Seconds {
            reported: 0,
            // Xenomai's initial values, shown when no second was reported.
            best_ns: 10_000_000,
            worst_ns: -10_000_000,
            avg_sum_ns: 0,
            overruns: 0,
            min_histogram: histogram()?,
            max_histogram: histogram()?,
            lines: 0,
        })
    }

    /// The run's figures for `RTS|`: the mean of the seconds' averages.
    pub fn overall(&self) -> Overall {
        let avg = self.avg_sum_ns / i128::from(self.reported.max(1));
        Overall {
            min_ns: self.best_ns,
            avg_ns: avg.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
            max_ns: self.worst_ns,
            overruns: self.overruns,
            mode_switches: 0,
        }
    }

    /// Accounts for one window from the sampling thread; writes its `RTD|` line (and a header
    /// every `-l` lines) to `out` unless `-q`.
    fn report(&mut self, config: &Config, w: &Window, started: Instant, out: &mut String) {
        // The warm-up second, and the second under way when the run ended, are not reported.
        if w.index == 0 || w.cycles == 0 || !w.complete {
            return;
        }
        let avg = w.avg_ns().unwrap_or(0);
        self.reported += 1;
        self.best_ns = self.best_ns.min(w.min_ns);
        self.worst_ns = self.worst_ns.max(w.max_ns);
        self.avg_sum_ns += i128::from(avg);
        self.overruns = self.overruns.saturating_add(w.overruns);
        self.min_histogram.record(w.min_ns);
        self.max_histogram.record(w.max_ns);
        if config.quiet {
            return;
        }
        if config.lines > 0 && self.lines.is_multiple_of(config.lines) {
            let elapsed = seconds_since(started).saturating_sub(1);
            output::rtt(out, elapsed, config.period_us, config.priority);
            out.push_str(output::RTH);
            out.push('\n');
        }
        self.lines += 1;
        output::rtd(
            out,
            &XenomaiLine {
                min_ns: w.min_ns,
                avg_ns: avg,
                max_ns: w.max_ns,
                overruns: self.overruns,
                mode_switches: 0,
                best_ns: self.best_ns,
                worst_ns: self.worst_ns,
            },
        );
    }
}

/// The session's supervisor for a `latency` run: prints each second as it completes; the
/// run ends on a stop signal (Ctrl-C, SIGTERM, SIGHUP, SIGALRM), a reader gone, or when the
/// sampling thread stops on its own (at the end of `-T`, which it keeps itself). Once the
/// run is ending its sleep is cancelled and the cycle it waited for is not measured, as when
/// Xenomai's `latency` cancels its sampling task; what it measured of the second under way
/// is in the "avg" histogram (as in Xenomai), and that second is not reported.
pub struct Live<'a> {
    config: &'a Config,
    shared: &'a Shared,
    started: Instant,
    /// What the reported seconds gave.
    pub seconds: Seconds,
    out: String,
}

impl<'a> Live<'a> {
    /// Says the run has begun (`warming up...`, and with `-q` how long it runs quietly).
    pub fn start(
        config: &'a Config,
        shared: &'a Shared,
        seconds: Seconds,
        started: Instant,
    ) -> Live<'a> {
        print_now("warming up...\n");
        if config.quiet {
            errln!(
                "running quietly for {} seconds",
                config.duration_s.unwrap_or(0)
            );
        }
        Live {
            config,
            shared,
            started,
            seconds,
            out: String::new(),
        }
    }
}

impl Supervisor for Live<'_> {
    fn cadence(&self) -> Duration {
        POLL
    }

    fn all_done(&self) -> bool {
        self.shared.finished.load(Ordering::Acquire)
    }

    fn pass(&mut self, pass: Pass) {
        if pass == Pass::Ending {
            return;
        }
        self.out.clear();
        let (config, started) = (self.config, self.started);
        let (seconds, out) = (&mut self.seconds, &mut self.out);
        self.shared
            .windows
            .drain(|w| seconds.report(config, &w, started, out));
        print_now(&self.out);
    }

    fn should_end(&mut self) -> bool {
        rtlat::stdio::reader_gone()
    }

    fn end(&self) {
        self.shared.stop.store(true, Ordering::Release);
    }

    fn ending(&self) -> bool {
        self.shared.stop.load(Ordering::Acquire)
    }

    fn running(&self) -> Vec<i32> {
        if self.all_done() {
            Vec::new()
        } else {
            vec![self.shared.tid.load(Ordering::Acquire)]
        }
    }
}
