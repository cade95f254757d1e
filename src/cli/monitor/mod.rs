//! `rtlat monitor`: the latency of this machine in Prometheus, for days. `rtlat run`'s
//! measuring threads (the one engine, run's options, the monitor's defaults: see
//! [`options`]) write every latency into a lock-free sample ring and their live figures
//! into a sequence lock; the monitor's main thread drains both every
//! [`DRAIN_EVERY`] into the metrics ([`windows`], [`metrics`]); a server thread serves them
//! on `/metrics` ([`server`]); `--textfile` gets them every window ([`textfile`]); a
//! housekeeping thread runs the audit every window ([`audit`]). None of these threads runs
//! on a measured CPU when another is available, and none can delay a measuring thread: they
//! only read what it publishes, and it never waits on them.
//!
//! SIGINT and SIGTERM (and SIGHUP) end it as they end `rtlat run`: the threads woken, what
//! the run changed restored (`/dev/cpu_dma_latency` released, a held governor given back).
//! `-l` or `-D` end the measurement, not the monitor: it goes on serving the final figures
//! until a stop signal.

pub mod audit;
pub mod causes;
// The main thread while the threads measure: the rings drained into the metrics.
pub mod live;
pub mod metrics;
pub mod options;
pub mod server;
pub mod textfile;
pub mod windows;

use std::net::TcpListener;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rtlat_engine::rings::sample_ring;
use rtlat_engine::run::RunShared;
use rtlat_engine::session::{Notice, Session, SessionPlan};
use rtlat_engine::{LiveFigures, LiveStatus};
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{ProcessCpus, signals};
use rtlat_system::facts::Facts;

use crate::cli::cyclic::governor::run_governor;
use crate::cli::cyclic::measure::measure_plans;
use crate::cli::cyclic::measure::run_thread;
use crate::cli::cyclic::options::{Plan, check_writable_parent};
use crate::cli::run::timerlat::{self, TimerlatRun};
use causes::WindowCauses;
use live::{DRAIN_EVERY, Drain, drain};
use metrics::{Labels, Metrics, ThreadId, TimerlatMetrics};
use options::{MonitorConfig, Parsed};
use rtlat::exit_status;
use rtlat_system::noise::timerlat::{Context, TimerlatLine, Workload};
use windows::ThreadWindows;

/// Seconds of samples a thread's ring holds before the oldest are lost (the main thread
/// drains it ten times a second).
const RING_SECONDS: u64 = 10;
/// Bounds of a ring's length.
const RING_MIN: usize = 16_384;
const RING_MAX: usize = 1 << 17;

/// `rtlat monitor --help`: the monitor's own options written from their table
/// ([`options::SPECS`]), then the run options it documents.
pub fn usage() -> String {
    format!(
        "\
Usage: rtlat monitor [OPTIONS] [rtlat run OPTIONS]

Measures wake-up latency for days, as `rtlat run` does, and serves it to Prometheus on
/metrics (OpenMetrics text; the Prometheus text format for a client whose Accept asks for
text/plain only).

{own}  --explain            name the likely cause of each window's maximum, from rtlat run
                       --explain's sampler on the CPUs no thread measures: the series
                       rtlat_window_max_cause_info{{cause,audit}}, and a line on stderr per
                       window whose maximum is above --explain-above
  --explain-above US   that line's threshold (in -N's unit; default: the thread's p99.9)
  --timerlat           the kernel's timerlat tracer on the measured CPUs (rtlat run
                       --timerlat): its IRQ, thread and return-to-user latencies as
                       rtlat_timerlat_latency_seconds{{cpu,context}}

rtlat run's options set the measurement; the monitor's defaults where they are left out:
one thread per isolated CPU (else one per CPU of its affinity mask), SCHED_FIFO 99,
1 ms interval on every thread (-d 0). -l and -D end the measurement, not the monitor: it
serves the final figures until SIGINT or SIGTERM. Not for a monitor: -v, -h/-H, --histfile,
--json, -F, -b, --spike, -M, --profile.
",
        own = rtlat::options::help::options(options::SPECS, options::HELP_COLUMN)
    )
}

