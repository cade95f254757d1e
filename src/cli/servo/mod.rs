//! `rtlat servo`: LinuxCNC's latency-test without HAL. A base thread (default 25 µs) and a
//! servo thread (default 1 ms), or the servo thread alone, SCHED_FIFO on one CPU, the base
//! thread at the higher priority, scheduled as LinuxCNC's HAL threads (rtlat-core's
//! [`rtlat_core::Periodic`]: missed periods run back to back, never skipped); each reports
//! its longest interval and its max jitter (LinuxCNC's definition:
//! `max(max_interval − period, period − min_interval)`, from rtlat-core's
//! [`rtlat_core::JitterMonitor`]) and its overruns, live and at the end, under latency-test's
//! labels, with the verdict of LinuxCNC's current documentation ([`Verdict`]).

pub mod explain;
pub mod measure;
pub mod options;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_formats::schema::Entries;
use rtlat_formats::schema::servo as schema;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{DmaLatencyGuard, Policy, ProcessCpus, signals};

use self::options::{Config, Parsed};
use crate::cli::run::options::cpuset_refused;
use rtlat::atomic_file::write_atomically;
use rtlat::exit_status;
use rtlat_engine::LiveStatus;
use rtlat_engine::servo::{Figures, Plan, Report, Shared};
use rtlat_engine::setup::Setup;
use rtlat_engine::threads::{Failures, measurement_threads};

/// The base thread's priority: LinuxCNC gives the fastest thread the highest real-time
/// priority below the maximum.
pub const BASE_PRIORITY: i32 = 98;
/// The servo thread's: one below.
pub const SERVO_PRIORITY: i32 = 97;
/// Bytes of each written before the run.
const STACK_PREFAULT: usize = 32 * 1024;
/// How often the live lines are redrawn.
const REFRESH: Duration = Duration::from_millis(100);

/// Where the verdict's bands and wording come from.
pub const DOCUMENTATION: &str = "LinuxCNC documentation, Latency Testing (install/latency-test.adoc), as revised in November 2025, after 2.9";

/// Max jitter below this: very nice results, software stepping or a hardware card
/// (LinuxCNC: "less than about 20,000 nanoseconds").
pub const GOOD_BELOW_NS: u64 = 20_000;
/// From this on, no software stepping (LinuxCNC: "between 50,000 and 500,000").
pub const NO_STEPPING_FROM_NS: u64 = 50_000;
/// Above this, not acceptable even with a hardware card (LinuxCNC: "above 500,000").
pub const UNUSABLE_ABOVE_NS: u64 = 500_000;

/// LinuxCNC's reading of a max jitter (its documentation's four bands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    /// Below 20 µs.
    Good,
    /// 20 µs to below 50 µs.
    Limited,
    /// 50 µs to 500 µs.
    NoSoftwareStepping,
    /// Above 500 µs.
    Unusable,
}

impl Rating {
    /// The rating of `max_jitter_ns`.
    pub fn of(max_jitter_ns: u64) -> Rating {
        if max_jitter_ns < GOOD_BELOW_NS {
            Rating::Good
        } else if max_jitter_ns < NO_STEPPING_FROM_NS {
            Rating::Limited
        } else if max_jitter_ns <= UNUSABLE_ABOVE_NS {
            Rating::NoSoftwareStepping
        } else {
            Rating::Unusable
        }
    }

    /// Its name in the JSON.
    pub fn key(self) -> &'static str {
        match self {
            Rating::Good => "good",
            Rating::Limited => "limited",
            Rating::NoSoftwareStepping => "no_software_stepping",
            Rating::Unusable => "unusable",
        }
    }

    /// What it means for the base thread's max jitter (software stepping, or a hardware
    /// card), after LinuxCNC's documentation.
    pub fn text(self) -> &'static str {
        match self {
            Rating::Good => {
                "under 20 µs: very nice results with software stepping or with a hardware card (e.g. Mesa)"
            }
            Rating::Limited => {
                "20 to 50 µs: software stepping works, but its maximum step rate may disappoint; a hardware card gives excellent results"
            }
            Rating::NoSoftwareStepping => {
                "50 to 500 µs: no software stepping; a hardware card gives acceptable results"
            }
            Rating::Unusable => {
                "over 500 µs: not acceptable for LinuxCNC, with software stepping or with a hardware card"
            }
        }
    }

    /// What it means for the servo thread's max jitter when there is no base thread (a
    /// hardware-card setup): the hardware-card part of the same bands.
    pub fn servo_only_text(self) -> &'static str {
        match self {
            Rating::Good => "under 20 µs: very nice results with a hardware card (e.g. Mesa)",
            Rating::Limited => "20 to 50 µs: excellent results with a hardware card",
            Rating::NoSoftwareStepping => "50 to 500 µs: acceptable results with a hardware card",
            Rating::Unusable => {
                "over 500 µs: not acceptable for LinuxCNC, even with a hardware card"
            }
        }
    }
}

