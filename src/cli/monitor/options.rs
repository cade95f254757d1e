//! `rtlat monitor`'s command line. Its own options (`--window`, `--spike-above`, `--listen`,
//! `--textfile`, spelled in full) are taken out first; every other word is `rtlat run`'s,
//! read by run's parser ([`crate::cli::cyclic::options::parse`]), with the monitor's defaults
//! filled in where the command line leaves a setting out:
//!
//! | setting | monitor default | unless given |
//! | --- | --- | --- |
//! | threads | one per isolated CPU (`-t -a ISOLATED`), or per CPU of the process's affinity mask when none is isolated (`-t`) | `-t`, `-a`, `-S` |
//! | priority | SCHED_FIFO 99 (`-p 99`) | `-p`, `--policy` |
//! | distance | every thread at the same interval (`-d 0`) | `-d` |
//! | interval | 1 ms (`-i 1000`, run's default too) | `-i` |
//!
//! The monitor's own options are defined once, in [`SPECS`] (the usage is written from it).
//!
//! Options that write results at the end or print while measuring (`-v`, `-h`/`-H`,
//! `--histfile`, `--json`, `-F`, `-b`, `--spike`, `-M`, `--profile`) are run's, not the
//! monitor's: refused in one line.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use rtlat_linux::cpuset::CpuSet;

use rtlat::options::Spec;

use crate::cli::cyclic::options::{
    self as run_options, Parsed as RunParsed, RunConfig, UsageError,
};

/// The port `/metrics` listens on by default (on 127.0.0.1). Prometheus' list of exporter
/// ports (9100–9999) is fully allocated; this one is not in common use. `--listen` chooses
/// another.
pub const DEFAULT_PORT: u16 = 9961;
/// Default `--window`: five minutes, OSADL's QA-farm window.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(300);
/// Longest `--window`: a day.
pub const MAX_WINDOW_SECS: u64 = 86_400;
/// Most `--spike-above` thresholds.
pub const MAX_THRESHOLDS: usize = 16;
/// Largest `--spike-above` threshold: one second.
pub const MAX_THRESHOLD_NS: i64 = 1_000_000_000;

/// What `rtlat monitor`'s command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonitorConfig {
    /// The measurement: `rtlat run`'s options with the monitor's defaults.
    pub run: RunConfig,
    /// `--window`: the length of a window (its maximum per CPU, and the textfile's period).
    pub window: Duration,
    /// `--spike-above`: the spike thresholds, ns, ascending, no duplicates.
    pub spike_above_ns: Vec<i64>,
    /// `--listen`: where `/metrics` is served.
    pub listen: SocketAddr,
    /// `--textfile`: the exposition written there each window (node_exporter's textfile
    /// collector), by atomic rename.
    pub textfile: Option<PathBuf>,
    /// `--profile-verify`: a tuning profile checked against the machine at start and every
    /// window (`rtlat_tuning_drift{item}`), read and checked before the run.
    pub profile_verify: Option<PathBuf>,
}

/// The command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
// Made once per process and matched at once.
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    /// `--help`.
    Help,
    /// A monitor to run.
    Monitor(MonitorConfig),
}

/// The monitor's own options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt {
    /// `--listen ADDR:PORT`.
    Listen,
    /// `--window DURATION`.
    Window,
    /// `--spike-above LIST`.
    SpikeAbove,
    /// `--textfile PATH`.
    Textfile,
    /// `--profile-verify PROFILE`.
    ProfileVerify,
}