/// Runs `rtlat monitor ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    match monitor(args) {
        Ok(code) => code,
        Err(message) => {
            errln!("rtlat monitor: {message}");
            exit_status::code(exit_status::BAD_INPUT)
        }
    }
}

fn monitor(args: &[String]) -> Result<ExitCode, String> {
    // As in `rtlat run`: stop signals end the monitor cleanly from the first moment.
    signals::install_run_handlers().map_err(|e| e.to_string())?;
    let facts = Facts::live();
    // The online CPUs (any may be named: the isolated ones are the monitor's default) and
    // the default ones (the affinity mask: where the server and helpers stay).
    let cpus = ProcessCpus::read().map_err(|e| e.to_string())?;
    let isolated = facts
        .isolated_cpus()
        .unwrap_or_default()
        .intersection(cpus.online());
    let config = match options::parse(args, &isolated).map_err(|e| e.to_string())? {
        Parsed::Help => {
            out!("{}", usage());
            return Ok(ExitCode::SUCCESS);
        }
        Parsed::Monitor(config) => config,
    };
    let plan = config.run.plan(&cpus).map_err(|e| e.to_string())?;
    config.run.check_cpuset(&plan, &cpus)?;
    // --timerlat: one thread per CPU, one interval, a kernel with the tracer; checked before
    // anything changes.
    let timerlat_plan = if config.run.timerlat {
        Some(timerlat::check(&plan)?)
    } else {
        None
    };
    if let Some(path) = &config.textfile {
        check_writable_parent(path, "--textfile").map_err(|e| e.to_string())?;
    }
    let listener = TcpListener::bind(config.listen)
        .map_err(|e| format!("--listen {}: cannot listen there: {e}", config.listen))?;
    let listening = listener.local_addr().map_err(|e| e.to_string())?;
    let governor = run_governor(&config.run, &plan)?;
    let idle_states = crate::cli::cyclic::idle_states::check(&config.run, &cpus)?;
    let policy = config.run.policy();
    // The main thread, and so the server and audit threads it starts, on the housekeeping
    // CPUs: the default ones not measured, never an isolated one (or --mainaffinity's).
    let housekeeping = housekeeping_cpus(&plan, cpus.default_cpus());
    let session_plan = session_plan(&config, &plan, housekeeping.as_ref(), policy);
    session_plan.check().map_err(|e| e.to_string())?;
    for notice in &plan.notices {
        errln!("{notice}");
    }
    if housekeeping.is_none() {
        errln!(
            "rtlat monitor: every CPU of this process's default set is measured: the server shares them with the measuring threads, which preempt it (isolate CPUs, or give -a fewer CPUs)"
        );
    }

    // Everything below changes the machine; each change is undone when its guard drops.
    let session = Session::start(&session_plan, |notice| match notice {
        Notice::MemoryNotLocked(e) => {
            errln!("warning: {e}; the monitor continues, but page faults may add latency")
        }
        Notice::DmaLatencyNotHeld(e) => {
            errln!("warning: {e}; C-states are not limited for this monitor")
        }
        Notice::DmaLatencyHeld(_) => {}
    })
    .map_err(|e| e.to_string())?;
    let _governor = governor.map(|g| g.hold()).transpose()?;
    let _idle_states = idle_states.map(|s| s.hold(false)).transpose()?;

    let metrics = new_metrics(&config, &plan);
    // --timerlat: the tracer before the threads (they open its files once pinned), its
    // samples into the metrics as they are read; every tracefs change put back at the end.
    let mut timerlat_run = match timerlat_plan {
        Some(plan) => {
            let families = metrics.timerlat.clone();
            let sink = move |line: &TimerlatLine| {
                if let Some(families) = &families {
                    timerlat_metric(families, line);
                }
            };
            Some(TimerlatRun::start_with(plan, false, Some(Box::new(sink)))?)
        }
        None => None,
    };
    let timer = timerlat_run
        .as_ref()
        .filter(|run| run.workload() == Workload::User)
        .map(|_| rtlat_linux::TimerKind::Timerlat);
    // Made again each window: a governor changed under the monitor shows.
    let info_now = || info(&facts, &plan, &isolated, &config);
    metrics.set_info(info_now());
    let threads = plan.threads.len();
    let shared = shared_state(threads, ring_len(config.run.interval_us));
    let mut windows: Vec<ThreadWindows> = metrics
        .threads
        .iter()
        .map(|m| ThreadWindows::new(m.clone(), &config.spike_above_ns))
        .collect();

    let helpers_stop = AtomicBool::new(false);
    let tools = rtlat::args::sibling("rtlat-tools");
    let result = std::thread::scope(|scope| -> Result<(), String> {
        let server = std::thread::Builder::new()
            .name("rtlat-http".into())
            .spawn_scoped(scope, || {
                server::serve(listener, Arc::clone(&metrics), &helpers_stop)
            })
            .map_err(|e| format!("cannot start the HTTP server: {e}"))?;
        let _audit = std::thread::Builder::new()
            .name("rtlat-audit".into())
            .spawn_scoped(scope, || {
                audit_loop(
                    tools.as_ref(),
                    config.profile_verify.as_deref(),
                    &metrics,
                    config.window,
                    &helpers_stop,
                )
            })
            .map_err(|e| format!("cannot start the audit thread: {e}"))?;
        errln!(
            "rtlat monitor: serving http://{listening}/metrics; {threads} threads on CPUs {}, {} {}, interval {} µs, window {} s",
            cpu_list(&plan),
            policy.name(),
            plan.threads.first().map_or(0, |t| t.priority),
            config.run.interval_us,
            config.window.as_secs()
        );
        let measured = measure(
            &session,
            &config,
            &plan,
            &shared,
            (&metrics, &info_now),
            &mut windows,
            (&cpus.default_cpus().iter().collect::<Vec<usize>>(), timer),
        );
        // The threads have ended: the rest of the trace read, tracefs put back (the final
        // figures stay served).
        if let Some(run) = timerlat_run.take() {
            if let Err(e) = run.finish() {
                errln!("rtlat monitor: {e}");
            }
            // Written again with the trace's last samples, read after the threads ended.
            if let Some(path) = &config.textfile
                && let Err(e) = textfile::write(path, &metrics)
            {
                errln!("rtlat monitor: {e}");
            }
        }
        if measured.is_ok() && !signals::stop_requested() {
            errln!(
                "rtlat monitor: the measurement ended (-l/-D); serving its final figures until SIGINT or SIGTERM"
            );
            while !signals::stop_requested() {
                signals::sleep_or_signal(DRAIN_EVERY);
            }
        }
        helpers_stop.store(true, Ordering::Release);
        let served = server
            .join()
            .unwrap_or_else(|_| Err("the HTTP server panicked".into()));
        measured.and(served)
    });
    result?;
    Ok(ExitCode::SUCCESS)
}