/// The verdict: the base thread's max jitter, as LinuxCNC's documentation reads it for
/// software stepping; without a base thread, the servo thread's, read for a hardware card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// `base` or `servo`.
    pub thread: &'static str,
    /// Its max jitter, ns.
    pub max_jitter_ns: u64,
    /// The band.
    pub rating: Rating,
}

impl Verdict {
    /// The verdict on the threads run (`plans` and their figures, in the same order); `None`
    /// before the judged thread has measured an interval.
    fn of(plans: &[Plan], figures: &[Figures]) -> Option<Verdict> {
        let judged = plans
            .iter()
            .position(|p| p.name == "base")
            .or_else(|| plans.iter().position(|p| p.name == "servo"))?;
        let max_jitter_ns = figures.get(judged)?.max_jitter_ns?;
        Some(Verdict {
            thread: plans[judged].name,
            max_jitter_ns,
            rating: Rating::of(max_jitter_ns),
        })
    }

    /// Its text.
    pub fn text(&self) -> &'static str {
        if self.thread == "base" {
            self.rating.text()
        } else {
            self.rating.servo_only_text()
        }
    }
}

/// Runs `rtlat servo ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            errln!("rtlat servo: {message}");
            rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
        }
    }
}

/// One thread as the table shows it.
struct Row {
    label: String,
    period_ns: u64,
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    // First of all: from here on SIGINT, SIGTERM and SIGHUP end the run cleanly (and SIGUSR1,
    // SIGUSR2 do not kill it), however early they come.
    signals::install_run_handlers().map_err(|e| e.to_string())?;
    let config = match options::parse(args).map_err(|e| e.to_string())? {
        Parsed::Help => {
            out!("{}", usage());
            return Ok(ExitCode::SUCCESS);
        }
        Parsed::Run(config) => config,
    };
    config.check_output_paths().map_err(|e| e.to_string())?;
    // The online CPUs (any may be named, isolated ones included) and the default ones.
    let cpus = ProcessCpus::read().map_err(|e| e.to_string())?;
    let (cpu, option) = match config.cpu {
        Some(cpu) if cpus.online().contains(cpu) => (cpu, "--cpu"),
        Some(cpu) => {
            return Err(format!(
                "invalid value '{cpu}' for --cpu: CPU {cpu} is not online (online CPUs: {}; isolated CPUs are accepted)",
                cpus.online()
            ));
        }
        None => {
            let isolated = CpuSet::read_list_file(Path::new(ISOLATED)).unwrap_or_default();
            let cpu =
                default_cpu(&cpus, &isolated).ok_or("no CPU is available to run the threads on")?;
            (cpu, "--cpu (its default)")
        }
    };
    let one = CpuSet::from_cpus([cpu]).map_err(|e| e.to_string())?;
    if !cpus
        .refused_by_cpuset(&one)
        .map_err(|e| e.to_string())?
        .is_empty()
    {
        return Err(cpuset_refused(option, &cpu.to_string(), &one, &cpus));
    }
    rtlat_linux::check_rt_permission(Policy::Fifo, BASE_PRIORITY).map_err(|e| e.to_string())?;

    // LinuxCNC's realtime locks memory and holds /dev/cpu_dma_latency at 0; so does this.
    if let Err(e) = rtlat_linux::lock_memory() {
        errln!("warning: {e}; the run continues, but page faults may add jitter");
    }
    let _dma_latency = DmaLatencyGuard::set(0)
        .map_err(|e| errln!("warning: {e}; C-states are not limited for this run"))
        .ok();

