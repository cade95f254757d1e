//! `rtlat run` (and rtlat invoked as `cyclictest`) from command line to exit status: check
//! everything, set the machine up, run the measurement threads, report, undo.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rtlat_formats::schema::rtlat as schema;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{ClockId, Ftrace, PosixClock, ProcessCpus, signals};

use rtlat_engine::rings::{default_window_ring, sample_ring};
use rtlat_engine::run::{RunShared, ThreadReport, new_run_histogram};
use rtlat_engine::session::{Notice, Session, SessionPlan};
use rtlat_engine::tap::WakeTap;
use rtlat_engine::{LiveFigures, LiveStatus};

use super::live::{self, Live};
use super::output::IoText;
use super::output::{cyclictest as text, json as json_out};
use super::snapshot::SnapshotFile;
use super::usage::usage;
use crate::cli::cpufreq::RunGovernor;
use crate::cli::cyclic::explain::{self, Explained, Explainer};
use crate::cli::cyclic::governor::run_governor;
use crate::cli::cyclic::measure::{measure_plans, run_thread};
use crate::cli::cyclic::options::{self, Align, Clock, Parsed, Plan, RunConfig, Unit};
use crate::cli::cyclic::smi;
use rtlat::atomic_file::{write_atomically, write_atomically_with};
use rtlat::exit_status;

/// `-v` samples buffered per thread between two prints (cyclictest keeps 16384 too).
const VERBOSE_RING: usize = 16_384;

/// Runs `rtlat run ARGS` (or `cyclictest ARGS`); returns the exit status.
pub fn main(args: &[String], invoked_as_cyclictest: bool) -> ExitCode {
    let program = if invoked_as_cyclictest {
        "cyclictest"
    } else {
        "rtlat run"
    };
    // Under the name cyclictest, a command line cyclictest refuses ends as it ends there.
    let refusal = if invoked_as_cyclictest {
        options::cyclictest_refusal(args, ProcessCpus::read().ok().as_ref())
    } else {
        None
    };
    match refusal {
        Some(options::Refusal::Getopt(complaint)) => {
            // glibc names the program as it was invoked (argv[0]).
            let argv0 = std::env::args_os().next().unwrap_or_default();
            errln!("{}: {complaint}", argv0.to_string_lossy());
            out!("{}", usage(true));
            return ExitCode::SUCCESS;
        }
        Some(options::Refusal::Fatal(line)) => {
            errln!("{line}");
            return ExitCode::from(1);
        }
        Some(options::Refusal::NoAllowableCpus) => {
            for line in options::NO_ALLOWABLE_CPUS {
                errln!("{line}");
            }
            return ExitCode::from(1);
        }
        Some(options::Refusal::Usage) | None => {}
    }
    match run(args, invoked_as_cyclictest) {
        Ok(code) => code,
        Err(message) => {
            errln!("{program}: {message}");
            if refusal == Some(options::Refusal::Usage) {
                out!("{}", usage(true));
                return ExitCode::from(1);
            }
            ExitCode::from(exit_status::BAD_INPUT)
        }
    }
}