/// The session: the threads' real-time permission, the main thread (and so the server and
/// audit threads it starts) on the housekeeping CPUs, `-m`, `/dev/cpu_dma_latency`.
fn session_plan(
    config: &MonitorConfig,
    plan: &Plan,
    housekeeping: Option<&CpuSet>,
    policy: rtlat_linux::Policy,
) -> SessionPlan {
    SessionPlan {
        realtime: plan
            .threads
            .iter()
            .map(|t| t.priority)
            .max()
            .map(|top| (policy, i32::from(top))),
        housekeeping: housekeeping.map(|cpus| cpus.iter().collect()),
        lock_memory: config.run.mlockall,
        dma_latency_us: config.run.dma_latency_us(),
        init: None,
    }
}

/// The exposition's families, a series per measuring thread (and the window causes with
/// `--explain`).
fn new_metrics(config: &MonitorConfig, plan: &Plan) -> Arc<Metrics> {
    let ids: Vec<ThreadId> = plan
        .threads
        .iter()
        .map(|t| ThreadId {
            index: t.index as usize,
            cpu: t.cpu,
        })
        .collect();
    let mut metrics = Metrics::new(&ids, &config.spike_above_ns);
    if config.run.explain {
        metrics.add_window_causes();
    }
    if config.run.timerlat {
        metrics.add_timerlat();
    }
    if config.profile_verify.is_some() {
        metrics.add_drift();
    }
    Arc::new(metrics)
}

