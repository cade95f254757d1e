//! `rtlat noise`: oslat's busy-poll OS noise measurement, for real-time code that polls
//! (EtherCAT masters, DPDK-like loops) rather than sleeps. One thread per CPU reads
//! `CLOCK_MONOTONIC` in a loop that does nothing else (rtlat-engine's `poll`); every gap
//! between two reads longer than the loop's own step is time the CPU spent elsewhere.
//!
//! The output is oslat's (rt-tests 2.40): its header, its µs histogram block, its JSON keys,
//! each value with oslat's meaning (a gap counts as its whole µs plus one); rtlat's exact
//! figures in ns follow, as `#` lines and as an `rtlat` object per JSON thread.

pub mod options;
pub mod output;

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rtlat::exit_status;
use rtlat_engine::poll::{PollPlan, PollReport, PollShared, run_thread};
use rtlat_engine::run::new_run_histogram;
use rtlat_engine::session::{Notice, Pass, Session, SessionPlan, Supervisor};
use rtlat_engine::setup::Setup;
use rtlat_engine::{OnThread, ThreadName};
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{Policy, ProcessCpus};

use crate::cli::cyclic::options::cpuset_refused;
use options::{Config, Parsed};

/// Stack bytes each polling thread prefaults (its loop needs little).
const STACK_PREFAULT: usize = 16 * 1024;

/// `rtlat noise --help`.
pub fn usage() -> String {
    format!(
        "Usage: rtlat noise [OPTIONS]\n\n\
         Busy-poll OS noise, as oslat measures it: one thread per CPU reads the clock in a loop\n\
         that does nothing else; every gap between two reads is time the CPU spent elsewhere\n\
         (an interrupt, another task, an SMI, a hypervisor). For real-time code that polls.\n\
         Output: oslat's (rt-tests {}) block and JSON, values in oslat's µs (a gap counts as its\n\
         whole µs plus one), then rtlat's exact figures in ns.\n\n{}\n\n{}",
        output::OSLAT_VERSION,
        options::OPTIONS,
        exit_status::HELP
    )
}

/// Runs `rtlat noise ARGS`.
pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(line) => {
            errln!("rtlat noise: {line}");
            exit_status::code(exit_status::BAD_INPUT)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    Session::handle_signals(&[]).map_err(|e| e.to_string())?;
    let config = match options::parse(args).and_then(|parsed| {
        if let Parsed::Run(config) = &parsed {
            config.check_output_paths()?;
        }
        Ok(parsed)
    }) {
        Ok(Parsed::Help) => {
            out!("{}", usage());
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Parsed::Version) => {
            outln!(
                "rtlat noise V {} (oslat {} output)",
                env!("CARGO_PKG_VERSION"),
                output::OSLAT_VERSION
            );
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Parsed::Run(config)) => config,
        Err(e) => return Err(e.to_string()),
    };
    let process = ProcessCpus::read().map_err(|e| e.to_string())?;
    let cpus = resolve_cpus(config.cpus.as_ref(), "-c/--cpu-list", &process)?;
    let main_cpu = match config.main_cpu {
        Some(cpu) if !process.online().contains(cpu) => {
            return Err(format!(
                "invalid value '{cpu}' for -C/--cpu-main-thread: CPU {cpu} is not online (online CPUs: {})",
                process.online()
            ));
        }
        Some(cpu) => vec![cpu],
        None => rtlat_linux::affinity().map_err(|e| e.to_string())?,
    };
    let session_plan = SessionPlan {
        realtime: config.rtprio.map(|p| (Policy::Fifo, p)),
        housekeeping: config.main_cpu.map(|cpu| vec![cpu]),
        lock_memory: true,
        dma_latency_us: None,
        init: None,
    };
    session_plan.check().map_err(|e| e.to_string())?;
    let session = Session::start(&session_plan, |notice| match notice {
        Notice::MemoryNotLocked(e) => {
            errln!("warning: {e}; the run continues, but page faults may add gaps")
        }
        Notice::DmaLatencyNotHeld(e) => errln!("warning: {e}"),
        Notice::DmaLatencyHeld(_) => {}
    })
    .map_err(|e| e.to_string())?;
    if config.rtprio.is_some() && main_cpu.iter().any(|cpu| cpus.contains(cpu)) {
        errln!(
            "warning: SCHED_FIFO polling on a CPU the main thread may run on: it and the kernel's threads there run only in RT throttling's share (give it another CPU with -C)"
        );
    }
    out!("{}", output::header(&config, &cpus, &main_cpu));

    let start_unix = unix_now();
    let (policy, priority) = config
        .rtprio
        .map_or((Policy::Other, 0), |p| (Policy::Fifo, p));
    let plans: Vec<PollPlan> = cpus
        .iter()
        .map(|&cpu| PollPlan {
            setup: Setup {
                cpu: Some(cpu),
                policy,
                priority,
                prefault_stack: STACK_PREFAULT,
            },
            duration_ns: config.duration.map(|d| d.as_nanos() as u64),
            micros: config.buckets,
            threshold_ns: config.threshold_ns,
            window: None,
        })
        .collect();
    let shared = PollShared::default();
    let done = AtomicUsize::new(0);
    // Made here, on the main thread's large stack (a debug build builds them on the stack).
    let histograms: Vec<_> = plans.iter().map(|_| new_run_histogram()).collect();
    let threads = plans
        .iter()
        .zip(histograms)
        .enumerate()
        .map(|(index, (plan, histogram))| {
            let (shared, done) = (&shared, &done);
            (format!("rtlat-noise-{index}"), move || {
                let report = run_thread(
                    plan,
                    shared,
                    histogram,
                    crate::allocations::this_thread,
                    &mut (),
                );
                done.fetch_add(1, Ordering::Release);
                report.map_err(|error| OnThread {
                    thread: ThreadName::Index(index),
                    error,
                })
            })
        });
    let supervisor = Polling {
        shared: &shared,
        done: &done,
        threads: plans.len(),
    };
    let (reports, _) = session
        .measure(threads, |_| supervisor)
        .map_err(|e| e.to_string())?;
    drop(session);
    finish(&config, args, start_unix, &reports)
}

