//! `rtlat latency`'s command line: Xenomai 3.3.1 `latency`'s options with its defaults (those
//! of its code where its usage text differs), checked strictly (a malformed or out-of-range
//! value is refused with the accepted range; Xenomai reads numbers with `atoi`, so `-p 1x` is
//! 1 there and refused here). Like Xenomai's, `-?` and `-D` end with the usage and status 2.

use std::path::PathBuf;

use crate::cli::backend::{self, Backend};
use crate::cli::cyclic::options::{UsageError, check_writable_parent};
use crate::cli::cyclic::values::whole_number;
use rtlat::options::{self as getopt, Describe, HasArg, Spec};

/// Xenomai's default sampling period: 100 µs on x86, 1000 µs on ARM
/// (`CONFIG_XENO_DEFAULT_PERIOD`).
pub const DEFAULT_PERIOD_US: u64 = if cfg!(any(target_arch = "arm", target_arch = "aarch64")) {
    1000
} else {
    100
};
/// `-H`'s default: Xenomai's code uses 300 cells (its usage text says 200).
pub const DEFAULT_CELLS: usize = 300;
/// `-B`'s default: 1 µs buckets.
pub const DEFAULT_BUCKET_NS: u64 = 1000;
/// `-l`'s default.
pub const DEFAULT_LINES: u64 = 21;
/// `-P`'s default.
pub const DEFAULT_PRIORITY: i32 = 99;
/// The CPU Xenomai 3 pins the sampling thread to without `-c`.
pub const DEFAULT_CPU: usize = 0;

/// Longest period: Xenomai refuses periods over one second.
const MAX_PERIOD_US: u64 = 1_000_000;
/// Largest `-T`, `-l` (Xenomai keeps them in an `int`).
const MAX_INT: u64 = i32::MAX as u64;
/// Most histogram cells.
const MAX_CELLS: u64 = 1_000_000;
/// Widest bucket: one second.
const MAX_BUCKET_NS: u64 = 1_000_000_000;
/// Largest `-m`: 1000 s.
const MAX_LIMIT_US: u64 = 1_000_000_000;

/// A complete `latency` configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `-p`: sampling period, µs.
    pub period_us: u64,
    /// `-T`: seconds to measure after the warm-up second (`Some(0)`: the warm-up second
    /// only, as Xenomai's `-T 0`); `None` (no `-T`) runs until Ctrl-C.
    pub duration_s: Option<u64>,
    /// `-h`: print the min/avg/max histograms.
    pub histogram: bool,
    /// `-s`: print their statistics.
    pub stats: bool,
    /// `-g`: the gnuplot file (`-` for standard output).
    pub gnuplot: Option<PathBuf>,
    /// `-H`: histogram cells.
    pub cells: usize,
    /// `-B`: bucket width, ns.
    pub bucket_ns: u64,
    /// `-l`: data lines per header (0: no header).
    pub lines: u64,
    /// `-q` (only with `-T`): no `RTT|`/`RTH|`/`RTD|` lines.
    pub quiet: bool,
    /// `-c`: the CPU the sampling thread runs on.
    pub cpu: usize,
    /// `-P`: its SCHED_FIFO priority.
    pub priority: i32,
    /// `-m`: exit with status 1 if the worst latency of the reported seconds exceeds this
    /// many µs (`-m 0`, as in Xenomai, checks nothing).
    pub max_us: Option<u64>,
    /// `--backend` (rtlat): what the sampling thread sleeps on.
    pub backend: Backend,
    /// Whether `--backend` was given (else the name decides: see
    /// [`crate::cli::latency::default_backend`]).
    pub backend_given: bool,
    /// Warnings to print before the run (Xenomai's own, such as `-q` without `-T`).
    pub notices: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            period_us: DEFAULT_PERIOD_US,
            duration_s: None,
            histogram: false,
            stats: false,
            gnuplot: None,
            cells: DEFAULT_CELLS,
            bucket_ns: DEFAULT_BUCKET_NS,
            lines: DEFAULT_LINES,
            quiet: false,
            cpu: DEFAULT_CPU,
            priority: DEFAULT_PRIORITY,
            max_us: None,
            backend: Backend::Linux,
            backend_given: false,
            notices: Vec::new(),
        }
    }
}

impl Config {
    /// The second step, against the machine: the `-g` file can be written (see
    /// [`check_writable_parent`]).
    pub fn check_output_paths(&self) -> Result<(), UsageError> {
        match self.gnuplot.as_ref().filter(|p| p.as_os_str() != "-") {
            Some(path) => check_writable_parent(path, "-g"),
            None => Ok(()),
        }
    }

