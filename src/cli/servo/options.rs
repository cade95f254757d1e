//! `rtlat servo`'s command line.

use std::path::PathBuf;
use std::time::Duration;

use crate::cli::cyclic::options::{UsageError, check_writable_parent};
use crate::cli::cyclic::values::{duration, whole_number};
use rtlat::options::{self as getopt, Describe, HasArg, Spec};

/// LinuxCNC's default base period: 25 µs.
pub const DEFAULT_BASE_NS: u64 = 25_000;
/// LinuxCNC's default servo period: 1 ms.
pub const DEFAULT_SERVO_NS: u64 = 1_000_000;
/// Shortest period accepted: 1 µs.
pub const MIN_PERIOD_NS: u64 = 1_000;
/// Longest period accepted: 1 s.
pub const MAX_PERIOD_NS: u64 = 1_000_000_000;
/// Longest `-D`: 30 days.
const MAX_DURATION_S: u64 = 30 * 24 * 3600;

/// A complete `servo` configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Base thread period, ns; `None`: no base thread (the servo thread alone, as
    /// latency-test runs with a base period of 0 or `-`).
    pub base_ns: Option<u64>,
    /// Servo thread period, ns.
    pub servo_ns: u64,
    /// How long to run; `None` until Ctrl-C.
    pub duration: Option<Duration>,
    /// Print only the final figures.
    pub quiet: bool,
    /// CPU for both threads, any online one; `None`: the last isolated CPU, else the last of
    /// the process's affinity mask (LinuxCNC's choice).
    pub cpu: Option<usize>,
    /// JSON output (`-` for standard output).
    pub json: Option<PathBuf>,
    /// `--explain`: the likely cause of each thread's max jitter (its late wake-up).
    pub explain: bool,
    /// `--timerlat`: the kernel's timerlat tracer beside the threads, at the servo period.
    pub timerlat: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            base_ns: Some(DEFAULT_BASE_NS),
            servo_ns: DEFAULT_SERVO_NS,
            duration: None,
            quiet: false,
            cpu: None,
            json: None,
            explain: false,
            timerlat: false,
        }
    }
}

impl Config {
    /// The second step, against the machine: the `--json` file can be written (see
    /// [`check_writable_parent`]).
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
    /// A run.
    Run(Config),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Base,
    Servo,
    Duration,
    Quiet,
    Cpu,
    Json,
    Explain,
    Timerlat,
    Help,
}

const SPECS: &[Spec<Opt>] = &[
    Spec {
        id: Opt::Base,
        short: None,
        long: Some("base"),
        has_arg: HasArg::Required,
        abbreviable: false,
        ..Spec::new(Opt::Base)
    },
    Spec {
        id: Opt::Servo,
        short: None,
        long: Some("servo"),
        has_arg: HasArg::Required,
        abbreviable: false,
        ..Spec::new(Opt::Servo)
    },
    Spec {
        id: Opt::Duration,
        short: Some('D'),
        long: Some("duration"),
        has_arg: HasArg::Required,
        abbreviable: false,
        ..Spec::new(Opt::Duration)
    },
    Spec {
        id: Opt::Quiet,
        short: Some('q'),
        long: Some("quiet"),
        has_arg: HasArg::No,
        abbreviable: false,
        ..Spec::new(Opt::Quiet)
    },
    Spec {
        id: Opt::Cpu,
        short: None,
        long: Some("cpu"),
        has_arg: HasArg::Required,
        abbreviable: false,
        ..Spec::new(Opt::Cpu)
    },
    Spec {
        id: Opt::Json,
        short: None,
        long: Some("json"),
        has_arg: HasArg::Required,
        abbreviable: false,
        ..Spec::new(Opt::Json)
    },
    Spec {
        id: Opt::Explain,
        short: None,
        long: Some("explain"),
        has_arg: HasArg::No,
        abbreviable: false,
        ..Spec::new(Opt::Explain)
    },
    Spec {
        id: Opt::Timerlat,
        short: None,
        long: Some("timerlat"),
        has_arg: HasArg::No,
        abbreviable: false,
        ..Spec::new(Opt::Timerlat)
    },
    Spec {
        id: Opt::Help,
        short: Some('h'),
        long: Some("help"),
        has_arg: HasArg::No,
        abbreviable: false,
        ..Spec::new(Opt::Help)
    },
];