/// The CPUs to poll on: those `asked` (with `option`), each online and allowed by the
/// cpuset, else every CPU this process may run on.
pub(crate) fn resolve_cpus(
    asked: Option<&CpuSet>,
    option: &str,
    process: &ProcessCpus,
) -> Result<Vec<usize>, String> {
    let Some(asked) = asked else {
        return Ok(process.default_cpus().iter().collect());
    };
    let offline = asked.difference(process.online());
    if !offline.is_empty() {
        return Err(format!(
            "invalid CPU list '{asked}' for {option}: CPU {offline} not online (online CPUs: {}; isolated CPUs are accepted)",
            process.online()
        ));
    }
    let refused: CpuSet = process
        .refused_by_cpuset(asked)
        .map_err(|e| e.to_string())?;
    if !refused.is_empty() {
        return Err(cpuset_refused(
            option,
            &asked.to_string(),
            &refused,
            process,
        ));
    }
    Ok(asked.iter().collect())
}

/// The summary, the JSON, the exit status.
fn finish(
    config: &Config,
    args: &[String],
    start_unix: u64,
    reports: &[PollReport],
) -> Result<ExitCode, String> {
    let over = config.fail_above_ns.is_some_and(|limit| {
        reports
            .iter()
            .any(|r| r.histogram.max().is_some_and(|m| m as u64 > limit))
    });
    let verdict = if over {
        exit_status::OVER_THRESHOLD
    } else {
        exit_status::OK
    };
    out!("{}", output::summary(config, reports));
    if over && let Some(limit) = config.fail_above_ns {
        errln!("rtlat noise: a gap was longer than --fail-above {limit} ns");
    }
    let mut written = true;
    if let Some(path) = &config.json {
        let facts = output::RunFacts {
            cmdline: std::iter::once("rtlat noise")
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            start_unix,
            end_unix: unix_now(),
            return_code: i32::from(verdict),
        };
        let text = output::json(config, &facts, reports);
        if path.as_os_str() == "-" {
            out!("{text}");
        } else if let Err(e) = rtlat::output::write(path, text.as_bytes()) {
            errln!("rtlat noise: cannot write {}: {e}", path.display());
            written = false;
        }
    }
    Ok(exit_status::code(exit_status::finished(verdict, written)))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The main thread's part: nothing to draw; it waits for the threads, and tells them to stop
/// on a signal.
pub(crate) struct Polling<'a> {
    /// The threads' stop flag.
    pub shared: &'a PollShared,
    /// How many threads are done.
    pub done: &'a AtomicUsize,
    /// How many there are.
    pub threads: usize,
}

impl Supervisor for Polling<'_> {
    fn cadence(&self) -> Duration {
        Duration::from_millis(50)
    }
    fn all_done(&self) -> bool {
        self.done.load(Ordering::Acquire) >= self.threads
    }
    fn pass(&mut self, _pass: Pass) {}
    fn end(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
    fn ending(&self) -> bool {
        self.shared.stop.load(Ordering::Relaxed)
    }
    fn running(&self) -> Vec<i32> {
        // Busy loops: they see the stop flag within one step, no wake-up needed.
        Vec::new()
    }
}
