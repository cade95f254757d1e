//! `rtlat hwnoise`'s command line: hwlatdetect's options (rt-tests) with their meaning and
//! units (a bare time is µs, or with `us`, `ms`, `s`; a duration is seconds, or with `s`,
//! `m`, `h`, `d`), hwlatdetect's adjustments of window and width, and rtlat's own
//! (`--method`, `--json`, `--fail-above`).

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::cyclic::options::{UsageError, check_writable_parent};
use crate::cli::cyclic::values::{duration, whole_number};
use rtlat::options::{self as getopt, Describe, HasArg, Spec};
use rtlat_linux::cpuset::CpuSet;

/// hwlatdetect's default duration: 2 minutes.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(120);
/// The hwlat tracer's defaults: 10 µs threshold, 1 s window, 0.5 s width.
pub const DEFAULT_THRESHOLD_US: u64 = 10;
/// The default window, µs.
pub const DEFAULT_WINDOW_US: u64 = 1_000_000;
/// The default width, µs.
pub const DEFAULT_WIDTH_US: u64 = 500_000;
/// Longest `--duration`: 30 days.
const MAX_DURATION_S: u64 = 30 * 24 * 3600;
/// Longest window: 1 hour.
const MAX_WINDOW_US: u64 = 3_600_000_000;

/// How the noise is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The hwlat tracer where the kernel has it, else poll (said in the output).
    Auto,
    /// The kernel's hwlat tracer: a kernel thread spins with interrupts off.
    Hwlat,
    /// rtlat's busy loop at SCHED_FIFO 99 on each CPU, Linux's own events taken out.
    Poll,
}

/// A complete `hwnoise` configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `--duration`.
    pub duration: Duration,
    /// `--threshold`, µs.
    pub threshold_us: u64,
    /// `--window`, µs (after hwlatdetect's adjustment).
    pub window_us: u64,
    /// `--width`, µs (after hwlatdetect's adjustment).
    pub width_us: u64,
    /// `--cpu-list` (`None`: every CPU).
    pub cpus: Option<CpuSet>,
    /// `--fail-above` (or `--hardlimit`), µs.
    pub fail_above_us: Option<u64>,
    /// `--report`: the samples, one line each, as hwlatdetect writes them.
    pub report: Option<PathBuf>,
    /// `--json`.
    pub json: Option<PathBuf>,
    /// `--quiet`: no parameter block, no sample lines.
    pub quiet: bool,
    /// `--method`.
    pub method: Method,
    /// `--priority`: the poll method's SCHED_FIFO priority (`None`: 99).
    pub priority: Option<i32>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            duration: DEFAULT_DURATION,
            threshold_us: DEFAULT_THRESHOLD_US,
            window_us: DEFAULT_WINDOW_US,
            width_us: DEFAULT_WIDTH_US,
            cpus: None,
            fail_above_us: None,
            report: None,
            json: None,
            quiet: false,
            method: Method::Auto,
            priority: None,
        }
    }
}