fn run(args: &[String], as_cyclictest: bool) -> Result<ExitCode, String> {
    // First of all: from here on SIGINT, SIGTERM and SIGHUP end the run cleanly and SIGUSR1
    // and SIGUSR2 are answered, however early they come. One that comes before the
    // measurement starts ends it at once (no cycle measured), and what the run changed until
    // then is restored as at any end.
    Session::handle_signals(&[]).map_err(|e| e.to_string())?;
    let config = match options::parse(args, as_cyclictest).map_err(|e| e.to_string())? {
        Parsed::Help => {
            out!("{}", usage(as_cyclictest));
            return Ok(ExitCode::SUCCESS);
        }
        Parsed::Run(config) => config,
    };
    // The online CPUs (any may be named) and the default ones (the affinity mask, which
    // isolcpus= narrows): read once, before the main thread is moved.
    let cpus = ProcessCpus::read().map_err(|e| e.to_string())?;
    let plan = config.plan(&cpus).map_err(|e| e.to_string())?;
    config.check_cpuset(&plan, &cpus)?;
    config.check_output_paths().map_err(|e| e.to_string())?;
    // --governor, --profile: checked now, before anything changes; set once signals end the
    // run cleanly.
    let audit_tools = config
        .profile
        .as_ref()
        .map(|profile| profile.audit_tools())
        .transpose()?;
    let governor = run_governor(&config, &plan)?;
    let idle_states = crate::cli::cyclic::idle_states::check(&config, &cpus)?;
    // -c cntvct: CNTFRQ_EL0 set, and the counter running at that rate against CLOCK_MONOTONIC
    // (100 ms), before anything changes.
    #[cfg(target_arch = "aarch64")]
    if config.clock == Clock::Cntvct {
        rtlat_engine::timers::counter_clock().map_err(|e| e.to_string())?;
    }
    let policy = config.policy();
    // The process set-up: the threads' real-time permission checked now, before anything
    // changes; then the main thread on --mainaffinity's CPUs, --backend xenomai's
    // initialisation (a binary without Xenomai is refused there, before anything changes),
    // memory locked (-m), /dev/cpu_dma_latency held (each undone when the session drops).
    let session_plan = SessionPlan {
        realtime: plan
            .threads
            .iter()
            .map(|t| t.priority)
            .max()
            .map(|top| (policy, i32::from(top))),
        housekeeping: plan
            .main_affinity
            .as_ref()
            .map(|cpus| cpus.iter().collect()),
        lock_memory: config.mlockall,
        dma_latency_us: config.dma_latency_us(),
        init: config.backend.init(),
    };
    session_plan.check().map_err(|e| e.to_string())?;
    for notice in &plan.notices {
        errln!("{notice}");
    }
    if let Some(profile) = &config.profile {
        errln!("{}", profile.settings_line(&config, &plan));
    }
    if config.verbose {
        let online = cpus.online().len();
        let possible = CpuSet::possible(std::path::Path::new("/")).map_or(online, |s| s.len());
        outln!("Max CPUs = {possible}\nOnline CPUs = {online}");
    }
    // Everything below changes the machine; each change is undone when its guard drops.
    let session = Session::start(&session_plan, |notice| match notice {
        Notice::MemoryNotLocked(e) => {
            errln!("warning: {e}; the run continues, but page faults may add latency")
        }
        Notice::DmaLatencyHeld(us) => outln!("# /dev/cpu_dma_latency set to {us}us"),
        Notice::DmaLatencyNotHeld(e) => {
            errln!("warning: {e}; C-states are not limited for this run")
        }
    })
    .map_err(|e| e.to_string())?;
    if config.smi {
        // cyclictest opens the counter in its first measuring thread, once set up.
        errln!(
            "{}",
            smi::unreadable(plan.threads.first().map_or(0, |t| t.cpu))
        );
        return Ok(ExitCode::from(1));
    }
    if session_plan.dma_latency_us.is_none() {
        // cyclictest's warnings (stderr) when it leaves /dev/cpu_dma_latency alone.
        if as_cyclictest && config.laptop {
            errln!("WARN: not setting cpu_dma_latency to save battery power");
        } else if as_cyclictest && config.default_system {
            errln!("WARN: not setting cpu_dma_latency from cyclictest");
        }
    }
    // cyclictest opens ftrace for --tracemark only with -b, and says where it found it.
    let ftrace = if config.tracemark && config.breaktrace.is_some() {
        match Ftrace::open(std::path::Path::new("/")) {
            Ok(f) => {
                errln!("INFO: debugfs mountpoint: {}/", f.dir().display());
                Some(f)
            }
            Err(e) => return Err(format!("--tracemark: {e}")),
        }
    } else {
        None
    };
    // Restores the previous governor when dropped: at the end of the run, however it ends.
    let _governor = governor.map(RunGovernor::hold).transpose()?;
    // Restores the idle states the same way.
    let _idle_states = idle_states
        .map(|states| states.hold(as_cyclictest))
        .transpose()?;
    // The profile's audit checks, of the machine as the run measures it (governor held).
    let profile = match (&config.profile, &audit_tools) {
        (Some(profile), Some(tools)) => Some(profile.json(&config, profile.audit(tools)?)),
        _ => None,
    };

    // -F: the statistics pipe, made before the threads start, removed at the end.
    let fifo = config
        .fifo
        .as_deref()
        .map(crate::cli::cyclic::fifo::StatsFifo::create)
        .transpose()?;
    let start_unix = unix_now();
    let nanoseconds = config.unit == Unit::Ns;
    let measure_plans = measure_plans(&config, &plan, policy);
    if config.verbose {
        let distance = config.distance_us();
        for t in &plan.threads {
            // cyclictest prints the interval after adding the distance for the next thread.
            outln!("Thread {} Interval: {}", t.index, t.interval_us + distance);
        }
    }
    // cyclictest's status file for SIGUSR2 (get_cyclictest_snapshot), under either name;
    // removed when the run ends, however it ends.
    let snapshot = match SnapshotFile::create() {
        Ok(file) => Some(file),
        Err(e) => {
            errln!(
                "warning: cannot create /dev/shm/cyclictest{}: {e}; SIGUSR2 writes no snapshot in this run",
                std::process::id()
            );
            None
        }
    };
    let shared = RunShared {
        // A stop signal that came before the threads start: they measure nothing.
        stop: AtomicBool::new(signals::stop_requested() || rtlat::stdio::reader_gone()),
        live: (0..plan.threads.len())
            .map(|_| LiveStatus::default())
            .collect(),
        rings: (0..plan.threads.len())
            .map(|_| config.verbose.then(|| sample_ring(VERBOSE_RING)))
            .collect(),
        taps: (0..plan.threads.len())
            .map(|_| config.explain.then(WakeTap::new))
            .collect(),
        ready: Barrier::new(plan.threads.len() + 1),
        epoch_ns: AtomicU64::new(0),
        go: Barrier::new(plan.threads.len() + 1),
        break_tid: AtomicI32::new(0),
        ftrace,
        seconds: (0..plan.threads.len())
            .map(|_| default_window_ring())
            .collect(),
    };
    let threads = measure_plans.iter().map(|p| {
        let shared = &shared;
        let histogram = new_run_histogram();
        (format!("rtlat-t{}", p.index), move || {
            run_thread(p, shared, histogram)
        })
    });
    let mut explain_failed = None;
    let measured = session.measure(threads, |scope| {
        shared.ready.wait();
        let mut explainer = None;
        // --explain: the evidence sampler starts once the threads are set up (their ids
        // known), before they measure.
        if config.explain {
            let tids: Vec<i32> = shared.live.iter().map(LiveStatus::tid).collect();
            // The sampler on the default CPUs no thread measures: off the isolated ones.
            let housekeeping: Vec<usize> = cpus.default_cpus().iter().collect();
            match Explainer::start(&config, &plan, &housekeeping, &tids) {
                Ok(started) => {
                    errln!("{}", started.started_line());
                    explainer = Some(started);
                }
                Err(e) => {
                    // Refused before any cycle: the threads are told to stop at once.
                    shared.stop.store(true, Ordering::Release);
                    explain_failed = Some(e);
                }
            }
        }
        let (now_ns, epoch_ns) = epoch(&config);
        shared.epoch_ns.store(epoch_ns, Ordering::Release);
        // When the measurement starts (with --secaligned, at the next full second): -D counts
        // from here, as in cyclictest.
        let start = Instant::now() + Duration::from_nanos(epoch_ns.saturating_sub(now_ns));
        shared.go.wait();
        if let Some(fifo) = &fifo {
            let shared = &shared;
            let plan = &plan;
            // Not started: the run goes on without the pipe, as cyclictest's does.
            let _ = std::thread::Builder::new()
                .name("rtlat-fifo".into())
                .spawn_scoped(scope, move || {
                    fifo.serve(
                        || {
                            shared.stop.load(Ordering::Acquire)
                                || shared.live.iter().all(LiveStatus::finished)
                        },
                        || {
                            let mut out = String::new();
                            for (t, live) in plan.threads.iter().zip(&shared.live) {
                                text::thread_line(
                                    &mut out,
                                    live::header(t, shared),
                                    &live.read(),
                                    nanoseconds,
                                );
                            }
                            out
                        },
                    );
                });
        }
        Live::new(
            &config,
            &plan,
            &shared,
            nanoseconds,
            as_cyclictest,
            snapshot.as_ref(),
            start,
            explainer,
        )
    });
    let (mut reports, live) = measured.map_err(|e| e.to_string())?;
    let (explainer, series) = live.into_parts();
    if let Some(e) = explain_failed {
        return Err(e);
    }
    let end_unix = unix_now();
    // The windows pushed after the last pass of `supervise` (the last, partial ones).
    for (report, mut seconds) in reports.iter_mut().zip(series) {
        seconds.drain(&shared.seconds[report.index]);
        if seconds.lost() > 0 {
            errln!(
                "warning: thread {}: {} seconds of the time series were lost (the main thread did not keep up); they are in the statistics and histograms",
                report.index,
                seconds.lost()
            );
        }
        report.seconds = seconds;
    }

    // --explain: the spikes still waiting for evidence are explained after one last sample.
    // With the osnoise tracer, a break (-b) keeps its trace in a file beside the JSON, or in
    // the current directory.
    let break_trace = (shared.break_tid.load(Ordering::Acquire) != 0).then(|| {
        let name = format!("rtlat-break-{}.trace", std::process::id());
        match config.json.as_deref().filter(|p| p.as_os_str() != "-") {
            Some(json) => json.with_file_name(name),
            None => std::path::PathBuf::from(name),
        }
    });
    let explained = explainer.map(|e| e.finish(&shared, &reports, break_trace.as_deref()));

    finish(
        &config,
        &plan,
        &shared,
        &reports,
        nanoseconds,
        as_cyclictest,
        args,
        (start_unix, end_unix),
        profile.as_ref(),
        explained.as_ref(),
    )
}

