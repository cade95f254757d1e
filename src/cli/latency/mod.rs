//! `rtlat latency`, and rtlat invoked as `latency`: Xenomai 3's testsuite `latency` on
//! rtlat's engine. Same options and defaults, same warm-up second, same output (`RTT|`,
//! `RTH|`, one `RTD|` per second, the `HSD|`/`HSH|`/`HSS|` blocks, the final `RTS|`, the
//! `-g` gnuplot file), measured on Linux (PREEMPT_RT or not) by a SCHED_FIFO thread that
//! sleeps to absolute deadlines.
//!
//! As in Xenomai 3.3.1 (checked side by side with its Mercury build, `tests/latency.rs`): a
//! "second" is `1e9 / period` wake-ups, so overruns stretch it; a run of `-T N` ends N
//! seconds after the warm-up second, a moment before the N-th second's figures are complete
//! at periods up to 1 ms: it prints N − 1 `RTD|` lines, and the N-th second's latencies are
//! in the "avg" histogram only; `-T 0` is the warm-up second alone. Latencies are signed (an
//! early wake-up shows as a negative minimum); the histograms count magnitudes, as
//! Xenomai's do.

// The sampling thread, run through rtlat-engine.
pub mod measure;
pub mod options;
pub mod output;
mod seconds;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{ClockId, Policy, ProcessCpus};

use rtlat_engine::latency::histogram::XenomaiHistogram;
use rtlat_engine::latency::{Plan, Shared};
use rtlat_engine::session::{Notice, Session, SessionPlan};
use rtlat_engine::setup::Setup;
use rtlat_engine::timers::ClockSource;

use self::options::{Config, Parsed};
use self::output::BuildInfo;
use self::seconds::{Live, Seconds};
use crate::cli::backend::Backend;
use crate::cli::cyclic::options::cpuset_refused;
use rtlat::atomic_file::write_atomically;
use rtlat::exit_status;

/// Bytes of it written before the run.
const STACK_PREFAULT: usize = 32 * 1024;

/// Runs `rtlat latency ARGS` (or `latency ARGS`); returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let program = program_name();
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            errln!("{program}: {message}");
            rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
        }
    }
}

/// The exit status of a refused command line. Under the name `latency`, Xenomai's own: a
/// value it cannot use (a period over 1 s, a CPU offline or outside the cgroup cpuset,
/// `-t 1`/`-t 2` on a system without its core, an unknown `-t`) ends it with status 1
/// (`error(1, EINVAL, …)`), an option it does not know with its usage and 2. As `rtlat
/// latency`, rtlat's 2 for both. Values Xenomai reads with `atoi` and gets wrong (`-p abc` is its default period there,
/// `-c x` CPU 0) are refused with rtlat's 2 under either name.
fn refusal_status(e: &rtlat::options::UsageError) -> u8 {
    use rtlat::options::{CliError, UsageError};
    match e {
        // -t 1, -t 2: Xenomai's, without Xenomai.
        UsageError::NotHere { .. } => value_refused_status(),
        UsageError::InvalidValue { option, value, .. }
            if matches!(option.as_str(), "-p" | "-c" | "-t")
                && value.trim_start().parse::<i64>().is_ok() =>
        {
            value_refused_status()
        }
        other => exit_status::of(&CliError::Usage(other.clone())),
    }
}

/// 1 under the name `latency` (Xenomai's status for a value it refuses), else 2.
fn value_refused_status() -> u8 {
    if program_name() == "latency" {
        1
    } else {
        exit_status::BAD_INPUT
    }
}

/// The backend without `--backend`: under the drop-in name `latency`, a binary built with
/// Xenomai measures on Xenomai, as the `latency` it stands in for does; otherwise (and as
/// `rtlat latency`) Linux.
pub fn default_backend(invoked_as_latency: bool) -> Backend {
    if invoked_as_latency && cfg!(feature = "xenomai") {
        Backend::Xenomai
    } else {
        Backend::Linux
    }
}

