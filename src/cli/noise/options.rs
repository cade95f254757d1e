//! `rtlat noise`'s command line: oslat's options (rt-tests 2.40) with their meaning, and
//! rtlat's own (`--threshold`, `--fail-above`). oslat's options rtlat does not run (a memmove
//! workload, a bias, a single pre-heat, a trace threshold) are refused in one line, never
//! taken silently.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::cyclic::options::{UsageError, check_writable_parent};
use crate::cli::cyclic::values::{duration, whole_number};
use crate::cli::servo::options::period_ns;
use rtlat::options::{self as getopt, Describe, HasArg, Spec};
use rtlat_linux::cpuset::CpuSet;

/// oslat's default number of µs buckets.
pub const DEFAULT_BUCKETS: usize = 32;
/// The default spike threshold: 10 µs (hwlatdetect's default threshold).
pub const DEFAULT_THRESHOLD_NS: u64 = 10_000;
/// Longest `-D`: 30 days.
const MAX_DURATION_S: u64 = 30 * 24 * 3600;

/// A complete `noise` configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `-c`: the CPUs to poll on (`None`: every CPU this process may run on).
    pub cpus: Option<CpuSet>,
    /// `-C`: the main thread's CPU (`None`: where it is).
    pub main_cpu: Option<usize>,
    /// `-D`: how long (`None`: until Ctrl-C).
    pub duration: Option<Duration>,
    /// `-f`: SCHED_FIFO at this priority (`None`: SCHED_OTHER).
    pub rtprio: Option<i32>,
    /// `-b`: µs buckets, 4..=1024.
    pub buckets: usize,
    /// `-z`: leave empty buckets out.
    pub zero_omit: bool,
    /// `-q`: the summary only (oslat's; rtlat prints only the summary anyway).
    pub quiet: bool,
    /// `--json`.
    pub json: Option<PathBuf>,
    /// `--threshold`: gaps above it are spikes, ns.
    pub threshold_ns: u64,
    /// `--fail-above`: exit 1 when a gap is longer, ns.
    pub fail_above_ns: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            cpus: None,
            main_cpu: None,
            duration: None,
            rtprio: None,
            buckets: DEFAULT_BUCKETS,
            zero_omit: false,
            quiet: false,
            json: None,
            threshold_ns: DEFAULT_THRESHOLD_NS,
            fail_above_ns: None,
        }
    }
}