/// One line of the timerlat trace into `--timerlat`'s families.
fn timerlat_metric(families: &TimerlatMetrics, line: &TimerlatLine) {
    match line {
        TimerlatLine::Sample {
            cpu,
            context,
            latency_ns,
            ..
        } => {
            let context = match context {
                Context::Irq => "irq",
                Context::Thread => "thread",
                Context::User => "user",
            };
            let labels: Labels = vec![
                ("cpu".into(), cpu.to_string()),
                ("context".into(), context.into()),
            ];
            families
                .latency
                .get_or_create(&labels)
                .observe(*latency_ns as f64 / 1e9);
        }
        TimerlatLine::Lost { cpu, events } => {
            let labels: Labels = vec![("cpu".into(), cpu.to_string())];
            families.lost.get_or_create(&labels).inc_by(*events);
        }
        TimerlatLine::Noise(_) => {}
    }
}

/// What the measuring threads and the main thread share: a sample ring of `ring_len` per
/// thread (the windows are cut from it), no per-second series.
fn shared_state(threads: usize, ring_len: usize) -> RunShared {
    RunShared {
        rings: (0..threads).map(|_| Some(sample_ring(ring_len))).collect(),
        // No per-second series (a monitor has no JSON): the smallest ring.
        ..RunShared::new(threads, signals::stop_requested(), 1)
    }
}

/// The measurement, and the main thread's draining, until the threads end (a stop signal,
/// `-l`, `-D`, a failure); `timer`: the timer the threads sleep on instead of the options' one
/// (`--timerlat`'s, when the threads are the tracer's workload).
fn measure(
    session: &Session,
    config: &MonitorConfig,
    plan: &Plan,
    shared: &RunShared,
    metrics: (&Metrics, &dyn Fn() -> Labels),
    windows: &mut [ThreadWindows],
    (default_cpus, timer): (&[usize], Option<rtlat_linux::TimerKind>),
) -> Result<(), String> {
    let mut measure_plans = measure_plans(&config.run, plan, config.run.policy());
    // --timerlat with the threads as the tracer's workload: its timer wakes them.
    if let Some(timer) = timer {
        for p in &mut measure_plans {
            p.timer = timer;
        }
    }
    let threads = measure_plans.iter().map(|p| {
        // monitor reads its own windows' histograms (drained from the threads' rings), never
        // the threads' own: they keep the summary alone.
        (format!("rtlat-t{}", p.index), move || {
            run_thread(p, shared, None)
        })
    });
    let mut explain_failed = None;
    let measured = session.measure(threads, |_| {
        shared.ready.wait();
        // --explain: the evidence sampler starts once the threads are set up (their ids
        // known), before they measure, as in `rtlat run --explain`.
        let mut causes = None;
        if config.run.explain {
            let tids: Vec<i32> = shared.live.iter().map(LiveStatus::tid).collect();
            match WindowCauses::start(&config.run, plan, default_cpus, &tids) {
                Ok(started) => {
                    errln!("{}", started.started_line());
                    causes = Some(started);
                }
                Err(e) => {
                    shared.stop.store(true, Ordering::Release);
                    explain_failed = Some(e);
                }
            }
        }
        shared.go.wait();
        Drain::new(config, shared, &mut *windows, metrics, causes)
    });
    let (reports, _) = measured.map_err(|e| e.to_string())?;
    if let Some(e) = explain_failed {
        return Err(e);
    }
    drain(shared, windows);
    if let Some(path) = &config.textfile
        && let Err(e) = textfile::write(path, metrics.0)
    {
        errln!("rtlat monitor: {e}");
    }
    for ((t, report), w) in plan.threads.iter().zip(&reports).zip(windows.iter()) {
        let f: LiveFigures = shared.live[t.index as usize].read();
        errln!(
            "rtlat monitor: thread={} cpu={} cycles={} min_ns={} max_ns={} p99_ns={} overruns={} histogram_count={}",
            t.index,
            t.cpu,
            f.cycles,
            f.min_ns,
            f.max_ns,
            w.histogram().percentile(99.0).unwrap_or(0),
            report.overruns,
            w.histogram().count()
        );
    }
    Ok(())
}

