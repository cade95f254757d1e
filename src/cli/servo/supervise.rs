//! The main thread while the servo threads run: the table redrawn (unless `-q`), the run
//! ended on Ctrl-C, at the end of `-D`, or when a thread stops; `--explain`'s records kept
//! fresh. Driven by rtlat-engine's session ([`Supervisor`]).

use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_engine::LiveStatus;
use rtlat_engine::servo::{Figures, Shared};
use rtlat_engine::session::{Pass, Supervisor};

use super::explain::Explainer;
use super::options::Config;
use super::table::{Row, table};

/// How often the live lines are redrawn.
const REFRESH: Duration = Duration::from_millis(100);

/// The servo front's periodic work.
pub(super) struct Live<'a> {
    pub(super) config: &'a Config,
    pub(super) shared: &'a Shared,
    pub(super) rows: &'a [Row],
    pub(super) started: Instant,
    pub(super) explainer: Option<Explainer>,
    /// No table drawn yet.
    first: bool,
}

impl<'a> Live<'a> {
    /// Prints the run's opening lines (unless `-q`) and returns its supervisor.
    pub(super) fn start(
        config: &'a Config,
        shared: &'a Shared,
        rows: &'a [Row],
        (cpu, priorities): (usize, &str),
        started: Instant,
        explainer: Option<Explainer>,
    ) -> Live<'a> {
        if !config.quiet {
            outln!(
                "rtlat servo: LinuxCNC's latency test on CPU {cpu}, SCHED_FIFO ({priorities}).\n\
                 Let it run a few minutes while the machine is busy (browse, copy files, play a video),\n\
                 then read the max jitter. {}",
                match config.duration {
                    Some(d) => format!("It ends after {} s (or Ctrl-C).", d.as_secs()),
                    None => "Ctrl-C ends it.".to_string(),
                }
            );
        }
        Live {
            config,
            shared,
            rows,
            started,
            explainer,
            first: true,
        }
    }

    /// The table of the live figures, after moving back over the previous one (as
    /// cyclictest redraws) unless it is the first.
    fn redraw(&mut self) {
        let figures: Vec<Figures> = self
            .shared
            .live
            .iter()
            .zip(self.rows)
            .map(|(l, r)| Figures::from_live(&l.read(), r.period_ns))
            .collect();
        let mut out = String::new();
        if !self.first {
            out.push_str(&format!("\x1b[{}A", self.rows.len() + 1));
        }
        self.first = false;
        table(&mut out, self.rows, &figures);
        // A reader gone (`| head`) ends the run (see `rtlat::stdio`).
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
        {
            rtlat::stdio::stdout_failed(&e);
        }
    }
}

impl Supervisor for Live<'_> {
    fn cadence(&self) -> Duration {
        REFRESH
    }

    fn all_done(&self) -> bool {
        self.shared.live.iter().all(LiveStatus::finished)
    }

    fn pass(&mut self, pass: Pass) {
        // Once the run ends, nothing is drawn until every thread is done (`ended`).
        if pass == Pass::Ending {
            return;
        }
        if let Some(explainer) = self.explainer.as_mut() {
            explainer.update(self.shared);
        }
        if !self.config.quiet {
            self.redraw();
        }
    }

    fn should_end(&mut self) -> bool {
        // A reader gone (`| head`) ends the run as a stop signal does (see `rtlat::stdio`).
        self.shared.live.iter().any(LiveStatus::finished)
            || rtlat::stdio::reader_gone()
            || self
                .config
                .duration
                .is_some_and(|d| self.started.elapsed() >= d)
    }

    fn end(&self) {
        self.shared.stop.store(true, Ordering::Release);
    }

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

    fn ended(&mut self) {
        // The final figures, once every thread has left its loop.
        if !self.config.quiet {
            self.redraw();
        }
    }
}