impl Config {
    /// The second step, against the machine: the `--json` file can be written.
    pub fn check_output_paths(&self) -> Result<(), UsageError> {
        match self.json.as_ref().filter(|p| p.as_os_str() != "-") {
            Some(path) => check_writable_parent(path, "--json"),
            None => Ok(()),
        }
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// `--help`.
    Help,
    /// `-v`/`--version`: oslat's version line.
    Version,
    /// A run.
    Run(Config),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Buckets,
    Bias,
    Cpus,
    MainCpu,
    Duration,
    Json,
    Rtprio,
    WorkloadMem,
    Quiet,
    SinglePreheat,
    TraceThreshold,
    Version,
    Workload,
    ZeroOmit,
    Threshold,
    FailAbove,
    Help,
}

const fn spec(id: Opt, short: Option<char>, long: &'static str, has_arg: HasArg) -> Spec<Opt> {
    Spec {
        id,
        short,
        long: Some(long),
        has_arg,
        abbreviable: false,
        ..Spec::new(id)
    }
}

const SPECS: &[Spec<Opt>] = &[
    spec(Opt::Buckets, Some('b'), "bucket-size", HasArg::Required),
    spec(Opt::Bias, Some('B'), "bias", HasArg::No),
    spec(Opt::Cpus, Some('c'), "cpu-list", HasArg::Required),
    spec(Opt::MainCpu, Some('C'), "cpu-main-thread", HasArg::Required),
    spec(Opt::Duration, Some('D'), "duration", HasArg::Required),
    spec(Opt::Json, None, "json", HasArg::Required),
    spec(Opt::Rtprio, Some('f'), "rtprio", HasArg::Required),
    spec(
        Opt::WorkloadMem,
        Some('m'),
        "workload-mem",
        HasArg::Required,
    ),
    spec(Opt::Quiet, Some('q'), "quiet", HasArg::No),
    spec(Opt::SinglePreheat, Some('s'), "single-preheat", HasArg::No),
    spec(
        Opt::TraceThreshold,
        Some('T'),
        "trace-threshold",
        HasArg::Required,
    ),
    spec(Opt::Version, Some('v'), "version", HasArg::No),
    spec(Opt::Workload, Some('w'), "workload", HasArg::Required),
    spec(Opt::ZeroOmit, Some('z'), "zero-omit", HasArg::No),
    spec(Opt::Threshold, None, "threshold", HasArg::Required),
    spec(Opt::FailAbove, None, "fail-above", HasArg::Required),
    spec(Opt::Help, Some('h'), "help", HasArg::No),
];

fn expected(id: Opt) -> String {
    match id {
        Opt::Buckets => "a number of buckets from 4 to 1024".into(),
        Opt::Cpus => "a CPU list (1,3,5-7)".into(),
        Opt::MainCpu => "a CPU number".into(),
        Opt::Duration => format!(
            "seconds, or a whole number with s, m, h or d, up to {} days",
            MAX_DURATION_S / 86_400
        ),
        Opt::Json => "a file name, or - for standard output".into(),
        Opt::Rtprio => "a SCHED_FIFO priority from 1 to 99".into(),
        Opt::Threshold | Opt::FailAbove => {
            "a time: µs (20), or a number with ns, us, ms or s (500ns, 1.5us)".into()
        }
        Opt::Workload => "no (the only workload rtlat runs: none)".into(),
        Opt::WorkloadMem | Opt::TraceThreshold => "a value".into(),
        Opt::Bias | Opt::Quiet | Opt::SinglePreheat | Opt::Version | Opt::ZeroOmit | Opt::Help => {
            "no value".into()
        }
    }
}

struct Expected;

impl Describe<Opt> for Expected {
    fn expected(&self, id: Opt) -> String {
        expected(id)
    }
}

fn invalid(id: Opt, option: &str, value: &str) -> UsageError {
    UsageError::InvalidValue {
        option: option.into(),
        value: value.into(),
        expected: expected(id),
    }
}

/// A time in µs when bare (oslat's unit), else with its unit (see [`period_ns`]).
fn micros_or_unit(text: &str) -> Option<u64> {
    match whole_number(text) {
        Ok(us) => us.checked_mul(1000),
        Err(_) => period_ns(text),
    }
}

fn not_run(option: &str, what: &str) -> UsageError {
    UsageError::InvalidValue {
        option: option.into(),
        value: String::new(),
        expected: format!("nothing: rtlat noise does not run {what}; leave the option out"),
    }
}

/// Parses `noise`'s arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Parsed, UsageError> {
    let mut c = Config::default();
    for f in getopt::scan(args, SPECS, &Expected)? {
        let value = f.value.as_deref().unwrap_or("");
        match f.id {
            Opt::Help => return Ok(Parsed::Help),
            Opt::Version => return Ok(Parsed::Version),
            Opt::Buckets => {
                c.buckets = whole_number(value)
                    .ok()
                    .filter(|n| (4..=1024).contains(n))
                    .ok_or_else(|| invalid(f.id, "-b/--bucket-size", value))?
                    as usize;
            }
            Opt::Cpus => {
                c.cpus = Some(
                    CpuSet::parse(value).map_err(|e| UsageError::InvalidCpuList {
                        option: "-c/--cpu-list".into(),
                        value: value.into(),
                        reason: e.to_string(),
                    })?,
                );
            }
            Opt::MainCpu => {
                c.main_cpu = Some(
                    whole_number(value)
                        .ok()
                        .filter(|&n| n < 1 << 20)
                        .ok_or_else(|| invalid(f.id, "-C/--cpu-main-thread", value))?
                        as usize,
                );
            }
            Opt::Duration => {
                c.duration = Some(
                    duration(value, MAX_DURATION_S)
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| invalid(f.id, "-D/--duration", value))?,
                );
            }
            Opt::Json => {
                if value.is_empty() {
                    return Err(invalid(f.id, "--json", value));
                }
                c.json = Some(PathBuf::from(value));
            }
            Opt::Rtprio => {
                c.rtprio = Some(
                    whole_number(value)
                        .ok()
                        .filter(|p| (1..=99).contains(p))
                        .ok_or_else(|| invalid(f.id, "-f/--rtprio", value))?
                        as i32,
                );
            }
            Opt::Quiet => c.quiet = true,
            Opt::ZeroOmit => c.zero_omit = true,
            Opt::Workload if value == "no" => {}
            Opt::Workload => return Err(invalid(f.id, "-w/--workload", value)),
            Opt::WorkloadMem => return Err(not_run("-m/--workload-mem", "a workload")),
            Opt::Bias => {
                return Err(not_run(
                    "-B/--bias",
                    "a bias (its figures are exact: the rtlat object of --json has them in ns)",
                ));
            }
            Opt::SinglePreheat => {
                return Err(not_run(
                    "-s/--single-preheat",
                    "a pre-heat (its clock is CLOCK_MONOTONIC, not a TSC to calibrate)",
                ));
            }
            Opt::TraceThreshold => {
                return Err(not_run(
                    "-T/--trace-threshold",
                    "a trace stop (use --fail-above for a verdict, rtlat run -b for a trace)",
                ));
            }
            Opt::Threshold | Opt::FailAbove => {
                let name = if f.id == Opt::Threshold {
                    "--threshold"
                } else {
                    "--fail-above"
                };
                let ns = micros_or_unit(value).ok_or_else(|| invalid(f.id, name, value))?;
                if f.id == Opt::Threshold {
                    c.threshold_ns = ns;
                } else {
                    c.fail_above_ns = Some(ns);
                }
            }
        }
    }
    Ok(Parsed::Run(c))
}

