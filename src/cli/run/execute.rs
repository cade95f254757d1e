//! `rtlat run` (and rtlat invoked as `cyclictest`) from command line to exit status: check
//! everything, set the machine up, run the measurement threads, report, undo.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rtlat_linux::{ClockId, Ftrace, PosixClock, ProcessCpus, signals};

use rtlat_engine::LiveStatus;
use rtlat_engine::rings::{RING_CAPACITY, sample_ring, smi_sample_ring};
use rtlat_engine::run::{MeasurePlan, RunShared, ThreadReport};
use rtlat_engine::seconds::SecondsSeries;
use rtlat_engine::session::{Notice, Session};
use rtlat_engine::tap::WakeTap;
use rtlat_linux::msr::SmiCounter;

use super::finish::{Finished, finish};
use super::live::{self, Live};
use super::load::{self, Load};
use super::output::cyclictest as text;
use super::prepare::{Prepared, prepare};
use super::snapshot::SnapshotFile;
use super::timerlat::{self, TimerlatRun};
use super::usage::usage;
use crate::cli::cpufreq::RunGovernor;
use crate::cli::cyclic::explain::Explainer;
use crate::cli::cyclic::fifo::StatsFifo;
use crate::cli::cyclic::measure::{kept_histogram, measure_plans, run_thread};
use crate::cli::cyclic::options::{self, Align, Clock, Plan, RunConfig, Unit};
use crate::cli::cyclic::smi;
use crate::cli::explain::TracerUse;
use rtlat::exit_status;
use rtlat_system::noise::timerlat::Workload;

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
    let Some(prepared) = prepare(args, as_cyclictest)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let Prepared {
        config,
        cpus,
        plan,
        policy,
        audit_tools,
        governor,
        idle_states,
        session_plan,
    } = prepared;
    // --timerlat: one thread per CPU, one interval; checked before anything changes.
    let timerlat_plan = if config.timerlat {
        Some(timerlat::check(&plan)?)
    } else {
        None
    };
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
    // --smi: each thread's counter, opened where cyclictest opens it (after its set-up).
    let smi_counters = if config.smi {
        let cpus: Vec<usize> = plan.threads.iter().map(|t| t.cpu).collect();
        match smi::open(&cpus, as_cyclictest) {
            Ok(counters) => counters,
            Err(lines) if as_cyclictest => {
                errln!("{lines}");
                return Ok(ExitCode::from(1));
            }
            Err(line) => return Err(line),
        }
    } else {
        Vec::new()
    };
    if session_plan.dma_latency_us.is_none() {
        // cyclictest's warnings (stderr) when it leaves /dev/cpu_dma_latency alone.
        if as_cyclictest && config.laptop {
            errln!("WARN: not setting cpu_dma_latency to save battery power");
        } else if as_cyclictest && config.default_system {
            errln!("WARN: not setting cpu_dma_latency from cyclictest");
        }
    }
    let ftrace = open_ftrace(&config)?;
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
    let fifo = config.fifo.as_deref().map(StatsFifo::create).transpose()?;
    // --load stress-ng: rtlat's built-in load, from before the threads start to the end of
    // the run (its own timeout 10 s after -D, should rtlat die without stopping it).
    let built_in_load = config.load.as_deref() == Some(load::BUILT_IN);
    let load_line =
        built_in_load.then(|| Load::command_line(config.duration.map(|d| d.as_secs() + 10)));
    let _load = match &load_line {
        Some(line) => {
            let started = Load::start(config.duration.map(|d| d.as_secs() + 10))?;
            outln!(
                "# load: {line} (process group {}), stopped when the run ends",
                started.pid()
            );
            Some(started)
        }
        None => None,
    };
    let start_unix = unix_now();
    // How the machine is tuned as the run starts (governor and idle states held), for the
    // JSON file; the built-in load as the command it runs.
    let provenance = config.json.is_some().then(|| {
        let cpus: Vec<usize> = plan.threads.iter().map(|t| t.cpu).collect();
        crate::cli::provenance::gather(
            &rtlat_system::facts::Facts::live(),
            &cpus,
            load_line.as_deref().or(config.load.as_deref()),
        )
    });
    let nanoseconds = config.unit == Unit::Ns;
    let mut measure_plans = measure_plans(&config, &plan, policy);
    // --timerlat: the tracer starts before the threads (they open its files once pinned) and
    // every setting is put back when it ends or drops.
    let timerlat_run = timerlat_plan
        .map(|plan| TimerlatRun::start(plan, config.explain))
        .transpose()?;
    if timerlat_run
        .as_ref()
        .is_some_and(|run| run.workload() == Workload::User)
    {
        for p in &mut measure_plans {
            p.timer = rtlat_linux::TimerKind::Timerlat;
        }
    }
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
    let shared = shared_state(&config, &plan, ftrace, smi_counters);
    let beside = Beside {
        config: &config,
        plan: &plan,
        cpus: &cpus,
        shared: &shared,
        fifo: fifo.as_ref(),
        snapshot: snapshot.as_ref(),
        nanoseconds,
        as_cyclictest,
    };
    let (mut reports, live) = measure(&session, &beside, &measure_plans)?;
    // The threads have ended (their timerlat_fd closed): the rest of the trace is read and
    // tracefs put back. A failure there is told; the run's own figures are still reported.
    let timerlat = timerlat_run.and_then(|run| match run.finish() {
        Ok(figures) => Some(figures),
        Err(e) => {
            errln!("{e}");
            None
        }
    });
    let (explainer, series) = live.into_parts();
    let end_unix = unix_now();
    take_series(&mut reports, series, &shared);
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
    finish(&Finished {
        config: &config,
        plan: &plan,
        shared: &shared,
        reports: &reports,
        nanoseconds,
        as_cyclictest,
        args,
        unix_times: (start_unix, end_unix),
        provenance: provenance.as_ref(),
        profile: profile.as_ref(),
        explained: explained.as_ref(),
        timerlat: timerlat.as_ref(),
    })
}