    let plans = plans(&config, cpu);
    let rows: Vec<Row> = plans
        .iter()
        .map(|p| Row {
            label: thread_label(p.name, requested_period(&config, p.name)),
            period_ns: p.period_ns,
        })
        .collect();
    // `base 98, servo 97`, fastest first.
    let priorities = plans
        .iter()
        .rev()
        .map(|p| format!("{} {}", p.name, p.setup.priority))
        .collect::<Vec<_>>()
        .join(", ");
    let shared = Shared::new(plans.len());
    let started = Instant::now();
    let threads = plans.iter().enumerate().map(|(i, plan)| {
        let shared = &shared;
        (format!("rtlat-{}", plan.name), move || {
            measure::run_thread(plan, i, shared)
        })
    });
    let failures = Failures {
        cannot_start: &|i, e| format!("cannot start the {} thread: {e}", plans[i].name),
        panicked: "a thread panicked",
    };
    let mut explainer = None;
    let mut explain_failed = None;
    let (reports, ()) = measurement_threads(threads, failures, |_| {
        shared.ready.wait();
        // --explain: the evidence sampler starts once the threads are set up (their ids
        // known).
        if config.explain {
            // The sampler on the default CPUs (never an isolated one) but the threads' own.
            let housekeeping: Vec<usize> = cpus.default_cpus().iter().collect();
            match explain::Explainer::start(&plans, &shared, cpu, &housekeeping) {
                Ok(started) => {
                    errln!("{}", started.started_line());
                    explainer = Some(started);
                }
                Err(e) => {
                    shared.stop.store(true, Ordering::Release);
                    explain_failed = Some(e);
                }
            }
        }
        supervise(
            &config,
            &shared,
            &rows,
            &priorities,
            cpu,
            started,
            explainer.as_mut(),
        );
    })?;
    let elapsed = started.elapsed();
    if let Some(e) = explain_failed {
        return Err(e);
    }
    // --explain: each thread's worst run, explained after one last sample.
    let explained = explainer.map(|e| e.finish(&shared));

    let figures: Vec<Figures> = reports.iter().map(Figures::from_report).collect();
    let verdict = Verdict::of(&plans, &figures);
    let mut out = String::new();
    if config.quiet {
        table(&mut out, &rows, &figures);
    }
    match verdict {
        Some(v) => {
            let _ = writeln!(
                out,
                "Verdict: max jitter {} ns ({} thread): {}",
                v.max_jitter_ns,
                v.thread,
                v.text()
            );
        }
        None => out.push_str("Verdict: none (the run was too short to measure an interval)\n"),
    }
    if let Some(records) = &explained {
        let jitter: Vec<Option<u64>> = figures.iter().map(|f| f.max_jitter_ns).collect();
        out.push_str(&explain::text(&plans, &jitter, records));
    }
    out!("{out}");
    let _ = std::io::stdout().flush();