    /// Whether any histogram is kept (Xenomai's `need_histo()`: `-h`, `-s` or `-g`).
    pub fn histograms(&self) -> bool {
        self.histogram || self.stats || self.gnuplot.is_some()
    }
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// `--help`: the help on standard output, status 0.
    Help,
    /// `-?` or `-D`: Xenomai's `latency` prints its usage on standard error and exits with
    /// status 2 (`-D` names a testing device only `-t 1`/`-t 2` use, which are not in its
    /// option switch); so does rtlat. The string says why.
    Usage(String),
    /// A run.
    Run(Config),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Gnuplot,
    Histogram,
    Stats,
    Cells,
    Bucket,
    Period,
    Lines,
    Duration,
    Quiet,
    Device,
    Mode,
    Freeze,
    Cpu,
    Priority,
    Break,
    Max,
    Backend,
    Help,
    Usage,
}

const fn short(id: Opt, letter: char, has_arg: HasArg) -> Spec<Opt> {
    Spec {
        id,
        short: Some(letter),
        long: None,
        has_arg,
        abbreviable: false,
        ..Spec::new(id)
    }
}

/// Xenomai's getopt string `g:hp:l:T:qH:B:sD:t:fc:P:b`, plus `-m` and `--help`.
const SPECS: &[Spec<Opt>] = &[
    short(Opt::Gnuplot, 'g', HasArg::Required),
    short(Opt::Histogram, 'h', HasArg::No),
    short(Opt::Period, 'p', HasArg::Required),
    short(Opt::Lines, 'l', HasArg::Required),
    short(Opt::Duration, 'T', HasArg::Required),
    short(Opt::Quiet, 'q', HasArg::No),
    short(Opt::Cells, 'H', HasArg::Required),
    short(Opt::Bucket, 'B', HasArg::Required),
    short(Opt::Stats, 's', HasArg::No),
    short(Opt::Device, 'D', HasArg::Required),
    short(Opt::Mode, 't', HasArg::Required),
    short(Opt::Freeze, 'f', HasArg::No),
    short(Opt::Cpu, 'c', HasArg::Required),
    short(Opt::Priority, 'P', HasArg::Required),
    short(Opt::Break, 'b', HasArg::No),
    short(Opt::Max, 'm', HasArg::Required),
    Spec {
        id: Opt::Backend,
        short: None,
        long: Some("backend"),
        has_arg: HasArg::Required,
        abbreviable: false,
        ..Spec::new(Opt::Backend)
    },
    Spec {
        id: Opt::Help,
        short: None,
        long: Some("help"),
        has_arg: HasArg::No,
        abbreviable: false,
        ..Spec::new(Opt::Help)
    },
    short(Opt::Usage, '?', HasArg::No),
];

struct Expected;

impl Expected {
    fn of(id: Opt) -> String {
        match id {
            Opt::Gnuplot => "a file name, or - for standard output".into(),
            Opt::Period => {
                format!("a sampling period of 1 to {MAX_PERIOD_US} µs (0: the default)")
            }
            Opt::Lines => format!("0 (no headers) to {MAX_INT} data lines per header"),
            Opt::Duration => format!("0 (the warm-up second only) to {MAX_INT} seconds"),
            Opt::Cells => format!("1 to {MAX_CELLS} histogram cells"),
            Opt::Bucket => format!("a bucket width of 1 to {MAX_BUCKET_NS} ns"),
            Opt::Device => "a testing device number (refused, as Xenomai does)".into(),
            Opt::Mode => "0 (periodic user-mode task)".into(),
            Opt::Cpu => "a CPU number".into(),
            Opt::Priority => "a priority of 1 to 99".into(),
            Opt::Max => format!("0 to {MAX_LIMIT_US} µs"),
            Opt::Backend => format!("one of {}", backend::NAMES),
            Opt::Histogram
            | Opt::Stats
            | Opt::Quiet
            | Opt::Freeze
            | Opt::Break
            | Opt::Help
            | Opt::Usage => "no value".into(),
        }
    }
}

impl Describe<Opt> for Expected {
    fn expected(&self, id: Opt) -> String {
        Expected::of(id)
    }
}