fn expected(id: Opt) -> String {
    match id {
        Opt::Base => format!(
            "a period of {} µs to {} s: nanoseconds (25000), or a number with ns, us, ms or s (25us, 1ms); 0 or - for no base thread",
            MIN_PERIOD_NS / 1000,
            MAX_PERIOD_NS / 1_000_000_000
        ),
        Opt::Servo => format!(
            "a period of {} µs to {} s: nanoseconds (25000), or a number with ns, us, ms or s (25us, 1ms)",
            MIN_PERIOD_NS / 1000,
            MAX_PERIOD_NS / 1_000_000_000
        ),
        Opt::Duration => format!(
            "seconds, or a whole number with s, m, h or d, up to {} days",
            MAX_DURATION_S / 86_400
        ),
        Opt::Cpu => "a CPU number".into(),
        Opt::Json => "a file name, or - for standard output".into(),
        Opt::Quiet | Opt::Explain | Opt::Timerlat | Opt::Help => "no value".into(),
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

/// A period: bare nanoseconds (LinuxCNC's unit), or a decimal number with `ns`, `us` (`µs`),
/// `ms` or `s`, that comes to whole nanoseconds. `None` when malformed.
pub fn period_ns(text: &str) -> Option<u64> {
    let units: [(&str, u64); 5] = [
        ("ns", 1),
        ("us", 1_000),
        ("µs", 1_000),
        ("ms", 1_000_000),
        ("s", 1_000_000_000),
    ];
    let (number, scale) = units
        .iter()
        .find_map(|&(suffix, scale)| text.strip_suffix(suffix).map(|n| (n, scale)))
        .unwrap_or((text, 1));
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let whole = if whole.is_empty() {
        0
    } else {
        whole_number(whole).ok()?
    };
    if !fraction.bytes().all(|b| b.is_ascii_digit())
        || (number.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let mut ns = whole.checked_mul(scale)?;
    // The fraction must come to whole nanoseconds: 1.5us is 1500 ns, 1.0005us is not.
    let mut unit = scale;
    for digit in fraction.bytes() {
        let d = u64::from(digit - b'0');
        if unit % 10 != 0 {
            if d != 0 {
                return None;
            }
            continue;
        }
        unit /= 10;
        ns = ns.checked_add(d * unit)?;
    }
    Some(ns)
}

/// Parses `servo`'s arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Parsed, UsageError> {
    let mut c = Config::default();
    for f in getopt::scan(args, SPECS, &Expected)? {
        let value = f.value.as_deref().unwrap_or("");
        match f.id {
            Opt::Help => return Ok(Parsed::Help),
            // latency-test runs no base thread when its base period is 0 or `-`.
            Opt::Base if value == "-" || period_ns(value) == Some(0) => c.base_ns = None,
            Opt::Base | Opt::Servo => {
                let name = if f.id == Opt::Base {
                    "--base"
                } else {
                    "--servo"
                };
                let ns = period_ns(value)
                    .filter(|ns| (MIN_PERIOD_NS..=MAX_PERIOD_NS).contains(ns))
                    .ok_or_else(|| invalid(f.id, name, value))?;
                if f.id == Opt::Base {
                    c.base_ns = Some(ns);
                } else {
                    c.servo_ns = ns;
                }
            }
            Opt::Duration => {
                c.duration = Some(
                    duration(value, MAX_DURATION_S)
                        .filter(|d| !d.is_zero())
                        .ok_or_else(|| invalid(f.id, "-D/--duration", value))?,
                );
            }
            Opt::Quiet => c.quiet = true,
            Opt::Explain => c.explain = true,
            Opt::Timerlat => c.timerlat = true,
            Opt::Cpu => {
                c.cpu = Some(
                    whole_number(value)
                        .ok()
                        .filter(|&n| n < 1 << 20)
                        .ok_or_else(|| invalid(f.id, "--cpu", value))? as usize,
                );
            }
            Opt::Json => {
                if value.is_empty() {
                    return Err(invalid(f.id, "--json", value));
                }
                c.json = Some(PathBuf::from(value));
            }
        }
    }
    if let Some(base_ns) = c.base_ns.filter(|&b| b >= c.servo_ns) {
        return Err(UsageError::Conflict {
            option: format!("--base {base_ns}"),
            with: format!("--servo {}", c.servo_ns),
            reason: "the base thread is the fast one: its period must be shorter than the servo thread's".into(),
        });
    }
    Ok(Parsed::Run(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usage_names_every_option_of_the_table() {
        let text = crate::cli::servo::usage();
        for spec in SPECS {
            let long = spec.long.unwrap_or_default();
            let names = match spec.short {
                Some(short) => format!("-{short}, --{long}"),
                None => format!("--{long}"),
            };
            assert!(text.contains(&names), "{names}");
        }
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn periods_take_linuxcnc_units() {
        for (text, ns) in [
            ("25000", Some(25_000)),
            ("25us", Some(25_000)),
            ("25µs", Some(25_000)),
            ("1ms", Some(1_000_000)),
            ("1.5ms", Some(1_500_000)),
            ("0.5ms", Some(500_000)),
            (".5ms", Some(500_000)),
            ("1s", Some(1_000_000_000)),
            ("40ns", Some(40)),
            ("1.0005us", None),
            ("1.5ns", None),
            ("1.", None),
            ("", None),
            ("us", None),
            ("-5us", None),
            ("5 us", None),
            ("1e3", None),
            ("99999999999999999999", None),
        ] {
            assert_eq!(period_ns(text), ns, "{text:?}");
        }
    }

    #[test]
    fn defaults_and_options() {
        assert_eq!(parse(&[]), Ok(Parsed::Run(Config::default())));
        let Ok(Parsed::Run(c)) = parse(&args("--base 50us --servo 2ms -D 5m -q --cpu 1 --json -"))
        else {
            panic!()
        };
        assert_eq!((c.base_ns, c.servo_ns), (Some(50_000), 2_000_000));
        assert_eq!(c.duration, Some(Duration::from_secs(300)));
        assert!(c.quiet);
        assert_eq!(c.cpu, Some(1));
        assert_eq!(c.json, Some(PathBuf::from("-")));
        assert!(!c.explain);
        let Ok(Parsed::Run(c)) = parse(&args("--explain")) else {
            panic!()
        };
        assert!(c.explain);
        assert_eq!(parse(&args("--help")), Ok(Parsed::Help));
        // No base thread: latency-test's base period 0 or `-`.
        for base in ["0", "-", "0us", "0.0ms"] {
            let Ok(Parsed::Run(c)) = parse(&args(&format!("--base {base} --servo 2ms"))) else {
                panic!("{base}")
            };
            assert_eq!((c.base_ns, c.servo_ns), (None, 2_000_000), "{base}");
        }
    }

    #[test]
    fn bad_values_name_the_option_and_the_range() {
        for (line, needle) in [
            ("--base 500ns", "--base"),
            ("--base 2s", "1 µs to 1 s"),
            ("--servo x", "--servo"),
            ("--base 1ms --servo 1ms", "shorter"),
            ("--base", "needs a value"),
            ("-D 0", "-D/--duration"),
            ("-D 5x", "-D/--duration"),
            ("--cpu -1", "--cpu"),
            ("--bas 25us", "unknown option"),
            ("25us", "unexpected argument"),
        ] {
            let message = parse(&args(line)).unwrap_err().to_string();
            assert!(message.contains(needle), "{line}: {message}");
        }
    }
}