    if let Some(path) = &config.json {
        let doc = document(
            &config,
            &plans,
            &reports,
            (cpu, elapsed),
            verdict,
            explained.as_deref(),
        );
        let text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into()) + "\n";
        if path.as_os_str() == "-" {
            out!("{text}");
            let _ = std::io::stdout().flush();
        } else if let Err(e) = write_atomically(path, text.as_bytes()) {
            errln!(
                "rtlat servo: cannot write the --json file '{}': {e}",
                path.display()
            );
            return Ok(exit_status::code(exit_status::finished(
                exit_status::OK,
                false,
            )));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The threads as LinuxCNC creates them, fastest first (`threads name1=fast period1=BASE
/// name2=slow period2=SERVO`): the first at the highest priority below the maximum, each next
/// one lower; every later period rounded to a whole multiple of the first (HAL's rule); all on
/// `cpu`. Listed servo first, as latency-test shows them.
fn plans(config: &Config, cpu: usize) -> Vec<Plan> {
    let plan = |name, period_ns, priority| Plan {
        name,
        period_ns,
        setup: Setup {
            cpu: Some(cpu),
            policy: Policy::Fifo,
            priority,
            prefault_stack: STACK_PREFAULT,
        },
    };
    match config.base_ns {
        Some(base_ns) => vec![
            plan(
                "servo",
                servo_period(base_ns, config.servo_ns),
                SERVO_PRIORITY,
            ),
            plan("base", base_ns, BASE_PRIORITY),
        ],
        None => vec![plan("servo", config.servo_ns, BASE_PRIORITY)],
    }
}

/// The servo thread's period as HAL runs it beside a base thread: the requested period
/// rounded to the nearest whole multiple of the base period (33333 and 1234567 ns run at
/// 37 × 33333 = 1233321 ns).
pub fn servo_period(base_ns: u64, servo_ns: u64) -> u64 {
    let multiple = (servo_ns + base_ns / 2) / base_ns;
    base_ns * multiple.max(1)
}

/// The period the user asked for `thread` (the one latency-test's labels show).
fn requested_period(config: &Config, thread: &str) -> u64 {
    match thread {
        "base" => config.base_ns.unwrap_or(0),
        _ => config.servo_ns,
    }
}

/// `Servo thread (1ms):`, `Base thread (25µs):`: latency-test's labels, with its way of
/// writing a period (`human_time`: the value in s, ms, µs or ns, whichever is the largest
/// unit not above it, printed by awk with six significant digits: `1.5ms`, `12.5µs`,
/// `1.23457ms`).
fn thread_label(name: &str, period_ns: u64) -> String {
    let mut title = name.to_string();
    if let Some(first) = title.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    format!("{title} thread ({}):", human_time(period_ns))
}

/// latency-test's `human_time`: `-` for 0, else the period in the largest of s, ms, µs, ns
/// that is not above it, divided down by 1000s in floating point and printed as `%.6g`.
pub fn human_time(period_ns: u64) -> String {
    let (divisions, unit) = match period_ns {
        0 => return "-".into(),
        1_000_000_000.. => (3, "s"),
        1_000_000.. => (2, "ms"),
        1_000.. => (1, "µs"),
        _ => (0, "ns"),
    };
    let mut value = period_ns as f64;
    for _ in 0..divisions {
        value /= 1000.0;
    }
    format!("{}{unit}", six_significant_digits(value))
}

/// `%.6g` for a value from 1 to below 1000 (as awk prints a number): six significant digits,
/// trailing zeros and a trailing point removed.
fn six_significant_digits(value: f64) -> String {
    let decimals = if value >= 100.0 {
        3
    } else if value >= 10.0 {
        4
    } else {
        5
    };
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0');
    text.trim_end_matches('.').to_string()
}

/// The table: a header and one line per thread.
fn table(out: &mut String, rows: &[Row], figures: &[Figures]) {
    // In characters: `µs` is two bytes, one column.
    let width = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(
        out,
        "{:width$}  {:>17}  {:>15}  {:>18}  {:>8}",
        "", "Max Interval (ns)", "Max Jitter (ns)", "Last interval (ns)", "Overruns"
    );
    let show = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    for (row, f) in rows.iter().zip(figures) {
        let _ = writeln!(
            out,
            "{:width$}  {:>17}  {:>15}  {:>18}  {:>8}",
            row.label,
            show(f.max_interval_ns),
            show(f.max_jitter_ns),
            show(f.last_interval_ns),
            f.overruns
        );
    }
}

/// The main thread while the threads run: redraws the table (unless `-q`), ends the run on
/// Ctrl-C, at the end of `-D`, or when a thread stops.
fn supervise(
    config: &Config,
    shared: &Shared,
    rows: &[Row],
    priorities: &str,
    cpu: usize,
    started: Instant,
    mut explainer: Option<&mut explain::Explainer>,
) {
    let mut stdout = std::io::stdout().lock();
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
    // The table of the live figures, after moving back over the previous one (as cyclictest
    // redraws) unless it is the first.
    let redraw = |stdout: &mut std::io::StdoutLock, first: bool| {
        let figures: Vec<Figures> = shared
            .live
            .iter()
            .zip(rows)
            .map(|(l, r)| Figures::from_live(&l.read(), r.period_ns))
            .collect();
        let mut out = String::new();
        if !first {
            let _ = write!(out, "\x1b[{}A", rows.len() + 1);
        }
        table(&mut out, rows, &figures);
        // A reader gone (`| head`) ends the run below (see `rtlat::stdio`).
        if let Err(e) = stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
        {
            rtlat::stdio::stdout_failed(&e);
        }
    };
    let mut first = true;
    loop {
        let done = shared.live.iter().any(|l| l.finished());
        if let Some(explainer) = explainer.as_deref_mut() {
            explainer.update(shared);
        }
        if !config.quiet {
            redraw(&mut stdout, first);
            first = false;
        }
        if done {
            break;
        }
        // A reader gone (`| head`) ends the run as a stop signal does (see `rtlat::stdio`).
        if signals::stop_requested()
            || rtlat::stdio::reader_gone()
            || config.duration.is_some_and(|d| started.elapsed() >= d)
        {
            break;
        }
        // A stop signal ends the pause at once.
        signals::sleep_or_signal(REFRESH);
    }
    shared.stop.store(true, Ordering::Release);
    // Wait for every thread to leave its loop, so the last redraw shows the final figures;
    // the ones still asleep are woken now, not at their next tick (a period may be a second).
    // Sent again on each pass: a wake-up just before a sleep starts is not seen by it.
    while !shared.live.iter().all(|l| l.finished()) {
        signals::cancel_measurement(
            shared
                .live
                .iter()
                .filter(|l| !l.finished())
                .map(LiveStatus::tid),
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    if !config.quiet {
        redraw(&mut stdout, false);
    }
}

/// The `--json` document.
fn document(
    config: &Config,
    plans: &[Plan],
    reports: &[Report],
    (cpu, elapsed): (usize, Duration),
    verdict: Option<Verdict>,
    explained: Option<&[Option<rtlat_system::noise::SpikeRecord>]>,
) -> schema::Document {
    let threads = plans
        .iter()
        .zip(reports)
        .enumerate()
        .map(|(i, (plan, r))| {
            let j = &r.jitter;
            let thread = schema::Thread {
                period_ns: plan.period_ns,
                requested_period_ns: requested_period(config, plan.name),
                policy: "SCHED_FIFO".to_string(),
                priority: plan.setup.priority,
                ticks: j.ticks,
                min_interval: j.min_interval_ns,
                max_interval: j.max_interval_ns,
                max_jitter: j.max_jitter_ns,
                last_interval: r.last_interval_ns,
                overruns: r.overruns,
                cumulative_error: r.cumulative_error_ns,
                lateness: schema::Lateness {
                    min: r.lateness.min(),
                    max: r.lateness.max(),
                    mean: r.lateness.mean(),
                    first: r.first_lateness_ns,
                    last: r.last_lateness_ns,
                },
                rating: j.max_jitter_ns.map(|m| Rating::of(m).key().to_string()),
                allocations_while_measuring: r.allocations,
                minor_page_faults_while_measuring: r.minor_faults,
                spikes: explained.map(|records| {
                    records
                        .get(i)
                        .and_then(Option::as_ref)
                        .map(explain::json)
                        .into_iter()
                        .collect()
                }),
            };
            (plan.name.to_string(), thread)
        })
        .collect();
    schema::Document {
        rtlat_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "servo".to_string(),
        unit: "ns".to_string(),
        cpu: cpu as u64,
        duration_s: elapsed.as_secs_f64(),
        requested_duration_s: config.duration.map(|d| d.as_secs()),
        threads: Entries(threads),
        verdict: verdict.map(|v| schema::Verdict {
            thread: v.thread.to_string(),
            max_jitter: v.max_jitter_ns,
            rating: v.rating.key().to_string(),
            text: v.text().to_string(),
            documentation: DOCUMENTATION.to_string(),
        }),
        thresholds_ns: schema::Thresholds {
            good_below: GOOD_BELOW_NS,
            no_software_stepping_from: NO_STEPPING_FROM_NS,
            unusable_above: UNUSABLE_ABOVE_NS,
        },
    }
}

/// The kernel's list of the CPUs `isolcpus=` isolated (empty: none).
const ISOLATED: &str = "/sys/devices/system/cpu/isolated";

/// Where both threads run without `--cpu`, as LinuxCNC's uspace realtime places its threads:
/// the last isolated CPU that is online (LinuxCNC 2.9 takes the last CPU the process can be
/// moved to, which on a machine isolating its last CPUs is the same one; its development
/// branch takes the last isolated CPU), else the last CPU of the process's default set.
fn default_cpu(cpus: &ProcessCpus, isolated: &CpuSet) -> Option<usize> {
    isolated
        .intersection(cpus.online())
        .last()
        .or_else(|| cpus.default_cpus().last())
}

/// The `--help` text.
pub fn usage() -> String {
    format!(
        "Usage: rtlat servo [OPTIONS]\n\
         \n\
         LinuxCNC's latency-test without HAL: a base thread and a servo thread, SCHED_FIFO on one\n\
         CPU (base priority {BASE_PRIORITY}, servo {SERVO_PRIORITY}), scheduled as LinuxCNC schedules its threads: each\n\
         deadline is the previous one plus the period, and a thread that falls behind runs its\n\
         missed periods back to back, never skipping one (so the shortest interval can drop to\n\
         well under a microsecond after a hold-up, and the runs always match the time). For each\n\
         thread it shows the longest interval between two runs, the max jitter,\n\
         max(max interval - period, period - min interval), and the last interval, in ns, live\n\
         and at the end, with the overruns beside them: runs whose deadline had already passed\n\
         when the thread came to wait for it (LinuxCNC's \"Unexpected realtime delay\").\n\
         \n\
         \x20     --base PERIOD    base thread period (default 25us); 0 or -: no base thread, the\n\
         \x20                      servo thread alone (at priority {BASE_PRIORITY}), as latency-test does\n\
         \x20     --servo PERIOD   servo thread period (default 1ms); beside a base thread it runs,\n\
         \x20                      as in HAL, at the nearest whole multiple of the base period\n\
         \x20                      PERIOD: ns (25000), or with ns, us, ms or s (25us, 1.5ms);\n\
         \x20                      1 µs to 1 s, base shorter than servo\n\
         \x20 -D, --duration TIME  stop after TIME: seconds, or with s, m, h or d (default: Ctrl-C)\n\
         \x20 -q, --quiet          print only the final figures\n\
         \x20     --cpu CPU        run both threads on CPU, any online one (an isolated CPU\n\
         \x20                      included); default, as LinuxCNC places its realtime\n\
         \x20                      threads: the last isolated CPU, else the last CPU of this\n\
         \x20                      process's affinity mask\n\
         \x20     --json PATH      write the results as JSON to PATH (- : standard output)\n\
         \x20     --explain        name the likely cause of each thread's max jitter (the late\n\
         \x20                      wake-up behind it) from an evidence sampler on the other\n\
         \x20                      CPUs, SCHED_OTHER; printed after the verdict (and in the\n\
         \x20                      --json threads' spikes)\n\
         \x20 -h, --help           print this help\n\
         \n\
         The verdict follows LinuxCNC's documentation as revised in November 2025 (after 2.9),\n\
         which reads the base thread's max jitter:\n\
         \x20 under 20 µs     very nice results, software stepping or a hardware card\n\
         \x20 20 to 50 µs     software stepping works, its step rate may disappoint; a hardware\n\
         \x20                 card gives excellent results\n\
         \x20 50 to 500 µs    no software stepping; a hardware card gives acceptable results\n\
         \x20 over 500 µs     not acceptable, even with a hardware card\n\
         Without a base thread (a hardware-card setup) the documentation names no thread: the\n\
         servo thread's max jitter is read against the hardware-card part of the same bands.\n\
         (LinuxCNC 2.9's wording: under 15-20 µs very nice, 30-50 µs good, 100 µs or more not\n\
         for software stepping, over 1 ms not for LinuxCNC.)\n\
         \n\
         Memory is locked and /dev/cpu_dma_latency held at 0 for the run. Invalid values, and a\n\
         --json file that cannot be written, are refused before the run.\n\
         \n\
         {}\n",
        rtlat::exit_status::HELP
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cpu_is_the_last_isolated_one_as_in_linuxcnc() {
        let set = |list: &str| CpuSet::parse_allowing_empty(list).unwrap();
        // isolcpus=2-3 on four CPUs: the affinity mask is 0-1, the threads go to CPU 3.
        let isolated = ProcessCpus::new(set("0-3"), set("0-1"));
        assert_eq!(default_cpu(&isolated, &set("2-3")), Some(3));
        // An isolated CPU that is offline is not chosen.
        assert_eq!(default_cpu(&isolated, &set("2-5")), Some(3));
        // None isolated: the last CPU of the affinity mask (taskset -c 0: CPU 0).
        let plain = ProcessCpus::new(set("0-3"), set("0-3"));
        assert_eq!(default_cpu(&plain, &set("")), Some(3));
        let taskset = ProcessCpus::new(set("0-3"), set("0"));
        assert_eq!(default_cpu(&taskset, &set("")), Some(0));
    }

    #[test]
    fn ratings_follow_linuxcncs_current_documentation() {
        assert_eq!(Rating::of(0), Rating::Good);
        assert_eq!(Rating::of(19_999), Rating::Good);
        assert_eq!(Rating::of(20_000), Rating::Limited);
        assert_eq!(Rating::of(49_999), Rating::Limited);
        assert_eq!(Rating::of(50_000), Rating::NoSoftwareStepping);
        assert_eq!(Rating::of(500_000), Rating::NoSoftwareStepping);
        assert_eq!(Rating::of(500_001), Rating::Unusable);
    }

    fn figures(max_jitter_ns: Option<u64>) -> Figures {
        Figures {
            ticks: 10,
            max_interval_ns: max_jitter_ns.map(|j| 1_000_000 + j),
            max_jitter_ns,
            last_interval_ns: None,
            overruns: 0,
        }
    }

    #[test]
    fn the_verdict_reads_the_base_thread_or_without_one_the_servo_thread() {
        let both = plans(&Config::default(), 0);
        // The servo thread's larger jitter is not the verdict: the documentation reads the
        // base thread's.
        let v = Verdict::of(&both, &[figures(Some(600_000)), figures(Some(10_000))]).unwrap();
        assert_eq!((v.thread, v.max_jitter_ns), ("base", 10_000));
        assert_eq!(v.rating, Rating::Good);
        assert!(v.text().contains("software stepping"));
        assert_eq!(
            Verdict::of(&both, &[figures(Some(1)), figures(None)]),
            None,
            "no verdict before the base thread measured an interval"
        );
        let alone = plans(
            &Config {
                base_ns: None,
                ..Config::default()
            },
            0,
        );
        assert_eq!(alone.len(), 1);
        assert_eq!(
            (alone[0].name, alone[0].setup.priority),
            ("servo", BASE_PRIORITY)
        );
        let v = Verdict::of(&alone, &[figures(Some(60_000))]).unwrap();
        assert_eq!((v.thread, v.rating), ("servo", Rating::NoSoftwareStepping));
        assert!(v.text().contains("acceptable results with a hardware card"));
    }

    #[test]
    fn the_servo_period_is_a_multiple_of_the_base_period_as_in_hal() {
        assert_eq!(servo_period(25_000, 1_000_000), 1_000_000);
        // Seen in halrun: `threads period1=33333 period2=1234567` runs servo at 1233321.
        assert_eq!(servo_period(33_333, 1_234_567), 1_233_321);
        assert_eq!(servo_period(40_000, 1_030_000), 1_040_000);
        let p = plans(
            &Config {
                base_ns: Some(33_333),
                servo_ns: 1_234_567,
                ..Config::default()
            },
            1,
        );
        assert_eq!(
            p.iter()
                .map(|p| (p.name, p.period_ns, p.setup.priority, p.setup.cpu))
                .collect::<Vec<_>>(),
            vec![
                ("servo", 1_233_321, SERVO_PRIORITY, Some(1)),
                ("base", 33_333, BASE_PRIORITY, Some(1))
            ]
        );
    }

    #[test]
    fn labels_are_latency_tests() {
        assert_eq!(thread_label("servo", 1_000_000), "Servo thread (1ms):");
        assert_eq!(thread_label("base", 25_000), "Base thread (25µs):");
        for (ns, text) in [
            (12_500, "12.5µs"),
            (1_500_000, "1.5ms"),
            (1_234_567, "1.23457ms"),
            (999_999_500, "1000ms"),
            (1_000_000_000, "1s"),
            (100_000, "100µs"),
            (33_333, "33.333µs"),
            (999, "999ns"),
            (0, "-"),
        ] {
            assert_eq!(human_time(ns), text, "{ns}");
        }
    }

    #[test]
    fn the_table_lines_up() {
        let rows = [
            Row {
                label: thread_label("servo", 1_000_000),
                period_ns: 1_000_000,
            },
            Row {
                label: thread_label("base", 25_000),
                period_ns: 25_000,
            },
        ];
        let figures = [
            Figures {
                ticks: 10,
                max_interval_ns: Some(1_004_356),
                max_jitter_ns: Some(4_356),
                last_interval_ns: Some(1_000_012),
                overruns: 0,
            },
            Figures {
                ticks: 1,
                max_interval_ns: None,
                max_jitter_ns: None,
                last_interval_ns: None,
                overruns: 3,
            },
        ];
        let mut out = String::new();
        table(&mut out, &rows, &figures);
        let expected = "                     Max Interval (ns)  Max Jitter (ns)  Last interval (ns)  Overruns\n\
                        Servo thread (1ms):            1004356             4356             1000012         0\n\
                        Base thread (25µs):                  -                -                   -         3\n";
        assert_eq!(out, expected);
    }
}