/// A whole number within `range`, or the error naming `-letter` and the accepted values.
fn number(id: Opt, letter: char, value: &str, low: u64, high: u64) -> Result<u64, UsageError> {
    match whole_number(value) {
        Ok(n) if (low..=high).contains(&n) => Ok(n),
        _ => Err(UsageError::InvalidValue {
            option: format!("-{letter}"),
            value: value.to_owned(),
            expected: Expected::of(id),
        }),
    }
}

/// Parses `latency`'s arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Parsed, UsageError> {
    let found = getopt::scan(args, SPECS, &Expected)?;
    let mut c = Config::default();
    let mut quiet = false;
    for f in found {
        let value = f.value.as_deref().unwrap_or("");
        match f.id {
            Opt::Help => return Ok(Parsed::Help),
            Opt::Usage => return Ok(Parsed::Usage("-? asks for the usage".into())),
            Opt::Gnuplot => {
                if value.is_empty() {
                    return Err(UsageError::InvalidValue {
                        option: "-g".into(),
                        value: value.into(),
                        expected: Expected::of(Opt::Gnuplot),
                    });
                }
                c.gnuplot = Some(PathBuf::from(value));
            }
            Opt::Histogram => c.histogram = true,
            Opt::Stats => c.stats = true,
            Opt::Cells => c.cells = number(f.id, 'H', value, 1, MAX_CELLS)? as usize,
            Opt::Bucket => c.bucket_ns = number(f.id, 'B', value, 1, MAX_BUCKET_NS)?,
            // -p 0 is the default period, as in Xenomai.
            Opt::Period => {
                c.period_us = match number(f.id, 'p', value, 0, MAX_PERIOD_US)? {
                    0 => DEFAULT_PERIOD_US,
                    us => us,
                }
            }
            Opt::Lines => c.lines = number(f.id, 'l', value, 0, MAX_INT)?,
            Opt::Duration => c.duration_s = Some(number(f.id, 'T', value, 0, MAX_INT)?),
            Opt::Quiet => quiet = true,
            Opt::Device => {
                return Ok(Parsed::Usage(format!(
                    "-D {value}: Xenomai's latency refuses -D (its testing device is for -t 1 and -t 2, which need Xenomai's timerbench driver)"
                )));
            }
            Opt::Mode => match value {
                "0" => {}
                "1" | "2" => {
                    return Err(UsageError::NotHere {
                        option: format!("-t {value}"),
                        reason: format!(
                            "the {} test needs Xenomai's timerbench driver (/dev/rtdm/timerbench), which Linux without Xenomai does not have; -t 0 (the default) measures a periodic user-mode task",
                            if value == "1" {
                                "in-kernel periodic task"
                            } else {
                                "in-kernel timer handler"
                            }
                        ),
                    });
                }
                _ => {
                    return Err(UsageError::InvalidValue {
                        option: "-t".into(),
                        value: value.into(),
                        expected: "0 (periodic user-mode task); 1 and 2 (in-kernel task, timer handler) need Xenomai".into(),
                    });
                }
            },
            // Xenomai's Mercury core accepts -f and -b and runs as without them: there is no
            // I-pipe tracer to freeze and no mode switch to break on. So does rtlat.
            Opt::Freeze => {}
            Opt::Cpu => c.cpu = number(f.id, 'c', value, 0, MAX_INT)? as usize,
            Opt::Priority => c.priority = number(f.id, 'P', value, 1, 99)? as i32,
            Opt::Break => {}
            Opt::Max => c.max_us = Some(number(f.id, 'm', value, 0, MAX_LIMIT_US)?),
            Opt::Backend => {
                c.backend = Backend::parse(value).ok_or_else(|| UsageError::InvalidValue {
                    option: "--backend".into(),
                    value: value.into(),
                    expected: Expected::of(Opt::Backend),
                })?;
                c.backend_given = true;
            }
        }
    }
    if quiet {
        if c.duration_s.is_some_and(|s| s > 0) {
            c.quiet = true;
        } else {
            // Xenomai's own behaviour: a warning, then a normal run.
            c.notices.push("-q requires -T, ignoring -q".into());
        }
    }
    Ok(Parsed::Run(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn config(line: &str) -> Config {
        match parse(&args(line)) {
            Ok(Parsed::Run(c)) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn error(line: &str) -> String {
        match parse(&args(line)) {
            Err(e) => e.to_string(),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn the_usage_names_every_option_of_the_table() {
        let text = crate::cli::latency::usage("latency");
        for spec in SPECS {
            let found = match (spec.short, spec.long) {
                (Some(s), _) => [format!(" -{s} "), format!(" -{s},"), format!("(-{s} ")]
                    .iter()
                    .any(|n| text.contains(n.as_str())),
                (None, Some(l)) => text.contains(&format!(" --{l} ")),
                (None, None) => false,
            };
            assert!(found, "{:?}", spec.id);
        }
    }

    #[test]
    fn defaults_are_xenomais() {
        let c = config("");
        assert_eq!(c.period_us, DEFAULT_PERIOD_US);
        assert_eq!(
            (c.cells, c.bucket_ns, c.lines, c.priority),
            (300, 1000, 21, 99)
        );
        assert_eq!((c.cpu, c.duration_s, c.quiet), (0, None, false));
        assert!(!c.histograms());
    }

    #[test]
    fn options_bundle_and_attach_like_getopt() {
        let c = config("-hs -p500 -T 4 -g - -H 300 -B500 -l 5 -q -c 1 -P 80 -m 100 -t 0");
        assert_eq!(c.period_us, 500);
        assert_eq!(c.duration_s, Some(4));
        assert!(c.histogram && c.stats && c.quiet);
        assert_eq!(c.gnuplot, Some(PathBuf::from("-")));
        assert_eq!((c.cells, c.bucket_ns, c.lines), (300, 500, 5));
        assert_eq!((c.cpu, c.priority, c.max_us), (1, 80, Some(100)));
        assert!(c.notices.is_empty());
    }

    #[test]
    fn quiet_without_a_duration_is_ignored_with_xenomais_warning() {
        let c = config("-q");
        assert!(!c.quiet);
        assert_eq!(c.notices, vec!["-q requires -T, ignoring -q".to_string()]);
        // -T 0 is the warm-up second alone; -q needs a duration, as in Xenomai.
        let c = config("-T 0 -q");
        assert_eq!((c.duration_s, c.quiet), (Some(0), false));
        assert_eq!(c.notices.len(), 1);
    }

    #[test]
    fn bad_values_name_the_option_and_the_range() {
        for (line, needle) in [
            ("-p 1000001", "1 to 1000000 µs"),
            ("-p 1x", "-p"),
            ("-P 0", "1 to 99"),
            ("-P 100", "1 to 99"),
            ("-H 0", "histogram cells"),
            ("-B 0", "bucket width"),
            ("-T -1", "-T"),
            ("-l x", "-l"),
            ("-m 1.5", "-m"),
            ("-c -1", "CPU"),
            ("-t 3", "-t"),
            ("-p", "needs a value"),
            ("-x", "unknown option"),
            ("500", "unexpected argument"),
        ] {
            let message = error(line);
            assert!(message.contains(needle), "{line}: {message}");
        }
    }

    #[test]
    fn xenomai_only_options_are_refused_with_the_reason() {
        assert!(error("-t 1").contains("timerbench"));
        assert!(error("-t2").contains("timer handler"));
    }

    #[test]
    fn the_backend_is_linux_unless_given() {
        assert_eq!(config("").backend, Backend::Linux);
        assert!(!config("").backend_given && config("--backend linux").backend_given);
        // Under the name latency, a build with Xenomai defaults to it.
        let named = crate::cli::latency::default_backend;
        assert_eq!(named(false), Backend::Linux);
        let xenomai = if cfg!(feature = "xenomai") {
            Backend::Xenomai
        } else {
            Backend::Linux
        };
        assert_eq!(named(true), xenomai);
        assert_eq!(config("--backend xenomai -p 200").backend, Backend::Xenomai);
        assert_eq!(config("--backend=linux").backend, Backend::Linux);
        assert_eq!(
            error("--backend cobalt"),
            "invalid value 'cobalt' for --backend: expected one of linux, xenomai"
        );
        assert!(error("--backend").contains("needs a value"));
    }

    #[test]
    fn p_0_is_the_default_period_as_in_xenomai() {
        assert_eq!(config("-p 0").period_us, DEFAULT_PERIOD_US);
    }

    #[test]
    fn b_and_f_change_nothing_as_on_mercury() {
        assert_eq!(config("-b -f -T 3"), config("-T 3"));
    }

    #[test]
    fn help_wins() {
        assert_eq!(parse(&args("-p 5 --help")), Ok(Parsed::Help));
    }

    #[test]
    fn question_mark_and_d_end_with_the_usage_as_in_xenomai() {
        for line in ["-?", "-p 5 -?", "-D 0", "-D0 -T 3"] {
            assert!(matches!(parse(&args(line)), Ok(Parsed::Usage(_))), "{line}");
        }
    }
}