/// Gives each report its per-second series, with the windows pushed after the supervisor's
/// last pass (the last, partial ones); a series that lost windows says so.
fn take_series(reports: &mut [ThreadReport], series: Vec<SecondsSeries>, shared: &RunShared) {
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
}

/// `--tracemark` with `-b`: cyclictest opens ftrace only then, and says where it found it.
fn open_ftrace(config: &RunConfig) -> Result<Option<Ftrace>, String> {
    if !(config.tracemark && config.breaktrace.is_some()) {
        return Ok(None);
    }
    match Ftrace::open(std::path::Path::new("/")) {
        Ok(f) => {
            errln!("INFO: debugfs mountpoint: {}/", f.dir().display());
            Ok(Some(f))
        }
        Err(e) => Err(format!("--tracemark: {e}")),
    }
}

/// What the measuring threads and the main thread share, made before the threads start;
/// `smi`: the threads' SMI counters (`--smi`, else empty).
fn shared_state(
    config: &RunConfig,
    plan: &Plan,
    ftrace: Option<Ftrace>,
    smi: Vec<SmiCounter>,
) -> RunShared {
    let threads = plan.threads.len();
    // A stop signal that came before the threads start: they measure nothing.
    let stopped = signals::stop_requested() || rtlat::stdio::reader_gone();
    // -v's samples, with each cycle's SMIs under --smi.
    let counting = !smi.is_empty();
    RunShared {
        rings: (0..threads)
            .map(|_| (config.verbose && !counting).then(|| sample_ring(VERBOSE_RING)))
            .collect(),
        smi_rings: (0..threads)
            .map(|_| (config.verbose && counting).then(|| smi_sample_ring(VERBOSE_RING)))
            .collect(),
        smi,
        taps: (0..threads)
            .map(|_| config.explain.then(WakeTap::new))
            .collect(),
        ftrace,
        ..RunShared::new(threads, stopped, RING_CAPACITY)
    }
}

/// What the main thread works with while the threads measure.
struct Beside<'a> {
    config: &'a RunConfig,
    plan: &'a Plan,
    cpus: &'a ProcessCpus,
    shared: &'a RunShared,
    fifo: Option<&'a StatsFifo>,
    snapshot: Option<&'a SnapshotFile>,
    nanoseconds: bool,
    as_cyclictest: bool,
}

/// Runs the measuring threads with the main thread's supervisor ([`Live`]): once the threads
/// are set up, `--explain`'s evidence sampler starts, the common start is fixed, then the
/// `-F` pipe is served beside the live lines. Returns the threads' reports and the
/// supervisor.
fn measure<'a>(
    session: &Session,
    beside: &Beside<'a>,
    measure_plans: &'a [MeasurePlan],
) -> Result<(Vec<ThreadReport>, Live<'a>), String> {
    let &Beside {
        config,
        plan,
        cpus,
        shared,
        fifo,
        snapshot,
        nanoseconds,
        as_cyclictest,
    } = beside;
    let threads = measure_plans.iter().map(|p| {
        let histogram = kept_histogram(config);
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
            // The timerlat tracer holds tracefs's current tracer: the sampler explains.
            let tracer = if config.timerlat {
                TracerUse::Skip("the timerlat tracer runs for --timerlat")
            } else {
                TracerUse::Start
            };
            match Explainer::start(config, plan, &housekeeping, &tids, tracer) {
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
        let (now_ns, epoch_ns) = epoch(config);
        shared.epoch_ns.store(epoch_ns, Ordering::Release);
        // When the measurement starts (with --secaligned, at the next full second): -D counts
        // from here, as in cyclictest.
        let start = Instant::now() + Duration::from_nanos(epoch_ns.saturating_sub(now_ns));
        shared.go.wait();
        if let Some(fifo) = fifo {
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
            config,
            plan,
            shared,
            nanoseconds,
            as_cyclictest,
            snapshot,
            start,
            explainer,
        )
    });
    let measured = measured.map_err(|e| e.to_string())?;
    match explain_failed {
        Some(e) => Err(e),
        None => Ok(measured),
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
