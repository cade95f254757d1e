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
mod supervise;
mod table;
mod verdict;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_formats::schema::Entries;
use rtlat_formats::schema::provenance::Provenance;
use rtlat_formats::schema::servo as schema;
use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{Policy, ProcessCpus};

use self::options::{Config, Parsed};
use crate::cli::cyclic::options::cpuset_refused;
use crate::cli::explain::TracerUse;
use crate::cli::run::timerlat::{
    self, PERIOD_RANGE_US, TimerlatFigures, TimerlatPlan, TimerlatRun,
};
use rtlat::atomic_file::write_atomically;
use rtlat::exit_status;
use rtlat_engine::servo::{Figures, Plan, Report, Shared};
use rtlat_engine::session::{Notice, Session, SessionPlan};
use rtlat_engine::setup::Setup;
use supervise::Live;
#[cfg(test)]
use table::human_time;
use table::{Row, table, thread_label};
pub use verdict::{
    DOCUMENTATION, GOOD_BELOW_NS, NO_STEPPING_FROM_NS, Rating, UNUSABLE_ABOVE_NS, Verdict,
};

/// The base thread's priority: LinuxCNC gives the fastest thread the highest real-time
/// priority below the maximum.
pub const BASE_PRIORITY: i32 = 98;
/// The servo thread's: one below.
pub const SERVO_PRIORITY: i32 = 97;
/// Bytes of each written before the run.
const STACK_PREFAULT: usize = 32 * 1024;

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

fn run(args: &[String]) -> Result<ExitCode, String> {
    // First of all: from here on SIGINT, SIGTERM and SIGHUP end the run cleanly (and SIGUSR1,
    // SIGUSR2 do not kill it), however early they come.
    Session::handle_signals(&[]).map_err(|e| e.to_string())?;
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
    let cpu = measured_cpu(&config, &cpus)?;
    // --timerlat: checked before anything changes.
    let timerlat_plan = if config.timerlat {
        Some(timerlat_plan(&config, cpu)?)
    } else {
        None
    };
    // LinuxCNC's realtime locks memory and holds /dev/cpu_dma_latency at 0; so does this.
    let session = SessionPlan {
        realtime: Some((Policy::Fifo, BASE_PRIORITY)),
        housekeeping: None,
        lock_memory: true,
        dma_latency_us: Some(0),
        init: None,
    };
    session.check().map_err(|e| e.to_string())?;
    let session = Session::start(&session, |notice| match notice {
        Notice::MemoryNotLocked(e) => {
            errln!("warning: {e}; the run continues, but page faults may add jitter")
        }
        Notice::DmaLatencyNotHeld(e) => {
            errln!("warning: {e}; C-states are not limited for this run")
        }
        Notice::DmaLatencyHeld(_) => {}
    })
    .map_err(|e| e.to_string())?;

    // --timerlat: the tracer's own threads on the CPU at the servo period, started before the
    // threads, every tracefs change put back when it ends or drops.
    let timerlat_run = timerlat_plan
        .map(|plan| TimerlatRun::start(plan, config.explain))
        .transpose()?;
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
    // How the machine is tuned as the threads start, for the JSON file.
    let provenance = config
        .json
        .is_some()
        .then(|| crate::cli::provenance::gather(&rtlat_system::facts::Facts::live(), &[cpu], None));
    let started = Instant::now();
    let threads = plans.iter().enumerate().map(|(i, plan)| {
        let shared = &shared;
        (format!("rtlat-{}", plan.name), move || {
            measure::run_thread(plan, i, shared)
        })
    });
    let mut explain_failed = None;
    let (reports, live) = session
        .measure(threads, |_| {
            shared.ready.wait();
            // --explain: the evidence sampler starts once the threads are set up (their ids
            // known).
            let mut explainer = None;
            if config.explain {
                // The sampler on the default CPUs (never an isolated one) but the threads' own.
                let housekeeping: Vec<usize> = cpus.default_cpus().iter().collect();
                // The timerlat tracer holds tracefs's current tracer: the sampler explains.
                let tracer = if config.timerlat {
                    TracerUse::Skip("the timerlat tracer runs for --timerlat")
                } else {
                    TracerUse::Start
                };
                match explain::Explainer::start(&plans, &shared, cpu, &housekeeping, tracer) {
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
            Live::start(
                &config,
                &shared,
                &rows,
                (cpu, &priorities),
                started,
                explainer,
            )
        })
        .map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    // The rest of the trace read, tracefs put back; a failure is told, the run still reported.
    let timerlat = timerlat_run.and_then(|run| match run.finish() {
        Ok(figures) => Some(figures),
        Err(e) => {
            errln!("{e}");
            None
        }
    });
    if let Some(e) = explain_failed {
        return Err(e);
    }
    // --explain: each thread's worst run, explained after one last sample.
    let explained = live.explainer.map(|e| e.finish(&shared));

    Ok(report(
        &config,
        &plans,
        &rows,
        &reports,
        (cpu, elapsed),
        Beside {
            explained: explained.as_ref(),
            timerlat: timerlat.as_ref(),
            provenance,
        },
    ))
}

/// What the report gives beside the threads' figures.
struct Beside<'a> {
    /// `--explain`'s verdicts.
    explained: Option<&'a explain::Explained>,
    /// `--timerlat`'s figures.
    timerlat: Option<&'a TimerlatFigures>,
    /// How the machine was tuned as the threads started (with `--json`).
    provenance: Option<Provenance>,
}

/// `--timerlat`: the tracer's own threads on `cpu` at the servo period (LinuxCNC's threads
/// run a missed period back to back, which a read of the tracer's `timerlat_fd` cannot do).
fn timerlat_plan(config: &Config, cpu: usize) -> Result<TimerlatPlan, String> {
    let (low, high) = PERIOD_RANGE_US;
    let period_us = config.servo_ns / 1000;
    if !config.servo_ns.is_multiple_of(1000) || !(low..=high).contains(&period_us) {
        return Err(format!(
            "--timerlat: the tracer's period is the servo period, which must be a whole number of µs from {low} to {high} (--servo)"
        ));
    }
    let mut cpus = CpuSet::new();
    cpus.insert(cpu)
        .map_err(|e| format!("--timerlat: CPU {cpu}: {e}"))?;
    timerlat::plan_on(
        cpus,
        period_us,
        Some(
            "the tracer's own timerlat/N thread is woken at the servo period beside the servo threads (they run a missed period back to back, which a timerlat_fd read cannot)",
        ),
    )
}

/// `--cpu`, or its default (an isolated CPU, else the last of the affinity mask): online,
/// and allowed by the cpuset.
fn measured_cpu(config: &Config, cpus: &ProcessCpus) -> Result<usize, String> {
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
                default_cpu(cpus, &isolated).ok_or("no CPU is available to run the threads on")?;
            (cpu, "--cpu (its default)")
        }
    };
    let one = CpuSet::from_cpus([cpu]).map_err(|e| e.to_string())?;
    if !cpus
        .refused_by_cpuset(&one)
        .map_err(|e| e.to_string())?
        .is_empty()
    {
        return Err(cpuset_refused(option, &cpu.to_string(), &one, cpus));
    }
    Ok(cpu)
}