impl Config {
    /// The second step, against the machine: the output files can be written.
    pub fn check_output_paths(&self) -> Result<(), UsageError> {
        if let Some(path) = self.json.as_ref().filter(|p| p.as_os_str() != "-") {
            check_writable_parent(path, "--json")?;
        }
        match &self.report {
            Some(path) => check_writable_parent(path, "--report"),
            None => Ok(()),
        }
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// `--help`.
    Help,
    /// A run.
    Run(Config),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Duration,
    Threshold,
    Hardlimit,
    FailAbove,
    Window,
    Width,
    Report,
    CpuList,
    Debug,
    Quiet,
    Watch,
    Json,
    Method,
    Priority,
    Help,
}

const fn long(id: Opt, name: &'static str, has_arg: HasArg) -> Spec<Opt> {
    Spec {
        id,
        short: None,
        long: Some(name),
        has_arg,
        abbreviable: false,
        ..Spec::new(id)
    }
}

const SPECS: &[Spec<Opt>] = &[
    long(Opt::Duration, "duration", HasArg::Required),
    long(Opt::Threshold, "threshold", HasArg::Required),
    long(Opt::Hardlimit, "hardlimit", HasArg::Required),
    long(Opt::FailAbove, "fail-above", HasArg::Required),
    long(Opt::Window, "window", HasArg::Required),
    long(Opt::Width, "width", HasArg::Required),
    long(Opt::Report, "report", HasArg::Required),
    long(Opt::CpuList, "cpu-list", HasArg::Required),
    long(Opt::Debug, "debug", HasArg::No),
    long(Opt::Quiet, "quiet", HasArg::No),
    long(Opt::Watch, "watch", HasArg::No),
    long(Opt::Json, "json", HasArg::Required),
    long(Opt::Method, "method", HasArg::Required),
    long(Opt::Priority, "priority", HasArg::Required),
    Spec {
        short: Some('h'),
        ..long(Opt::Help, "help", HasArg::No)
    },
];

fn expected(id: Opt) -> String {
    match id {
        Opt::Duration => format!(
            "seconds, or a whole number with s, m, h or d, up to {} days",
            MAX_DURATION_S / 86_400
        ),
        Opt::Threshold | Opt::Hardlimit | Opt::FailAbove => {
            "whole µs (10), or a whole number with us, ms or s, at least 1 µs".into()
        }
        Opt::Window | Opt::Width => {
            "whole µs (500000), or a whole number with us, ms or s, from 1 µs to 1 hour".into()
        }
        Opt::Report | Opt::Json => "a file name (--json: or - for standard output)".into(),
        Opt::CpuList => "a CPU list (1,3,5-7)".into(),
        Opt::Method => "auto, hwlat or poll".into(),
        Opt::Priority => "a SCHED_FIFO priority from 1 to 99".into(),
        Opt::Debug | Opt::Quiet | Opt::Watch | Opt::Help => "no value".into(),
    }
}

struct Expected;

impl Describe<Opt> for Expected {
    fn expected(&self, id: Opt) -> String {
        expected(id)
    }
}

fn invalid(id: Opt, value: &str) -> UsageError {
    let name = SPECS
        .iter()
        .find(|s| s.id == id)
        .and_then(|s| s.long)
        .unwrap_or_default();
    UsageError::InvalidValue {
        option: format!("--{name}"),
        value: value.into(),
        expected: expected(id),
    }
}

/// hwlatdetect's `microseconds()`: a bare whole number is µs; else a whole number with
/// `us`, `ms` or `s`.
pub fn microseconds(text: &str) -> Option<u64> {
    let (digits, scale) = if let Some(d) = text.strip_suffix("us") {
        (d, 1)
    } else if let Some(d) = text.strip_suffix("ms") {
        (d, 1_000)
    } else if let Some(d) = text.strip_suffix('s') {
        (d, 1_000_000)
    } else {
        (text, 1)
    };
    whole_number(digits).ok()?.checked_mul(scale)
}

/// Parses `hwnoise`'s arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Parsed, UsageError> {
    let mut c = Config::default();
    // hwlatdetect applies --window, then --width, each against the other's value of now.
    let (mut window, mut width) = (None, None);
    for f in getopt::scan(args, SPECS, &Expected)? {
        let value = f.value.as_deref().unwrap_or("");
        let time = |min: u64, max: u64| {
            microseconds(value)
                .filter(|us| (min..=max).contains(us))
                .ok_or_else(|| invalid(f.id, value))
        };
        match f.id {
            Opt::Help => return Ok(Parsed::Help),
            Opt::Duration => {
                c.duration = duration(value, MAX_DURATION_S)
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| invalid(f.id, value))?;
            }
            Opt::Threshold => c.threshold_us = time(1, u64::from(u32::MAX))?,
            Opt::Hardlimit | Opt::FailAbove => c.fail_above_us = Some(time(1, u64::MAX)?),
            Opt::Window => window = Some(time(1, MAX_WINDOW_US)?),
            Opt::Width => width = Some(time(1, MAX_WINDOW_US)?),
            Opt::Report | Opt::Json
                if value.is_empty() || (f.id == Opt::Report && value == "-") =>
            {
                return Err(invalid(f.id, value));
            }
            Opt::Report => c.report = Some(PathBuf::from(value)),
            Opt::Json => c.json = Some(PathBuf::from(value)),
            Opt::CpuList => {
                c.cpus = Some(
                    CpuSet::parse(value).map_err(|e| UsageError::InvalidCpuList {
                        option: "--cpu-list".into(),
                        value: value.into(),
                        reason: e.to_string(),
                    })?,
                );
            }
            // Every setting rtlat changes is printed anyway: nothing more to show.
            Opt::Debug => {}
            Opt::Quiet => c.quiet = true,
            Opt::Watch => {
                return Err(UsageError::InvalidValue {
                    option: "--watch".into(),
                    value: String::new(),
                    expected: "nothing: rtlat hwnoise prints the samples at the end (--report keeps them); leave the option out".into(),
                });
            }
            Opt::Priority => {
                c.priority = Some(
                    whole_number(value)
                        .ok()
                        .filter(|p| (1..=99).contains(p))
                        .ok_or_else(|| invalid(f.id, value))? as i32,
                );
            }
            Opt::Method => {
                c.method = match value {
                    "auto" => Method::Auto,
                    "hwlat" => Method::Hwlat,
                    "poll" => Method::Poll,
                    _ => return Err(invalid(f.id, value)),
                };
            }
        }
    }
    if let Some(w) = window {
        if w < c.width_us {
            c.width_us = w / 2;
        }
        c.window_us = w;
    }
    if let Some(w) = width {
        if w > c.window_us {
            c.window_us = w.saturating_mul(2).min(MAX_WINDOW_US.max(w));
        }
        c.width_us = w;
    }
    if c.width_us == 0 {
        return Err(UsageError::InvalidValue {
            option: "--window".into(),
            value: c.window_us.to_string(),
            expected: "at least 2 µs: the width is half a window smaller than the default width"
                .into(),
        });
    }
    Ok(Parsed::Run(c))
}

