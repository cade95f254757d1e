//! `rtlat servo`: LinuxCNC's latency-test without HAL. A base thread (default 25 µs) and a
//! servo thread (default 1 ms), both SCHED_FIFO on one CPU, the base thread at the higher
//! priority, as LinuxCNC runs them; each reports its longest interval and its max jitter
//! (LinuxCNC's definition: `max(max_interval − period, period − min_interval)`, from
//! rtlat-core's [`rtlat_core::JitterMonitor`]), live and at the end, with LinuxCNC's verdict.

pub mod measure;
pub mod options;

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rtlat_linux::cpuset::CpuSet;
use rtlat_linux::{DmaLatencyGuard, Policy, signals};
use serde_json::{Value, json};

use self::measure::{Figures, Plan, Report, Shared};
use self::options::{Config, Parsed};
use crate::cli::run::live::LiveStatus;
use rtlat::atomic_file::write_atomically;
use rtlat::exit_status;

/// The base thread's priority: LinuxCNC gives the fastest thread the highest real-time
/// priority below the maximum.
pub const BASE_PRIORITY: i32 = 98;
/// The servo thread's: one below.
pub const SERVO_PRIORITY: i32 = 97;
/// Thread stacks (the loops need a few KiB).
const THREAD_STACK: usize = 128 * 1024;
/// Bytes of each written before the run.
const STACK_PREFAULT: usize = 32 * 1024;
/// How often the live lines are redrawn.
const REFRESH: Duration = Duration::from_millis(100);

/// Max jitter below this is good for software stepping (LinuxCNC: "15–20 µs").
pub const GOOD_BELOW_NS: u64 = 20_000;
/// From this on, not a candidate for software stepping (LinuxCNC: "100 µs or more").
pub const NO_STEPPING_FROM_NS: u64 = 100_000;
/// Above this, not a candidate for LinuxCNC at all (LinuxCNC: "over 1 millisecond").
pub const UNUSABLE_ABOVE_NS: u64 = 1_000_000;

/// LinuxCNC's reading of a max jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    /// Below 20 µs.
    Good,
    /// 20 µs to below 100 µs.
    Limited,
    /// 100 µs to 1 ms.
    NoSoftwareStepping,
    /// Above 1 ms.
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

    /// What it means, in LinuxCNC's words.
    pub fn text(self) -> &'static str {
        match self {
            Rating::Good => {
                "under 20 µs: good for software stepping (LinuxCNC: under 15-20 µs gives very nice results)"
            }
            Rating::Limited => {
                "20 to 100 µs: software stepping works, but the maximum step rate may be disappointing"
            }
            Rating::NoSoftwareStepping => {
                "100 µs or more: not a good candidate for software stepping (use hardware step generation, e.g. a Mesa card)"
            }
            Rating::Unusable => {
                "over 1 ms: not a good candidate for LinuxCNC, with or without software stepping"
            }
        }
    }
}