/// The run's text (the table with -q, the verdict, --explain's) and its JSON; the exit
/// status (4 when the JSON could not be written).
fn report(
    config: &Config,
    plans: &[Plan],
    rows: &[Row],
    reports: &[Report],
    (cpu, elapsed): (usize, Duration),
    beside: Beside<'_>,
) -> ExitCode {
    let Beside {
        explained,
        timerlat,
        provenance,
    } = beside;
    let figures: Vec<Figures> = reports.iter().map(Figures::from_report).collect();
    let verdict = Verdict::of(plans, &figures);
    let mut out = String::new();
    if config.quiet {
        table(&mut out, rows, &figures);
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
    if let Some(explained) = explained {
        let jitter: Vec<Option<u64>> = figures.iter().map(|f| f.max_jitter_ns).collect();
        out.push_str(&explain::text(plans, &jitter, &explained.records));
    }
    if let Some(figures) = timerlat {
        timerlat::text(&mut out, figures, &[("timerlat".to_string(), cpu)], false);
    }
    out!("{out}");
    let _ = std::io::stdout().flush();

    if let Some(path) = &config.json {
        let mut doc = document(config, plans, reports, (cpu, elapsed), verdict, explained);
        doc.timerlat = timerlat.map(|figures| timerlat::json(figures, cpu));
        doc.provenance = provenance;
        let text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into()) + "\n";
        if path.as_os_str() == "-" {
            out!("{text}");
            let _ = std::io::stdout().flush();
        } else if let Err(e) = write_atomically(path, text.as_bytes()) {
            errln!(
                "rtlat servo: cannot write the --json file '{}': {e}",
                path.display()
            );
            return exit_status::code(exit_status::finished(exit_status::OK, false));
        }
    }
    ExitCode::SUCCESS
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

/// The `--json` document.
fn document(
    config: &Config,
    plans: &[Plan],
    reports: &[Report],
    (cpu, elapsed): (usize, Duration),
    verdict: Option<Verdict>,
    explained: Option<&explain::Explained>,
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
                explain: explained.map(|e| e.explain.clone()),
                spikes: explained.map(|e| {
                    e.records
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
        timerlat: None,
        provenance: None,
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
         \x20     --timerlat       the kernel's timerlat tracer on the threads' CPU at the servo\n\
         \x20                      period, its own thread beside them: IRQ and thread latency\n\
         \x20                      after the verdict and in --json (timerlat); with --explain\n\
         \x20                      its worst wake-ups in parts\n\
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