/// The audit (and `--profile-verify`'s verification), at start and once per window, until
/// `stop`.
fn audit_loop(
    tools: Option<&std::path::PathBuf>,
    profile: Option<&std::path::Path>,
    metrics: &Metrics,
    window: Duration,
    stop: &AtomicBool,
) {
    let _ = signals::block_run_signals();
    let mut said: Option<String> = None;
    let mut said_verify: Option<String> = None;
    loop {
        if let Some(profile) = profile {
            match audit::verify(tools, profile) {
                Ok(items) => {
                    metrics.set_drift(Some(&items));
                    said_verify = None;
                }
                Err(why) => {
                    metrics.set_drift(None);
                    if said_verify.as_ref() != Some(&why) {
                        errln!("rtlat monitor: {why}");
                        said_verify = Some(why);
                    }
                }
            }
        }
        match audit::run(tools) {
            Ok(worst) => {
                metrics.audit_worst.set(worst);
                metrics.audit_up.set(1);
                said = None;
            }
            Err(why) => {
                metrics.audit_worst.set(-1);
                metrics.audit_up.set(0);
                if said.as_ref() != Some(&why) {
                    errln!("rtlat monitor: {why}");
                    said = Some(why);
                }
            }
        }
        let until = Instant::now() + window;
        while Instant::now() < until {
            if stop.load(Ordering::Acquire) {
                return;
            }
            std::thread::sleep(DRAIN_EVERY);
        }
    }
}

/// The CPUs the helper threads run on: `--mainaffinity`'s, or the CPUs of the process's
/// default set (`default`: its affinity mask, without the isolated CPUs) no thread measures;
/// `None` when every one is measured.
fn housekeeping_cpus(plan: &Plan, default: &CpuSet) -> Option<CpuSet> {
    if let Some(cpus) = &plan.main_affinity {
        return Some(cpus.clone());
    }
    let free: Vec<usize> = default
        .iter()
        .filter(|c| plan.threads.iter().all(|t| t.cpu != *c))
        .collect();
    (!free.is_empty())
        .then(|| CpuSet::from_cpus(free).ok())
        .flatten()
}

/// A thread's ring: [`RING_SECONDS`] of samples at `interval_us`, within bounds.
fn ring_len(interval_us: u64) -> usize {
    let per_second = 1_000_000 / interval_us.max(1);
    usize::try_from(per_second * RING_SECONDS)
        .unwrap_or(RING_MAX)
        .clamp(RING_MIN, RING_MAX)
}

fn cpu_list(plan: &Plan) -> String {
    CpuSet::from_cpus(plan.threads.iter().map(|t| t.cpu).collect::<Vec<_>>())
        .map_or_else(|_| "?".into(), |s| s.to_string())
}

/// The info metric's labels: the machine as measured.
fn info(facts: &Facts, plan: &Plan, isolated: &CpuSet, config: &MonitorConfig) -> Labels {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let release = facts.os_release().unwrap_or_default();
    let rt = facts.preempt_rt().is_ok_and(|p| p.is_rt());
    let mut governors: Vec<String> = plan
        .threads
        .iter()
        .filter_map(|t| facts.cpufreq(t.cpu).governor().ok())
        .collect();
    governors.sort();
    governors.dedup();
    let governor = if governors.is_empty() {
        "none".to_string()
    } else {
        governors.join(",")
    };
    vec![
        ("host".into(), host),
        ("kernel_release".into(), release.trim().to_string()),
        ("preempt_rt".into(), if rt { "yes" } else { "no" }.into()),
        ("isolated_cpus".into(), isolated.to_string()),
        ("governor".into(), governor),
        ("version".into(), env!("CARGO_PKG_VERSION").into()),
        ("window_seconds".into(), config.window.as_secs().to_string()),
    ]
}