/// `latency` when invoked under that name, `rtlat latency` otherwise.
fn program_name() -> &'static str {
    let invoked_as_latency = rtlat::args::invoked_as().is_some_and(|n| n == "latency");
    if invoked_as_latency {
        "latency"
    } else {
        "rtlat latency"
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    // First of all: from here on SIGINT, SIGTERM and SIGHUP end the run cleanly (and SIGUSR1,
    // SIGUSR2 do not kill it), however early they come; so does SIGALRM, which Xenomai's
    // `latency` waits for with them (its `-T` is an alarm).
    Session::handle_signals(&[libc::SIGALRM]).map_err(|e| e.to_string())?;
    let parsed = match options::parse(args).and_then(|parsed| match &parsed {
        Parsed::Run(config) => config.check_output_paths().map(|()| parsed),
        _ => Ok(parsed),
    }) {
        Ok(parsed) => parsed,
        Err(e) => {
            errln!("{}: {e}", program_name());
            return Ok(ExitCode::from(refusal_status(&e)));
        }
    };
    let mut config = match parsed {
        Parsed::Help => {
            out!("{}", usage(program_name()));
            return Ok(ExitCode::SUCCESS);
        }
        Parsed::Usage(why) => {
            // Xenomai's usage goes to stderr with status 2; rtlat's one line says why.
            errln!("{}: {why}; see --help", program_name());
            return Ok(ExitCode::from(exit_status::BAD_INPUT));
        }
        Parsed::Run(config) => config,
    };
    if !config.backend_given {
        config.backend = default_backend(program_name() == "latency");
    }
    // Any online CPU, an isolated one included, as Xenomai's latency pins its thread there.
    let cpus = ProcessCpus::read().map_err(|e| e.to_string())?;
    let cpu = CpuSet::from_cpus([config.cpu]).map_err(|e| e.to_string())?;
    let refused = if cpus.online().contains(config.cpu) {
        cpus.refused_by_cpuset(&cpu)
            .map_err(|e| e.to_string())?
            .first()
            .map(|_| cpuset_refused("-c", &config.cpu.to_string(), &cpu, &cpus))
    } else {
        Some(format!(
            "invalid value '{}' for -c: CPU {} is not online (online CPUs: {}; isolated CPUs are accepted)",
            config.cpu,
            config.cpu,
            cpus.online()
        ))
    };
    if let Some(line) = refused {
        errln!("{}: {line}", program_name());
        return Ok(ExitCode::from(value_refused_status()));
    }
    // Xenomai's initialisation (the session's `init`), on this (the main) thread before the
    // sampling thread starts: a binary without Xenomai refuses there, before anything is
    // printed or changed. Xenomai locks all memory; rtlat also holds /dev/cpu_dma_latency at 0
    // for the run, as it does for `rtlat run` (each is undone at exit).
    let session_plan = SessionPlan {
        realtime: Some((Policy::Fifo, config.priority)),
        housekeeping: None,
        lock_memory: true,
        dma_latency_us: Some(0),
        init: config.backend.init(),
    };
    session_plan.check().map_err(|e| e.to_string())?;
    let session = Session::start(&session_plan, |notice| match notice {
        Notice::MemoryNotLocked(e) => {
            errln!("warning: {e}; the run continues, but page faults may add latency")
        }
        Notice::DmaLatencyNotHeld(e) => {
            errln!("warning: {e}; C-states are not limited for this run")
        }
        Notice::DmaLatencyHeld(_) => {}
    })
    .map_err(|e| e.to_string())?;
    for notice in &config.notices {
        errln!("{}: {notice}", program_name());
    }

    let mut out = String::new();
    output::preamble(&mut out, config.period_us);
    print_now(&out);

    let plan = Plan {
        setup: Setup {
            cpu: Some(config.cpu),
            policy: Policy::Fifo,
            priority: config.priority,
            prefault_stack: STACK_PREFAULT,
        },
        period_ns: config.period_us * 1000,
        cells: config.cells,
        bucket_ns: config.bucket_ns,
        duration_s: config.duration_s,
        clock: config.backend.clock(
            ClockSource::Posix(ClockId::Monotonic),
            config.priority,
            Some(config.cpu),
        ),
    };
    let shared = Shared::new();
    let seconds = Seconds::new(&config)?;
    let started = Instant::now();
    let sampling = ("rtlat-latency".to_string(), || {
        measure::run_thread(&plan, &shared)
    });
    let (reports, live) = session
        .measure([sampling], |_| {
            shared.ready.wait();
            Live::start(&config, &shared, seconds, started)
        })
        .map_err(|e| e.to_string())?;
    let (state, report) = (live.seconds, &reports[0]);
    let actual_s = seconds_since(started).saturating_sub(1);
    finish(&config, &state, &report.histogram, actual_s)
}