#[allow(clippy::too_many_arguments)]
fn finish(
    config: &RunConfig,
    plan: &Plan,
    shared: &RunShared,
    reports: &[ThreadReport],
    nanoseconds: bool,
    as_cyclictest: bool,
    args: &[String],
    (start_unix, end_unix): (u64, u64),
    profile: Option<&schema::Profile>,
    explained: Option<&Explained>,
) -> Result<ExitCode, String> {
    let program = if as_cyclictest {
        "cyclictest"
    } else {
        "rtlat run"
    };
    // Every output is attempted; each one that fails is a line naming it, and status 4.
    let mut all_written = true;
    let mut not_written = |what: String, e: std::io::Error| {
        errln!("{program}: cannot write {what}: {e}");
        all_written = false;
    };
    let mut out = String::new();
    if config.quiet && config.histogram.is_none() {
        for (t, r) in plan.threads.iter().zip(reports) {
            let f = final_figures(r);
            text::thread_line(&mut out, live::header(t, shared), &f, nanoseconds);
            if !as_cyclictest {
                live::append_overruns(&mut out, r.overruns);
            }
        }
    }
    if let Some(h) = config.histogram {
        // Streamed line by line (a 10 000-bucket histogram is 200 KiB of text per thread).
        let write = |w: &mut dyn std::io::Write| {
            let mut text_out = IoText::new(w);
            let formatted = text::histogram(
                &mut text_out,
                reports,
                h.with_total,
                nanoseconds,
                !as_cyclictest,
            );
            let written = text_out.finish();
            written.and_then(|()| formatted.map_err(|_| std::io::Error::other("formatting failed")))
        };
        match &config.histfile {
            Some(path) => {
                if let Err(e) = write_atomically_with(path, |file| write(file)) {
                    not_written(format!("the --histfile file '{}'", path.display()), e);
                }
            }
            None => {
                out!("{out}");
                out.clear();
                let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
                if let Err(e) = write(&mut stdout).and_then(|()| stdout.flush())
                    && !rtlat::stdio::note_reader_gone(&e)
                {
                    not_written("the histogram to standard output".into(), e);
                }
            }
        }
    }
    if config.spike.is_some() {
        text::spikes(&mut out, reports, config.spike_nodes as usize, nanoseconds);
    }
    let break_tid = shared.break_tid.load(Ordering::Acquire);
    if config.breaktrace.is_some() {
        text::break_lines(&mut out, reports, break_tid, nanoseconds);
    }
    if let Some(explained) = explained {
        out.push_str(&explain::text(explained, plan, nanoseconds));
    }
    let lost: Vec<u64> = shared
        .rings
        .iter()
        .map(|r| r.as_ref().map_or(0, |ring| ring.lost()))
        .collect();
    // Samples -v could not print because its reader went away are not news to anyone.
    if lost.iter().any(|&l| l > 0) && !rtlat::stdio::reader_gone() {
        errln!(
            "warning: -v could not print {} samples (output slower than the measurement); they are in the statistics and histograms",
            lost.iter().sum::<u64>()
        );
    }
    out!("{out}");
    let _ = std::io::stdout().flush();

    let worst = reports.iter().filter_map(|r| r.summary().max()).max();
    let failed = config
        .fail_above_us
        .is_some_and(|limit| worst.is_some_and(|w| w > (limit as i64) * 1000));
    let code = u8::from(failed);
    if let Some(path) = &config.json {
        let facts = json_out::RunFacts {
            cmdline: args_line(args, as_cyclictest),
            start_unix,
            end_unix,
            return_code: i32::from(code),
            nanoseconds,
            config: config_json(config, plan, profile),
            break_tid: (break_tid != 0).then_some(break_tid),
            lost_samples: lost,
            numa_nodes: !config.smp,
            explained: explained.map_or_else(Vec::new, |e| {
                e.threads
                    .iter()
                    .map(|found| explain::json(e, found))
                    .collect()
            }),
        };
        let doc = json_out::document(&facts, reports);
        if path.as_os_str() == "-" {
            out!("{doc}");
            let _ = std::io::stdout().flush();
        } else if let Err(e) = write_atomically(path, doc.as_bytes()) {
            not_written(format!("the --json file '{}'", path.display()), e);
        }
    }
    if failed {
        errln!(
            "worst latency {} µs is above --fail-above {} µs",
            worst.unwrap_or(0) / 1000,
            config.fail_above_us.unwrap_or(0)
        );
    }
    Ok(exit_status::code(exit_status::finished(code, all_written)))
}