/// Each of the monitor's own options, defined once: its name, its value, what the value
/// must be (for messages) and its help (the usage's option lines are written from it, in
/// this order). Spelled in full (never abbreviated): every other word is run's.
pub const SPECS: &[Spec<Opt>] = &[
    Spec::new(Opt::Listen)
        .long("listen")
        .value(
            "ADDR:PORT",
            "an IP address and port: 127.0.0.1:9961, 0.0.0.0:9961, [::1]:9961",
        )
        .help("where /metrics is served (default 127.0.0.1:9961; port 0: any free one)"),
    Spec::new(Opt::Window)
        .long("window")
        .value(
            "DURATION",
            "a window length of 1 s to 1 day: whole seconds, or a whole number with s, m, h or d (30s, 5m)",
        )
        .help(
            "the window whose maximum is kept per CPU, and the textfile's period\n\
             (default 5m; whole seconds or with s, m, h, d: 30s, 5m)",
        ),
    Spec::new(Opt::SpikeAbove)
        .long("spike-above")
        .value(
            "LIST",
            // MAX_THRESHOLDS and MAX_THRESHOLD_NS (a test holds them to these words).
            "up to 16 latency thresholds separated by commas, each above 0 and at most 1 s, in ns, us (µs) or ms (a bare number is µs): 50us,100us",
        )
        .help("count latencies above each threshold (50us,100us,1ms; a bare number is µs)"),
    Spec::new(Opt::Textfile)
        .long("textfile")
        .value("PATH", "a file path")
        .help(
            "write the exposition there every window (node_exporter's textfile\n\
             collector), by atomic rename",
        ),
    Spec::new(Opt::ProfileVerify)
        .long("profile-verify")
        .value("PROFILE", "a tuning profile file (TOML, as rtlat verify reads it)")
        .help(
            "check the tuning profile against the machine at start and every window\n\
             (rtlat verify): rtlat_tuning_drift{item} is 1 for each item that drifted",
        ),
];

/// The column the usage's option help starts at.
pub const HELP_COLUMN: usize = 23;

/// The option `--NAME` of [`SPECS`], if it is one of the monitor's.
fn spec_named(name: &str) -> Option<&'static Spec<Opt>> {
    let long = name.strip_prefix("--")?;
    SPECS.iter().find(|s| s.long == Some(long))
}

/// The spec of `opt` (every [`Opt`] has one).
fn spec(opt: Opt) -> &'static Spec<Opt> {
    SPECS.iter().find(|s| s.id == opt).unwrap_or(&SPECS[0])
}

/// The monitor's own options as given, and the words left for run's parser.
#[derive(Debug, Default)]
struct Own {
    window: Option<String>,
    spike_above: Option<String>,
    listen: Option<String>,
    textfile: Option<String>,
    profile_verify: Option<String>,
    help: bool,
}

/// Takes the monitor's options (`--window 5m`, `--window=5m`, ...) out of `args`; the last
/// of a repeated one wins, as in run's options. Words after `--` are left alone.
fn split(args: &[String]) -> Result<(Own, Vec<String>), UsageError> {
    let mut own = Own::default();
    let mut rest = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            rest.push(word.clone());
            rest.extend(words.by_ref().cloned());
            break;
        }
        if word == "--help" || word == "-?" {
            own.help = true;
            continue;
        }
        let (name, inline) = match word.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (word.as_str(), None),
        };
        let Some(spec) = spec_named(name) else {
            rest.push(word.clone());
            continue;
        };
        let slot = match spec.id {
            Opt::Window => &mut own.window,
            Opt::SpikeAbove => &mut own.spike_above,
            Opt::Listen => &mut own.listen,
            Opt::Textfile => &mut own.textfile,
            Opt::ProfileVerify => &mut own.profile_verify,
        };
        let value = match inline {
            Some(value) => value,
            None => words
                .next()
                .cloned()
                .ok_or_else(|| UsageError::MissingValue {
                    option: spec.name(),
                    expected: spec.expected.to_string(),
                })?,
        };
        *slot = Some(value);
    }
    Ok((own, rest))
}

fn invalid(opt: Opt, value: &str) -> UsageError {
    let spec = spec(opt);
    UsageError::InvalidValue {
        option: spec.name(),
        value: value.to_string(),
        expected: spec.expected.to_string(),
    }
}

/// `--window`: 1 s to a day.
fn window(value: &str) -> Result<Duration, UsageError> {
    match rtlat::values::duration(value, MAX_WINDOW_SECS) {
        Some(d) if !d.is_zero() => Ok(d),
        _ => Err(invalid(Opt::Window, value)),
    }
}

/// One latency with its unit (`50us`, `1ms`, `500ns`, `50µs`; a bare number is µs), ns.
fn latency_ns(text: &str) -> Option<i64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let per_unit: i64 = match unit {
        "" | "us" | "µs" => 1_000,
        "ns" => 1,
        "ms" => 1_000_000,
        _ => return None,
    };
    let n = rtlat::values::whole_number(digits).ok()?;
    i64::try_from(n).ok()?.checked_mul(per_unit)
}