/// The end of the run: histograms and statistics, the gnuplot file, `RTS|`, the exit status.
fn finish(
    config: &Config,
    s: &Seconds,
    avg_histogram: &XenomaiHistogram,
    actual_s: u64,
) -> Result<ExitCode, String> {
    let overall = s.overall();
    let mut out = String::new();
    let mut written = true;
    if config.histograms() {
        let (min, avg, max) = (
            s.min_histogram.cells(),
            avg_histogram.cells(),
            s.max_histogram.cells(),
        );
        if config.histogram {
            output::histogram_block(&mut out, "min", &min);
            output::histogram_block(&mut out, "avg", &avg);
            output::histogram_block(&mut out, "max", &max);
        }
        // Xenomai prints the statistics whenever it keeps histograms (-h, -s or -g).
        output::stats_block(&mut out, &min, &avg, &max);
        if let Some(path) = &config.gnuplot {
            let mut plot = String::new();
            let info = BuildInfo::live();
            let run = output::PlotRun {
                duration_s: actual_s,
                period_us: config.period_us,
                priority: config.priority,
                overall: &overall,
                info: &info,
                backend: config.backend,
            };
            output::gnuplot(&mut plot, &avg, config.bucket_ns, &run);
            if path.as_os_str() == "-" {
                out.push_str(&plot);
            } else if let Err(e) = write_atomically(path, plot.as_bytes()) {
                // The figures are printed all the same; the status says the file is missing.
                errln!(
                    "{}: cannot write the -g file '{}': {e}",
                    program_name(),
                    path.display()
                );
                written = false;
            }
        }
    }
    // Without -T, or with -T 0, Xenomai shows the actual duration as the planned one.
    let planned_s = config.duration_s.filter(|&n| n > 0).unwrap_or(actual_s);
    output::rts(&mut out, &overall, actual_s, planned_s);
    // -m compares RTS's worst latency (the reported seconds'); -m 0 checks nothing.
    let over = config
        .max_us
        .filter(|&limit| limit > 0 && s.reported > 0)
        .filter(|&limit| s.worst_ns > (limit as i64).saturating_mul(1000));
    if let Some(limit) = over {
        output::max_exceeded(&mut out, s.worst_ns, limit);
    }
    print_now(&out);
    let verdict = if over.is_some() {
        exit_status::OVER_THRESHOLD
    } else {
        exit_status::OK
    };
    Ok(exit_status::code(exit_status::finished(verdict, written)))
}

/// Whole seconds since `started`, rounded: Xenomai subtracts two `time()` readings, which
/// is the nearest whole second on average; rounding makes a `-T 4` run read `00:00:04`.
fn seconds_since(started: Instant) -> u64 {
    (started.elapsed() + Duration::from_millis(500)).as_secs()
}

fn print_now(text: &str) {
    if !text.is_empty() {
        // A reader gone (`| head`) ends the run (see `rtlat::stdio`).
        out!("{text}");
    }
}

