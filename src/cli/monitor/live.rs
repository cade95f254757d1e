//! The monitor's main thread while its threads measure ([`Drain`], the session's
//! supervisor): every [`DRAIN_EVERY`] the threads' rings and live figures go into the
//! metrics, `--explain`'s causes are brought up to date, and at each window's end the
//! windows close (the info labels made again, the textfile written).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_engine::LiveStatus;
use rtlat_engine::run::RunShared;
use rtlat_engine::session::{Pass, Supervisor};

use super::causes::WindowCauses;
use super::metrics::{Labels, Metrics};
use super::options::MonitorConfig;
use super::textfile;
use super::windows::{ThreadWindows, WindowClock};

/// How often the main thread drains the rings and reads the live figures.
pub const DRAIN_EVERY: Duration = Duration::from_millis(100);

/// What the monitor's main thread works on while the threads measure.
pub struct Drain<'a> {
    config: &'a MonitorConfig,
    shared: &'a RunShared,
    windows: &'a mut [ThreadWindows],
    metrics: &'a Metrics,
    /// The info metric's labels, made again each window (a governor changed shows).
    info_now: &'a dyn Fn() -> Labels,
    causes: Option<WindowCauses>,
    clock: WindowClock,
}

impl<'a> Drain<'a> {
    /// Windows of `--window` from now; `causes`: `--explain`'s sampler, started.
    pub fn new(
        config: &'a MonitorConfig,
        shared: &'a RunShared,
        windows: &'a mut [ThreadWindows],
        (metrics, info_now): (&'a Metrics, &'a dyn Fn() -> Labels),
        causes: Option<WindowCauses>,
    ) -> Drain<'a> {
        Drain {
            config,
            shared,
            windows,
            metrics,
            info_now,
            causes,
            clock: WindowClock::new(config.window),
        }
    }
}

impl Supervisor for Drain<'_> {
    fn cadence(&self) -> Duration {
        DRAIN_EVERY
    }

    fn all_done(&self) -> bool {
        self.shared.live.iter().all(LiveStatus::finished)
    }

    fn pass(&mut self, _: Pass) {
        drain(self.shared, self.windows);
        if let Some(causes) = self.causes.as_mut() {
            causes.update(self.windows, self.metrics);
        }
        if self.clock.ended(Instant::now()) {
            self.metrics.set_info((self.info_now)());
            close_windows(
                self.config,
                self.windows,
                self.metrics,
                self.causes.as_mut(),
            );
        }
    }

    fn end(&self) {
        self.shared.stop.store(true, Ordering::Release);
    }

    /// As `rtlat run` ends: the sleeping threads woken now, their interrupted cycle not
    /// counted.
    fn ending(&self) -> bool {
        self.shared.stop.load(Ordering::Acquire)
    }

    fn running(&self) -> Vec<i32> {
        self.shared
            .live
            .iter()
            .filter(|l| !l.finished())
            .map(LiveStatus::tid)
            .collect()
    }
}

/// Drains every thread's ring and live figures into the metrics.
pub fn drain(shared: &RunShared, windows: &mut [ThreadWindows]) {
    for ((w, ring), live) in windows.iter_mut().zip(&shared.rings).zip(&shared.live) {
        if let Some(ring) = ring {
            w.drain(ring, live);
        }
    }
}

/// A window has ended: its maxima become the last window's, the textfile is written.
/// With `--explain`, each window's maximum's cause is told.
fn close_windows(
    config: &MonitorConfig,
    windows: &mut [ThreadWindows],
    metrics: &Metrics,
    mut causes: Option<&mut WindowCauses>,
) {
    for (i, w) in windows.iter_mut().enumerate() {
        let closed = w.close_window();
        if let Some(causes) = causes.as_deref_mut() {
            causes.close(i, closed, w, metrics);
        }
    }
    if let Some(path) = &config.textfile
        && let Err(e) = textfile::write(path, metrics)
    {
        errln!("rtlat monitor: {e}");
    }
}