fn final_figures(r: &ThreadReport) -> LiveFigures {
    let s = r.summary();
    LiveFigures {
        cycles: s.count(),
        min_ns: s.min().unwrap_or(0),
        act_ns: r.last_ns,
        max_ns: s.max().unwrap_or(0),
        sum_ns: s.sum() as i64,
        overruns: r.overruns,
    }
}

/// Now and the common start for aligned starts, in the run clock's nanoseconds: now, or with
/// `--secaligned` the next full second (the one after if the next is less than 100 ms away,
/// as cyclictest makes sure the start is not in the past).
fn epoch(config: &RunConfig) -> (u64, u64) {
    let now = match config.clock {
        Clock::Monotonic => PosixClock::new(ClockId::Monotonic).now_ns().unwrap_or(0),
        Clock::Realtime => PosixClock::new(ClockId::Realtime).now_ns().unwrap_or(0),
        #[cfg(target_arch = "aarch64")]
        Clock::Cntvct => rtlat_arm64::GenericTimer::new().map_or(0, |clock| clock.now_ns()),
    };
    const SECOND: u64 = 1_000_000_000;
    let epoch = match config.align {
        Some(Align::SecAligned { .. }) if now % SECOND > 900_000_000 => (now / SECOND + 2) * SECOND,
        Some(Align::SecAligned { .. }) => (now / SECOND + 1) * SECOND,
        _ => now,
    };
    (now, epoch)
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn args_line(args: &[String], as_cyclictest: bool) -> String {
    // cyclictest's "cmdline:" is its argv joined by spaces, argv[0] as typed.
    let program = if as_cyclictest {
        rtlat::args::program().unwrap_or_else(|| "cyclictest".into())
    } else {
        "rtlat run".to_string()
    };
    std::iter::once(program)
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn config_json(
    config: &RunConfig,
    plan: &Plan,
    profile: Option<&schema::Profile>,
) -> schema::RunConfig {
    schema::RunConfig {
        threads: plan
            .threads
            .iter()
            .map(|t| schema::ThreadConfig {
                index: t.index,
                cpu: t.cpu,
                policy: t.policy.sched_name().to_string(),
                priority: t.priority,
                interval_us: t.interval_us,
            })
            .collect(),
        loops: config.loops,
        duration_s: config.duration.map(|d| d.as_secs_f64()),
        timer: options::timer_name(config.timer).to_string(),
        clock: config.clock.c_name().to_string(),
        mlockall: config.mlockall,
        cpu_dma_latency_us: config.dma_latency_us(),
        histogram_buckets: config.histogram.map(|h| h.buckets),
        unit: if config.unit == Unit::Ns { "ns" } else { "us" }.to_string(),
        breaktrace: config.breaktrace,
        fail_above_us: config.fail_above_us,
        backend: config.backend.name().to_string(),
        xenomai_core: config.backend.core().map(String::from),
        profile: profile.cloned(),
    }
}