/// Runs `rtlat servo ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            errln!("rtlat servo: {message}");
            ExitCode::from(2)
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
    let available = available_cpus()?;
    let cpu = match config.cpu {
        Some(cpu) if available.contains(cpu) => cpu,
        Some(cpu) => {
            return Err(format!(
                "invalid value '{cpu}' for --cpu: expected a CPU this process may run on ({})",
                available
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        None => available
            .last()
            .ok_or("no CPU is available to run the threads on")?,
    };
    rtlat_linux::check_rt_permission(Policy::Fifo, BASE_PRIORITY).map_err(|e| e.to_string())?;

    // LinuxCNC's realtime locks memory and holds /dev/cpu_dma_latency at 0; so does this.
    if let Err(e) = rtlat_linux::lock_memory() {
        errln!("warning: {e}; the run continues, but page faults may add jitter");
    }
    let _dma_latency = DmaLatencyGuard::set(0)
        .map_err(|e| errln!("warning: {e}; C-states are not limited for this run"))
        .ok();

    // The servo thread first: LinuxCNC lists it first.
    let plans = [
        Plan {
            name: "servo",
            period_ns: config.servo_ns,
            cpu: Some(cpu),
            policy: Policy::Fifo,
            priority: SERVO_PRIORITY,
            prefault_stack: STACK_PREFAULT,
        },
        Plan {
            name: "base",
            period_ns: config.base_ns,
            cpu: Some(cpu),
            policy: Policy::Fifo,
            priority: BASE_PRIORITY,
            prefault_stack: STACK_PREFAULT,
        },
    ];
    let rows: Vec<Row> = plans
        .iter()
        .map(|p| Row {
            label: thread_label(p.name, p.period_ns),
            period_ns: p.period_ns,
        })
        .collect();
    let shared = Shared::new(plans.len());
    let started = Instant::now();
    let reports = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (i, plan) in plans.iter().enumerate() {
            let shared = &shared;
            let spawned = std::thread::Builder::new()
                .name(format!("rtlat-{}", plan.name))
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, move || measure::run_thread(plan, i, shared));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    shared.stop.store(true, Ordering::Release);
                    // The threads already started wait at the barrier for the others.
                    for _ in i..plans.len() {
                        shared.ready.wait();
                    }
                    return Err(format!("cannot start the {} thread: {e}", plan.name));
                }
            }
        }
        shared.ready.wait();
        supervise(&config, &shared, &rows, cpu, started);
        let mut reports = Vec::new();
        for h in handles {
            reports.push(h.join().map_err(|_| "a thread panicked".to_string())??);
        }
        Ok(reports)
    })?;
    let elapsed = started.elapsed();

    let figures: Vec<Figures> = reports.iter().map(Figures::from_report).collect();
    let worst = rows
        .iter()
        .zip(&figures)
        .filter_map(|(row, f)| f.max_jitter_ns.map(|j| (j, row)))
        .max_by_key(|(j, _)| *j);
    let mut out = String::new();
    if config.quiet {
        table(&mut out, &rows, &figures);
    }
    match worst {
        Some((jitter, row)) => {
            let name = row.label.split(" (").next().unwrap_or("").to_lowercase();
            let _ = writeln!(
                out,
                "Verdict: max jitter {jitter} ns ({name}): {}",
                Rating::of(jitter).text()
            );
        }
        None => out.push_str("Verdict: none (the run was too short to measure an interval)\n"),
    }
    out!("{out}");
    let _ = std::io::stdout().flush();

    if let Some(path) = &config.json {
        let doc = document(
            &config,
            &plans,
            &reports,
            cpu,
            elapsed,
            worst.map(|(j, _)| j),
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

/// `Servo thread (1.0ms):`, `Base thread (25.0us):` as LinuxCNC labels them.
fn thread_label(name: &str, period_ns: u64) -> String {
    let period = if period_ns >= 1_000_000 {
        format!("{:.1}ms", period_ns as f64 / 1e6)
    } else {
        format!("{:.1}us", period_ns as f64 / 1e3)
    };
    let mut title = name.to_string();
    if let Some(first) = title.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    format!("{title} thread ({period}):")
}

/// The table: a header and one line per thread.
fn table(out: &mut String, rows: &[Row], figures: &[Figures]) {
    let width = rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
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
fn supervise(config: &Config, shared: &Shared, rows: &[Row], cpu: usize, started: Instant) {
    let mut stdout = std::io::stdout().lock();
    if !config.quiet {
        outln!(
            "rtlat servo: LinuxCNC's latency test on CPU {cpu}, SCHED_FIFO (base {BASE_PRIORITY}, servo {SERVO_PRIORITY}).\n\
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
    cpu: usize,
    elapsed: Duration,
    worst: Option<u64>,
) -> Value {
    let mut threads = serde_json::Map::new();
    for (plan, r) in plans.iter().zip(reports) {
        let j = &r.jitter;
        threads.insert(
            plan.name.to_string(),
            json!({
                "period_ns": plan.period_ns,
                "policy": "SCHED_FIFO",
                "priority": plan.priority,
                "ticks": j.ticks,
                "min_interval": j.min_interval_ns,
                "max_interval": j.max_interval_ns,
                "max_jitter": j.max_jitter_ns,
                "last_interval": r.last_interval_ns,
                "overruns": r.overruns,
                "lateness": {
                    "min": j.lateness.min(),
                    "max": j.lateness.max(),
                    "mean": j.lateness.mean(),
                },
                "rating": j.max_jitter_ns.map(|m| Rating::of(m).key()),
                "allocations_while_measuring": r.allocations,
                "minor_page_faults_while_measuring": r.minor_faults,
            }),
        );
    }
    json!({
        "rtlat_version": env!("CARGO_PKG_VERSION"),
        "command": "servo",
        "unit": "ns",
        "cpu": cpu,
        "duration_s": elapsed.as_secs_f64(),
        "requested_duration_s": config.duration.map(|d| d.as_secs()),
        "threads": threads,
        "verdict": worst.map(|j| json!({
            "max_jitter": j,
            "rating": Rating::of(j).key(),
            "text": Rating::of(j).text(),
        })),
        "thresholds_ns": {
            "good_below": GOOD_BELOW_NS,
            "no_software_stepping_from": NO_STEPPING_FROM_NS,
            "unusable_above": UNUSABLE_ABOVE_NS,
        },
    })
}

fn available_cpus() -> Result<CpuSet, String> {
    let online = CpuSet::online(std::path::Path::new("/")).map_err(|e| e.to_string())?;
    let allowed = rtlat_linux::affinity().map_err(|e| e.to_string())?;
    let allowed = CpuSet::from_cpus(allowed).map_err(|e| e.to_string())?;
    Ok(online.intersection(&allowed))
}

/// The `--help` text.
pub fn usage() -> String {
    format!(
        "Usage: rtlat servo [OPTIONS]\n\
         \n\
         LinuxCNC's latency-test without HAL: a base thread and a servo thread, SCHED_FIFO on one\n\
         CPU (base priority {BASE_PRIORITY}, servo {SERVO_PRIORITY}), each waking at absolute deadlines. For each\n\
         thread it shows the longest interval between two wake-ups and the max jitter,\n\
         max(max interval - period, period - min interval), in ns, live and at the end.\n\
         \n\
         \x20     --base PERIOD    base thread period (default 25us)\n\
         \x20     --servo PERIOD   servo thread period (default 1ms)\n\
         \x20                      PERIOD: ns (25000), or with ns, us, ms or s (25us, 1.5ms);\n\
         \x20                      1 µs to 1 s, base shorter than servo\n\
         \x20 -D, --duration TIME  stop after TIME: seconds, or with s, m, h or d (default: Ctrl-C)\n\
         \x20 -q, --quiet          print only the final figures\n\
         \x20     --cpu CPU        run both threads on CPU (default: the last available CPU,\n\
         \x20                      as LinuxCNC does)\n\
         \x20     --json PATH      write the results as JSON to PATH (- : standard output)\n\
         \x20 -h, --help           print this help\n\
         \n\
         The verdict, from LinuxCNC's documentation, on the larger max jitter of the two threads:\n\
         \x20 under 20 µs           good for software stepping (LinuxCNC says 15-20 µs)\n\
         \x20 20 µs to under 100 µs  software stepping works; the step rate may be limited\n\
         \x20 100 µs to 1 ms        not a good candidate for software stepping\n\
         \x20 over 1 ms             not a good candidate for LinuxCNC at all\n\
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
    fn ratings_follow_linuxcncs_thresholds() {
        assert_eq!(Rating::of(0), Rating::Good);
        assert_eq!(Rating::of(19_999), Rating::Good);
        assert_eq!(Rating::of(20_000), Rating::Limited);
        assert_eq!(Rating::of(99_999), Rating::Limited);
        assert_eq!(Rating::of(100_000), Rating::NoSoftwareStepping);
        assert_eq!(Rating::of(1_000_000), Rating::NoSoftwareStepping);
        assert_eq!(Rating::of(1_000_001), Rating::Unusable);
    }

    #[test]
    fn labels_are_linuxcncs() {
        assert_eq!(thread_label("servo", 1_000_000), "Servo thread (1.0ms):");
        assert_eq!(thread_label("base", 25_000), "Base thread (25.0us):");
        assert_eq!(thread_label("base", 12_500), "Base thread (12.5us):");
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
        let expected = "                       Max Interval (ns)  Max Jitter (ns)  Last interval (ns)  Overruns\n\
                        Servo thread (1.0ms):            1004356             4356             1000012         0\n\
                        Base thread (25.0us):                  -                -                   -         3\n";
        assert_eq!(out, expected);
    }
}