/// `--spike-above`: thresholds, ascending, without duplicates.
fn thresholds(value: &str) -> Result<Vec<i64>, UsageError> {
    let mut out = Vec::new();
    for part in value.split(',') {
        match latency_ns(part) {
            Some(ns) if ns > 0 && ns <= MAX_THRESHOLD_NS => out.push(ns),
            _ => return Err(invalid(Opt::SpikeAbove, value)),
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.len() > MAX_THRESHOLDS {
        return Err(invalid(Opt::SpikeAbove, value));
    }
    Ok(out)
}

/// `--listen`: an address and port (a name is not resolved: no surprise about where it
/// listens).
fn listen(value: &str) -> Result<SocketAddr, UsageError> {
    value.parse().map_err(|_| invalid(Opt::Listen, value))
}

/// Run's options that have no place in a monitor, and why.
fn refused(config: &RunConfig) -> Option<(&'static str, &'static str)> {
    let results = "the monitor serves its figures on /metrics (and --textfile) instead";
    if config.histogram.is_some() {
        Some(("-h/--histogram", results))
    } else if config.histfile.is_some() {
        Some(("--histfile", results))
    } else if config.json.is_some() {
        Some(("--json", results))
    } else if config.fifo.is_some() {
        Some(("-F/--fifo", results))
    } else if config.verbose {
        Some(("-v/--verbose", results))
    } else if config.refresh_on_max {
        Some(("-M/--refresh_on_max", results))
    } else if config.breaktrace.is_some() {
        Some((
            "-b/--breaktrace",
            "a monitor does not stop at a latency; count it with --spike-above",
        ))
    } else if config.spike.is_some() {
        Some(("--spike", "count spikes with --spike-above"))
    } else if config.profile.is_some() {
        Some(("--profile", "give the profile's settings as options"))
    } else {
        None
    }
}

/// Reads the words after `rtlat monitor`; `isolated`: the online CPUs `isolcpus=` took out
/// of every process's affinity mask (the threads' default CPUs, when not empty: named with
/// `-a`, they are measured there).
pub fn parse(args: &[String], isolated: &CpuSet) -> Result<Parsed, UsageError> {
    let (own, rest) = split(args)?;
    if own.help {
        return Ok(Parsed::Help);
    }
    let window = own.window.as_deref().map_or(Ok(DEFAULT_WINDOW), window)?;
    let spike_above_ns = own
        .spike_above
        .as_deref()
        .map_or(Ok(Vec::new()), thresholds)?;
    let listen = match own.listen.as_deref() {
        Some(value) => listen(value)?,
        None => SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
    };
    let textfile = match own.textfile {
        Some(value) if value.is_empty() || value.starts_with('-') => {
            return Err(invalid(Opt::Textfile, &value));
        }
        Some(value) => Some(PathBuf::from(value)),
        None => None,
    };
    // --profile-verify: a profile that cannot be read is refused before anything runs.
    let profile_verify = match own.profile_verify {
        Some(value) => {
            let path = PathBuf::from(&value);
            rtlat_system::profile::Profile::read(&path).map_err(|why| UsageError::NotHere {
                option: spec(Opt::ProfileVerify).name(),
                reason: why.to_string(),
            })?;
            Some(path)
        }
        None => None,
    };
    // The monitor's defaults first: the options given after them win (run's rule: the
    // last of a repeated option wins), and those that leave them out keep them.
    let given = run_options::given(&rest)?;
    let mut words: Vec<String> = Vec::new();
    if !given.threads && !given.affinity && !given.smp {
        words.push("-t".into());
        if !isolated.is_empty() {
            words.push("-a".into());
            words.push(isolated.to_string());
        }
    }
    if !given.priority && !given.policy {
        words.extend(["-p".into(), "99".into()]);
    }
    words.extend(["-d".into(), "0".into()]);
    words.extend(rest);
    let run = match run_options::parse(&words, false)? {
        RunParsed::Help => return Ok(Parsed::Help),
        RunParsed::Run(config) => config,
    };
    if let Some((option, reason)) = refused(&run) {
        return Err(UsageError::NotHere {
            option: option.to_string(),
            reason: format!("not an option of rtlat monitor: {reason}"),
        });
    }
    Ok(Parsed::Monitor(MonitorConfig {
        run,
        window,
        spike_above_ns,
        listen,
        textfile,
        profile_verify,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    fn monitor(text: &str, isolated: &str) -> MonitorConfig {
        let isolated = CpuSet::parse_allowing_empty(isolated).unwrap();
        match parse(&words(text), &isolated).unwrap() {
            Parsed::Monitor(config) => config,
            Parsed::Help => panic!("help"),
        }
    }

    #[test]
    fn defaults() {
        let c = monitor("", "");
        assert_eq!(c.window, DEFAULT_WINDOW);
        assert!(c.spike_above_ns.is_empty());
        assert_eq!(c.listen.to_string(), format!("127.0.0.1:{DEFAULT_PORT}"));
        assert_eq!(c.run.priority, Some(99));
        assert_eq!(c.run.interval_us, 1000);
        assert_eq!(c.run.distance_us(), 0);
        assert_eq!(c.run.threads, run_options::Threads::PerCpu);
        assert_eq!(c.run.affinity, None);
        let c = monitor("", "2-3");
        assert_eq!(
            c.run.affinity.map(|a| a.to_string()),
            Some("2-3".to_string())
        );
    }

    #[test]
    fn given_options_win() {
        let c = monitor(
            "-t 1 -p 80 -i 200 --window=30s --spike-above 100us,50us,50000ns,1ms --listen [::1]:0 --textfile /tmp/x.prom",
            "2-3",
        );
        assert_eq!(c.run.threads, run_options::Threads::Count(1));
        assert_eq!(c.run.affinity, None, "-t alone: not the isolated CPUs");
        assert_eq!(c.run.priority, Some(80));
        assert_eq!(c.run.interval_us, 200);
        assert_eq!(c.window, Duration::from_secs(30));
        assert_eq!(c.spike_above_ns, vec![50_000, 100_000, 1_000_000]);
        assert_eq!(c.listen.to_string(), "[::1]:0");
        assert_eq!(c.textfile, Some(PathBuf::from("/tmp/x.prom")));
        let c = monitor("--policy other", "");
        assert_eq!(c.run.priority, None);
    }

    #[test]
    fn bad_values_are_refused() {
        let none = CpuSet::parse_allowing_empty("").unwrap();
        for bad in [
            "--window 0",
            "--window 5x",
            "--window 2d",
            "--window",
            "--spike-above 0us",
            "--spike-above 50uss",
            "--spike-above 2s",
            "--spike-above 50us,",
            "--listen localhost:80",
            "--listen 127.0.0.1",
            "--textfile -q",
            "--json x.json",
            "-v",
            "-b 100",
            "--bogus",
        ] {
            assert!(parse(&words(bad), &none).is_err(), "{bad}");
        }
        assert_eq!(parse(&words("--help"), &none).unwrap(), Parsed::Help);
    }

    #[test]
    fn messages_come_from_the_table() {
        let none = CpuSet::parse_allowing_empty("").unwrap();
        let e = parse(&words("--window 0"), &none).unwrap_err().to_string();
        assert!(
            e.contains("--window") && e.contains(spec(Opt::Window).expected),
            "{e}"
        );
        let e = parse(&words("--listen"), &none).unwrap_err().to_string();
        assert!(
            e.contains("--listen") && e.contains(spec(Opt::Listen).expected),
            "{e}"
        );
        // The limits in --spike-above's words are the constants'.
        let words_of = spec(Opt::SpikeAbove).expected;
        assert!(
            words_of.starts_with(&format!("up to {MAX_THRESHOLDS} ")),
            "{words_of}"
        );
        assert_eq!(MAX_THRESHOLD_NS, 1_000_000_000, "\"at most 1 s\"");
        // Every option is spelled in full only, and has its help.
        for spec in SPECS {
            assert!(!spec.help.is_empty() && !spec.expected.is_empty());
            let long = spec.long.unwrap();
            assert!(spec_named(&format!("--{long}")).is_some());
            assert!(spec_named(&format!("--{}", &long[..3])).is_none());
        }
    }
}