/// The usage text's option lines, one per option of the table.
pub const OPTIONS: &str = "\
  -c, --cpu-list CPUS        CPUs to poll on, one thread each (default: every CPU rtlat may run on)
  -C, --cpu-main-thread CPU  the main thread's CPU (default: where it is)
  -D, --duration TIME        how long: seconds, or with s, m, h, d (default: until Ctrl-C)
  -f, --rtprio PRIO          poll at SCHED_FIFO PRIO (1-99; default SCHED_OTHER)
  -b, --bucket-size N        µs buckets of the histogram, 4-1024 (default 32; the last holds every longer gap)
  -z, --zero-omit            leave empty buckets out of the histogram
  -q, --quiet                the summary only (rtlat prints only the summary)
      --json FILE            oslat's JSON (- for standard output), with the exact figures in ns
      --threshold TIME       gaps above TIME are spikes (default 10 µs; bare numbers are µs)
      --fail-above TIME      exit status 1 when a gap is longer than TIME
  -w, --workload no          the only workload rtlat runs: none
  -v, --version              oslat's version line
  -h, --help                 this text
  -B, -m, -s, -T             oslat's bias, memmove workload, single pre-heat and trace stop: refused";

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
    fn oslat_options_mean_what_they_mean_to_oslat() {
        let c = run("-c 1,3-4 -C 0 -D 2m -f 95 -b 64 -z -q --json out.json -w no");
        assert_eq!(c.cpus, Some(CpuSet::parse("1,3-4").unwrap()));
        assert_eq!(c.main_cpu, Some(0));
        assert_eq!(c.duration, Some(Duration::from_secs(120)));
        assert_eq!(c.rtprio, Some(95));
        assert_eq!(c.buckets, 64);
        assert!(c.zero_omit && c.quiet);
        assert_eq!(c.json, Some(PathBuf::from("out.json")));
        assert_eq!(run("-D 1H").duration, Some(Duration::from_secs(3600)));
        assert_eq!(run("").buckets, DEFAULT_BUCKETS);
        assert_eq!(run("--threshold 20").threshold_ns, 20_000);
        assert_eq!(run("--threshold 500ns").threshold_ns, 500);
        assert_eq!(run("--fail-above 1.5us").fail_above_ns, Some(1_500));
        assert_eq!(parse(&args("-h")), Ok(Parsed::Help));
        assert_eq!(parse(&args("--version")), Ok(Parsed::Version));
    }

    #[test]
    fn bad_values_and_options_not_run_are_refused_naming_what_is_accepted() {
        for (line, says) in [
            ("-b 3", "from 4 to 1024"),
            ("-b 1025", "from 4 to 1024"),
            ("-f 0", "from 1 to 99"),
            ("-f 100", "from 1 to 99"),
            ("-D 0", "seconds"),
            ("-D 5x", "seconds"),
            ("-c 1-", "-c/--cpu-list"),
            ("-w memmove", "the only workload"),
            ("-m 4K", "does not run a workload"),
            ("-B", "does not run a bias"),
            ("-s", "pre-heat"),
            ("-T 50", "--fail-above"),
            ("--threshold 1.0005us", "ns, us, ms or s"),
            ("--json", "file name"),
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
            let short = spec.short.map(|s| format!("-{s}"));
            let named = OPTIONS.contains(&format!("--{long}"))
                || short.is_some_and(|s| OPTIONS.contains(&s));
            assert!(named, "{long}");
        }
    }
}
