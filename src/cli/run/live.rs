//! The main thread while a run measures ([`Live`], the session's supervisor): answers SIGUSR1
//! and SIGUSR2, redraws cyclictest's live lines (or prints the `-v` samples), feeds
//! `--explain` its wake-ups and the time series its seconds, and ends the run on a reader
//! gone from standard output or a duration long past (the threads end themselves at `-D`;
//! a stop signal ends it in the session's loop).

use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_engine::run::RunShared;
use rtlat_engine::seconds::SecondsSeries;
use rtlat_engine::session::{Pass, Supervisor};
use rtlat_engine::{LiveFigures, LiveStatus};
use rtlat_linux::signals;

use super::output::cyclictest as text;
use super::snapshot::SnapshotFile;
use crate::cli::cyclic::explain::Explainer;
use crate::cli::cyclic::options::{Align, Plan, RunConfig, ThreadPlan};

/// How often the main thread refreshes the screen and checks for the end (cyclictest: 10 ms).
const REFRESH: Duration = Duration::from_millis(10);
/// With `-D`, the threads end themselves at their first wake-up past the duration; the main
/// thread ends the run this long after the duration, plus the longest interval up to this
/// long, if a thread still sleeps (`-D 1 -i 3600000000`).
const BACKSTOP: Duration = Duration::from_secs(1);

/// What a run's main thread needs to see while the threads measure.
pub struct Live<'a> {
    config: &'a RunConfig,
    plan: &'a Plan,
    shared: &'a RunShared,
    nanoseconds: bool,
    as_cyclictest: bool,
    snapshot: Option<&'a SnapshotFile>,
    /// When the run ends if its threads still sleep far past `-D` (`None`: no such moment).
    backstop: Option<Instant>,
    /// `--explain`'s sampler, fed every wake-up.
    explainer: Option<Explainer>,
    /// The per-second time series, one per thread.
    series: Vec<SecondsSeries>,
    policy: String,
    stdout: std::io::StdoutLock<'static>,
    /// Each thread's maximum at the last redraw (`-M` redraws on a new one only).
    last_max: Vec<i64>,
    first: bool,
}

impl<'a> Live<'a> {
    /// The main thread's part of the run that started at `start` (when `-D` counts from).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        config: &'a RunConfig,
        plan: &'a Plan,
        shared: &'a RunShared,
        nanoseconds: bool,
        as_cyclictest: bool,
        snapshot: Option<&'a SnapshotFile>,
        start: Instant,
        explainer: Option<Explainer>,
    ) -> Live<'a> {
        let threads = plan.threads.len();
        let longest_interval = plan
            .threads
            .iter()
            .map(|t| t.interval_us)
            .max()
            .unwrap_or(0);
        // The latest thread start: -A staggers them by its offset, --secaligned offsets them all.
        let latest_offset_us = match config.align {
            Some(Align::Aligned { offset_us }) => offset_us.saturating_mul(threads as u64),
            Some(Align::SecAligned { offset_us }) => offset_us,
            None => 0,
        };
        // None past the end of time: the threads' own -D ends the run then.
        let backstop = config.duration.and_then(|d| {
            start
                .checked_add(Duration::from_micros(latest_offset_us))?
                .checked_add(d)?
                .checked_add(Duration::from_micros(longest_interval).min(BACKSTOP) + BACKSTOP)
        });
        Live {
            config,
            plan,
            shared,
            nanoseconds,
            as_cyclictest,
            snapshot,
            backstop,
            explainer,
            series: (0..threads).map(|_| SecondsSeries::default()).collect(),
            policy: policy_text(config),
            stdout: std::io::stdout().lock(),
            last_max: vec![i64::MIN; threads],
            first: true,
        }
    }

    /// What the run gathered on the main thread: the explainer and each thread's series.
    pub fn into_parts(self) -> (Option<Explainer>, Vec<SecondsSeries>) {
        (self.explainer, self.series)
    }

    /// The live lines (or the `-v` samples) due now, into `out`.
    fn draw(&mut self, out: &mut String) {
        let (config, shared, nanoseconds) = (self.config, self.shared, self.nanoseconds);
        if config.verbose {
            for (i, ring) in shared.rings.iter().enumerate() {
                if let Some(ring) = ring {
                    ring.drain(|cycle, value, _wake| {
                        text::verbose_line(out, i, cycle, value, None, nanoseconds)
                    });
                }
            }
            for (i, ring) in shared.smi_rings.iter().enumerate() {
                if let Some(ring) = ring {
                    ring.drain(|[cycle, value, _wake, smis]| {
                        text::verbose_line(out, i, cycle, value as i64, Some(smis), nanoseconds)
                    });
                }
            }
            return;
        }
        if config.quiet {
            return;
        }
        let figures: Vec<LiveFigures> = shared.live.iter().map(LiveStatus::read).collect();
        let new_max = figures
            .iter()
            .zip(&self.last_max)
            .any(|(f, m)| f.max_ns != *m);
        if !(self.first || !config.refresh_on_max || new_max) {
            return;
        }
        if !self.first {
            text::cursor_up(out, self.plan.threads.len());
        }
        text::live_header(out, &self.policy, &loadavg());
        for (t, f) in self.plan.threads.iter().zip(&figures) {
            text::thread_line(out, header(t, shared), f, nanoseconds);
            if !self.as_cyclictest {
                append_overruns(out, f.overruns);
            }
        }
        self.first = false;
        for (m, f) in self.last_max.iter_mut().zip(&figures) {
            *m = f.max_ns;
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

    /// Every pass, running or ending: the last one, once every thread is done, prints the
    /// final figures.
    fn pass(&mut self, _: Pass) {
        // First, as cyclictest answers them in its signal handler: SIGUSR1 and SIGUSR2 wake
        // the session's pause, and are answered before anything else is done.
        answer_status_requests(self.plan, self.shared, self.nanoseconds, self.snapshot);
        let mut out = String::new();
        self.draw(&mut out);
        write_stdout(&mut self.stdout, &out);
        // --explain: every cycle's wake-up from the threads' taps into their spike watches.
        if let Some(explainer) = &mut self.explainer {
            explainer.drain(self.shared);
        }
        for (seconds, ring) in self.series.iter_mut().zip(&self.shared.seconds) {
            seconds.drain(ring);
        }
    }

    /// A reader gone from standard output (`| head`) ends the run as a stop signal does; the
    /// process then ends by SIGPIPE, once the run is undone (see `rtlat::stdio`).
    fn should_end(&mut self) -> bool {
        rtlat::stdio::reader_gone() || self.backstop.is_some_and(|at| Instant::now() >= at)
    }

    fn end(&self) {
        self.shared.stop.store(true, Ordering::Release);
    }

    /// The run is ending (a signal, -D, a thread's own end): the threads still asleep are
    /// woken now, not at their next deadline (an interval or a --secaligned start may be an
    /// hour away); their interrupted cycle is not measured, as in cyclictest.
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
        let config = self.config;
        if config.refresh_on_max && !config.quiet && !config.verbose {
            // cyclictest -M moves up over the block after each refresh and, at the end, back
            // down: its output ends with `ESC[nA ESC[nB`.
            let mut out = String::new();
            text::cursor_up(&mut out, self.plan.threads.len());
            text::cursor_down(&mut out, self.plan.threads.len());
            write_stdout(&mut self.stdout, &out);
        }
    }
}