/// The `--help` text.
pub fn usage(program: &str) -> String {
    format!(
        "Usage: {program} [OPTIONS]\n\
         \n\
         Xenomai 3's `latency` on Linux: a SCHED_FIFO thread wakes up every period at an absolute\n\
         deadline and measures how late it woke. After a warm-up second, one RTD| line per second\n\
         gives that second's min/avg/max latency (µs, signed: early wake-ups are negative), the\n\
         overruns so far, mode switches (always 0 without Xenomai) and the best and worst so far.\n\
         As in Xenomai 3.3.1, a \"second\" is 1e9/period wake-ups: a wake-up more than a period\n\
         late is one sample and the periods it missed are overruns, so overruns make it longer.\n\
         Installed or linked under the name `latency`, this is a drop-in for Xenomai's.\n\
         \n\
         \x20 -p US      sampling period in µs, 1..1000000 (default {period})\n\
         \x20 -T SEC     end the run SEC seconds after the warm-up second (without -T: at Ctrl-C;\n\
         \x20            -T 0: after the warm-up second); as in Xenomai, the last second is in the\n\
         \x20            avg histogram but gets no RTD| line unless it ends first (periods over 1 ms)\n\
         \x20 -h         print histograms of the per-second min, every latency (avg) and the\n\
         \x20            per-second max (cells count |latency|; the last cell holds all beyond)\n\
         \x20 -s         print their statistics (printed with -h and -g too, as Xenomai does)\n\
         \x20 -g FILE    write the latency histogram to FILE in gnuplot format (- : stdout); its\n\
         \x20            header keeps Xenomai's lines, naming rtlat/{backend} where Xenomai names itself\n\
         \x20 -H N       histogram cells, 1..1000000 (default {cells}, as Xenomai's code; its usage\n\
         \x20            text says 200)\n\
         \x20 -B NS      histogram bucket width in ns (default {bucket})\n\
         \x20 -l N       data lines per header, 0 for no header (default {lines})\n\
         \x20 -q         with -T: no RTT|/RTH|/RTD| lines, only the final figures\n\
         \x20 -c CPU     run the sampling thread on CPU, any online one (an isolated CPU included;\n\
         \x20            default {cpu}, as Xenomai 3)\n\
         \x20 -P PRIO    its SCHED_FIFO priority, 1..99 (default {priority})\n\
         \x20 -m MAX     after RTS|, print \"Maximum latency exceeded: WORST > MAX\" and exit with\n\
         \x20            status 1 if RTS|'s worst latency exceeds MAX µs (-m 0: no check)\n\
         \x20 -t 0       test mode 0, a periodic user-mode task (the only one on Linux: -t 1 and\n\
         \x20            -t 2 need Xenomai's in-kernel timerbench driver and are refused, as on\n\
         \x20            Xenomai's Mercury core)\n\
         \x20 -D N       refused with status 2, as Xenomai 3.3.1 does\n\
         \x20 -b, -f     accepted without effect, as on Xenomai's Mercury core (no mode switch to\n\
         \x20            break on, no I-pipe tracer to freeze; for ftrace: rtlat run -b US --tracemark)\n\
         \x20 --backend linux|xenomai\n\
         \x20            what the sampling thread sleeps on (rtlat): linux, a thread sleeping to\n\
         \x20            absolute deadlines on CLOCK_MONOTONIC; xenomai, a Xenomai Alchemy task on\n\
         \x20            its periodic timer (rt_task_wait_period), as Xenomai's own latency (a binary\n\
         \x20            built with the xenomai feature; the same lines either way). Default: xenomai\n\
         \x20            under the name latency in a binary built with it, else linux\n\
         \x20 --help     print this help (-? prints one line and exits with status 2, as Xenomai)\n\
         \n\
         SIGINT, SIGTERM, SIGHUP and SIGALRM end the run with the summary, as in Xenomai.\n\
         \n\
         Deliberate differences from Xenomai 3.3.1's latency:\n\
         \x20 - values Xenomai reads with atoi and gets wrong are refused (status 2, one line):\n\
         \x20   -p 1x (1 µs there), -H 0 (a double free there), -B 0 (SIGFPE there), negative\n\
         \x20   -T, -m, -H, -l, -P outside 1..99 (clamped there)\n\
         \x20 - a value Xenomai refuses (-p over 1 s, a CPU offline or outside the cgroup\n\
         \x20   cpuset, -t 1/-t 2 without its core, an unknown -t) ends with its status 1 under\n\
         \x20   the name latency, with one line saying why; as `rtlat latency`, with rtlat's 2\n\
         \x20 - -? and -D print one line naming the problem, not the whole usage (status 2)\n\
         \x20 - memory is locked and /dev/cpu_dma_latency held at 0 for the run; the msw column\n\
         \x20   is always 0; warnings are one plain line on stderr\n\
         \x20 - a -T run ends N+1 s after the thread's start, not after the process's (Xenomai's\n\
         \x20   start-up delay can cut its last second at periods over 1 ms)\n\
         \x20 - a -g file that cannot be written is refused before the run\n\
         \n\
         {exit_statuses}\n",
        period = options::DEFAULT_PERIOD_US,
        cells = options::DEFAULT_CELLS,
        bucket = options::DEFAULT_BUCKET_NS,
        lines = options::DEFAULT_LINES,
        cpu = options::DEFAULT_CPU,
        priority = options::DEFAULT_PRIORITY,
        backend = output::BACKEND,
        exit_statuses = exit_status::HELP,
    )
}