/// The usage text's option lines.
pub const OPTIONS: &str = "\
      --duration TIME     how long: seconds, or with s, m, h, d (default 120 s)
      --threshold TIME    gaps above TIME are samples (default 10 µs; bare numbers are µs, or us, ms, s)
      --window TIME       the sampling window (default 1 s; below the width, the width becomes half of it)
      --width TIME        the sampling time in each window (default 0.5 s; above the window, the window becomes twice it)
      --cpu-list CPUS     the CPUs to sample (default: all)
      --fail-above TIME   exit status 1 when a sample is above TIME (--hardlimit is the same)
      --report FILE       the samples, one line each, as hwlatdetect writes them
      --json FILE         the figures and samples as JSON (- for standard output)
      --method M          auto (default: hwlat where the kernel has it, else poll), hwlat or poll
      --priority PRIO     the poll method's SCHED_FIFO priority (1-99, default 99; a thread above it is Linux's noise)
      --quiet             no parameter block, no sample lines
      --debug             accepted: every setting changed is printed anyway
  -h, --help              this text
      --watch             hwlatdetect's live samples: refused (the samples come at the end)";

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn run(line: &str) -> Config {
        match parse(&args(line)) {
            Ok(Parsed::Run(c)) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn hwlatdetects_options_mean_what_they_mean_to_hwlatdetect() {
        let c = run(
            "--duration 2m --threshold 20 --hardlimit 50us --cpu-list 1-2 --report r.txt --quiet",
        );
        assert_eq!(c.duration, Duration::from_secs(120));
        assert_eq!(c.threshold_us, 20);
        assert_eq!(c.fail_above_us, Some(50));
        assert_eq!(c.cpus, Some(CpuSet::parse("1-2").unwrap()));
        assert_eq!(c.report, Some(PathBuf::from("r.txt")));
        assert!(c.quiet);
        let d = run("");
        assert_eq!((d.duration, d.threshold_us), (DEFAULT_DURATION, 10));
        assert_eq!((d.window_us, d.width_us), (1_000_000, 500_000));
        assert_eq!(d.method, Method::Auto);
        assert_eq!(run("--threshold 1ms").threshold_us, 1_000);
        assert_eq!(run("--duration 30").duration, Duration::from_secs(30));
        assert_eq!(run("--method poll").method, Method::Poll);
        assert_eq!(run("--priority 50").priority, Some(50));
        assert_eq!(run("--fail-above=2s").fail_above_us, Some(2_000_000));
        assert_eq!(parse(&args("-h")), Ok(Parsed::Help));
    }

    #[test]
    fn window_and_width_are_adjusted_as_hwlatdetect_adjusts_them() {
        // A window below the width of now: the width becomes half the window.
        let c = run("--window 100ms");
        assert_eq!((c.window_us, c.width_us), (100_000, 50_000));
        // A width above the window of now: the window becomes twice the width.
        let c = run("--width 2s");
        assert_eq!((c.window_us, c.width_us), (4_000_000, 2_000_000));
        // Both: the window first, then the width against it.
        let c = run("--width 10ms --window 20ms");
        assert_eq!((c.window_us, c.width_us), (20_000, 10_000));
        let c = run("--window 20ms --width 30ms");
        assert_eq!((c.window_us, c.width_us), (60_000, 30_000));
    }

    #[test]
    fn bad_values_are_refused_naming_what_is_accepted() {
        for (line, says) in [
            ("--threshold 1.5us", "whole µs"),
            ("--threshold 0", "at least 1 µs"),
            ("--window 2h", "1 hour"),
            ("--width 5ns", "us, ms or s"),
            ("--duration 0", "seconds"),
            ("--duration 5x", "seconds"),
            ("--cpu-list 1-", "--cpu-list"),
            ("--method tsc", "auto, hwlat or poll"),
            ("--priority 0", "from 1 to 99"),
            ("--watch", "--report keeps them"),
            ("--report -", "file name"),
            ("--window 1", "at least 2 µs"),
            ("--frobnicate", "frobnicate"),
        ] {
            let error = parse(&args(line)).expect_err(line).to_string();
            assert!(error.contains(says), "{line}: {error}");
            assert!(!error.contains('\n'), "{line}: one line: {error}");
        }
    }

    #[test]
    fn the_usage_names_every_option_of_the_table() {
        for spec in SPECS {
            let long = spec.long.unwrap_or_default();
            assert!(OPTIONS.contains(&format!("--{long}")), "{long}");
        }
    }
}