/// Writes `text` to standard output unless its reader is gone; a failure is noted for
/// `rtlat::stdio` (a reader gone ends the run).
fn write_stdout(stdout: &mut std::io::StdoutLock, text: &str) {
    if text.is_empty() || rtlat::stdio::reader_gone() {
        return;
    }
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        rtlat::stdio::stdout_failed(&e);
    }
}

/// SIGUSR1: the status block on stderr. SIGUSR2: the same block into the snapshot file.
fn answer_status_requests(
    plan: &Plan,
    shared: &RunShared,
    nanoseconds: bool,
    snapshot: Option<&SnapshotFile>,
) {
    let status = signals::take_status_request();
    let to_snapshot = signals::take_snapshot_request();
    if !status && !to_snapshot {
        return;
    }
    let lines: Vec<_> = plan
        .threads
        .iter()
        .zip(&shared.live)
        .map(|(t, l)| (header(t, shared), l.read()))
        .collect();
    let mut block = String::new();
    text::status_block(&mut block, &lines, nanoseconds);
    if to_snapshot && let Some(file) = snapshot {
        // cyclictest's SIGUSR2: the status block into its shared-memory file, which
        // rt-tests' get_cyclictest_snapshot reads.
        let _ = file.write(&block);
    }
    if status {
        err!("{block}");
    }
}

/// A thread's line header: its index, kernel thread id, priority and interval.
pub fn header(t: &ThreadPlan, shared: &RunShared) -> text::LineHeader {
    text::LineHeader {
        index: t.index as usize,
        tid: shared.live[t.index as usize].tid(),
        priority: i32::from(t.priority),
        interval_us: t.interval_us,
        smi: !shared.smi.is_empty(),
    }
}

/// rtlat's addition after `Max:` (never under the name `cyclictest`).
pub fn append_overruns(out: &mut String, overruns: u64) {
    if out.ends_with('\n') {
        out.pop();
        out.push_str(&format!(" Overruns:{overruns:6}\n"));
    }
}

/// cyclictest's policy text: `fifo`, or `other/other` when the threads run SCHED_OTHER.
fn policy_text(config: &RunConfig) -> String {
    let p = config.policy();
    if p.is_realtime() {
        p.name().to_string()
    } else {
        format!("{}/other", p.name())
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.trim_end().to_string())
        .unwrap_or_default()
}
