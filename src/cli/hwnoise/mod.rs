//! `rtlat hwnoise`: hardware and firmware noise (SMIs, NMIs, a hypervisor's exits) that no
//! setting inside Linux removes, as hwlatdetect (rt-tests) measures it: the kernel's hwlat
//! tracer where the kernel has it ([`hwlat_method`]), else rtlat's busy loop with Linux's own
//! events taken out ([`poll_method`], lower bounds); the SMI counter where the CPU has one.
//! hwlatdetect's options, parameter block and result lines; per CPU: samples, spikes, max,
//! total, mean time between spikes, NMIs; `--json`; exit status 1 above `--fail-above`.

pub mod hwlat_method;
pub mod options;
pub mod output;
pub mod poll_method;

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use rtlat::exit_status;
use rtlat_engine::session::Session;
use rtlat_linux::ProcessCpus;
use rtlat_linux::msr::{SmiCounter, smi_support};
use rtlat_system::noise::hwlat::{HwlatPath, HwlatSample, probe};

use options::{Config, Method, Parsed};

/// One CPU's noise, from either method.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuNoise {
    /// The CPU.
    pub cpu: usize,
    /// Samples: the tracer's lines on it, or the poll's widths with noise left over.
    pub samples: u64,
    /// Gaps above the threshold that are noise.
    pub spikes: u64,
    /// The largest, ns.
    pub max_ns: Option<u64>,
    /// Their sum, ns.
    pub total_ns: u64,
    /// Whether max and total are as measured (else lower bounds).
    pub exact: bool,
    /// NMIs.
    pub nmi_count: u64,
    /// NMI time, ns (the tracer's).
    pub nmi_total_ns: u64,
    /// Poll: Linux's events in the widths.
    pub linux_events: u64,
    /// Poll: every gap above the threshold, Linux's included.
    pub gaps_above: u64,
    /// Poll: time polled.
    pub sampled_ns: u64,
    /// Poll: allocations while polling.
    pub allocations: Option<u64>,
    /// Poll: the largest gap of all, Linux's included, ns.
    pub max_gap_ns: Option<u64>,
}

/// The method a run used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsedMethod {
    /// The hwlat tracer.
    Hwlat,
    /// The poll, and why not the tracer (when chosen for the user).
    Poll {
        /// The tracer's absence, when `--method auto` fell to poll.
        why: Option<String>,
    },
}

/// The SMI counter's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmiCount {
    /// `(cpu, SMIs during the run)`.
    Counted(Vec<(usize, u64)>),
    /// Why not.
    Unavailable(String),
}

/// A run's results.
#[derive(Debug)]
pub struct Outcome {
    /// How.
    pub method: UsedMethod,
    /// Per CPU, by CPU.
    pub cpus: Vec<CpuNoise>,
    /// The tracer's samples (none with poll).
    pub samples: Vec<HwlatSample>,
    /// How long it ran.
    pub duration: Duration,
    /// SMIs.
    pub smi: SmiCount,
}

/// `rtlat hwnoise --help`.
pub fn usage() -> String {
    format!(
        "Usage: rtlat hwnoise [OPTIONS]\n\n\
         Hardware and firmware noise (SMIs, NMIs, a hypervisor) that no setting inside Linux\n\
         removes, as hwlatdetect measures it: the kernel's hwlat tracer spins on each CPU with\n\
         interrupts off for WIDTH of every WINDOW and records the gaps above THRESHOLD. Where\n\
         the kernel has no hwlat tracer (CONFIG_HWLAT_TRACER), a SCHED_FIFO 99 busy loop per CPU\n\
         with Linux's own interrupts and context switches taken out: lower bounds (marked ≥).\n\
         The SMI counter (MSR_SMI_COUNT, Intel) is read where the CPU has one (modprobe msr).\n\
         Per CPU: samples, spikes, max, total, and the mean time between spikes: the run's\n\
         duration over the CPU's spikes. Every tracefs setting changed is printed and put back.\n\
         Note: sampling takes WIDTH of every WINDOW on each CPU sampled from everything else.\n\n\
         {}\n\n{}",
        options::OPTIONS,
        exit_status::HELP
    )
}

/// Runs `rtlat hwnoise ARGS`.
pub fn main(args: &[String]) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(line) => {
            errln!("rtlat hwnoise: {line}");
            exit_status::code(exit_status::BAD_INPUT)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, String> {
    Session::handle_signals(&[]).map_err(|e| e.to_string())?;
    let config = match options::parse(args).and_then(|parsed| {
        if let Parsed::Run(config) = &parsed {
            config.check_output_paths()?;
        }
        Ok(parsed)
    }) {
        Ok(Parsed::Help) => {
            out!("{}", usage());
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Parsed::Run(config)) => config,
        Err(e) => return Err(e.to_string()),
    };
    let process = ProcessCpus::read().map_err(|e| e.to_string())?;
    let method = choose(&config)?;
    let cpus: Vec<usize> = match &method {
        Chosen::Hwlat(_) => {
            if let Some(asked) = &config.cpus {
                let offline = asked.difference(process.online());
                if !offline.is_empty() {
                    return Err(format!(
                        "invalid CPU list '{asked}' for --cpu-list: CPU {offline} not online (online CPUs: {})",
                        process.online()
                    ));
                }
            }
            config
                .cpus
                .as_ref()
                .unwrap_or(process.online())
                .iter()
                .collect()
        }
        Chosen::Poll(_) => {
            crate::cli::noise::resolve_cpus(config.cpus.as_ref(), "--cpu-list", &process)?
        }
    };
    let smi = SmiCounters::open(&cpus);
    if !config.quiet {
        let used = match &method {
            Chosen::Hwlat(_) => UsedMethod::Hwlat,
            Chosen::Poll(why) => UsedMethod::Poll { why: why.clone() },
        };
        out!("{}", output::header(&config, &used));
    }
    let started = Instant::now();
    let (used, cpu_noise, samples, duration) = match method {
        Chosen::Hwlat(tracefs) => {
            let (samples, lasted) = hwlat_method::run(&config, &tracefs, config.cpus.as_ref())?;
            let noise = hwlat_method::per_cpu(&samples, &cpus, config.threshold_us);
            (UsedMethod::Hwlat, noise, samples, lasted)
        }
        Chosen::Poll(why) => {
            let noise = poll_method::run(&config, &cpus)?;
            (
                UsedMethod::Poll { why },
                noise,
                Vec::new(),
                started.elapsed(),
            )
        }
    };
    let outcome = Outcome {
        method: used,
        cpus: cpu_noise,
        samples,
        duration,
        smi: smi.finish(),
    };
    finish(&config, args, &outcome)
}

/// The method to run, with what it needs.
enum Chosen {
    /// The tracer, in this tracefs.
    Hwlat(std::path::PathBuf),
    /// The poll, and why not the tracer (with `--method auto`).
    Poll(Option<String>),
}

/// `--method`'s choice on this kernel: `hwlat` where the tracer is absent is refused.
fn choose(config: &Config) -> Result<Chosen, String> {
    match (config.method, probe(Path::new("/"))) {
        (Method::Poll, _) => Ok(Chosen::Poll(None)),
        (_, HwlatPath::Available(_)) if config.priority.is_some() => Err(
            "--priority is the poll method's (the hwlat tracer's thread is the kernel's): add --method poll, or leave --priority out".into(),
        ),
        (_, HwlatPath::Available(tracefs)) => Ok(Chosen::Hwlat(tracefs)),
        (Method::Auto, HwlatPath::Absent(why)) => Ok(Chosen::Poll(Some(why))),
        (Method::Hwlat, HwlatPath::Absent(why)) => Err(format!(
            "--method hwlat: {why}; --method poll measures without it (lower bounds)"
        )),
    }
}

/// The SMI counters of the CPUs sampled, read at the start.
enum SmiCounters {
    Open(Vec<(usize, SmiCounter, u64)>),
    Unavailable(String),
}

impl SmiCounters {
    fn open(cpus: &[usize]) -> SmiCounters {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        if let Err(e) = smi_support(&cpuinfo) {
            return SmiCounters::Unavailable(e.to_string());
        }
        let mut open = Vec::with_capacity(cpus.len());
        for &cpu in cpus {
            match SmiCounter::open(Path::new("/"), cpu).and_then(|c| {
                let start = c.read()?;
                Ok((cpu, c, start))
            }) {
                Ok(counter) => open.push(counter),
                Err(e) => return SmiCounters::Unavailable(e.to_string()),
            }
        }
        SmiCounters::Open(open)
    }

    fn finish(self) -> SmiCount {
        match self {
            SmiCounters::Unavailable(why) => SmiCount::Unavailable(why),
            SmiCounters::Open(counters) => {
                let mut counted = Vec::with_capacity(counters.len());
                for (cpu, counter, start) in counters {
                    match counter.read() {
                        // The counter is 32 bits: it may have wrapped once.
                        Ok(end) => counted.push((cpu, end.wrapping_sub(start) & 0xffff_ffff)),
                        Err(e) => return SmiCount::Unavailable(e.to_string()),
                    }
                }
                SmiCount::Counted(counted)
            }
        }
    }
}

/// The summary, the files, the exit status.
fn finish(config: &Config, args: &[String], outcome: &Outcome) -> Result<ExitCode, String> {
    out!("{}", output::summary(config, outcome));
    let max = output::max_latency_us(&outcome.cpus);
    let over = config
        .fail_above_us
        .is_some_and(|limit| max.is_some_and(|m| m > limit));
    if over && let (Some(limit), Some(max)) = (config.fail_above_us, max) {
        errln!("rtlat hwnoise: a sample of {max} µs is above --fail-above {limit} µs");
    }
    let mut written = true;
    if let Some(path) = &config.report {
        match rtlat::output::write(path, output::report(&outcome.samples).as_bytes()) {
            Ok(()) => {
                if !config.quiet {
                    outln!(
                        "report saved to {} ({} samples)",
                        path.display(),
                        outcome.samples.len()
                    );
                }
            }
            Err(e) => {
                errln!("rtlat hwnoise: cannot write {}: {e}", path.display());
                written = false;
            }
        }
    }
    if let Some(path) = &config.json {
        let cmdline = std::iter::once("rtlat hwnoise")
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let text = output::json(config, cmdline, outcome);
        if path.as_os_str() == "-" {
            out!("{text}");
        } else if let Err(e) = rtlat::output::write(path, text.as_bytes()) {
            errln!("rtlat hwnoise: cannot write {}: {e}", path.display());
            written = false;
        }
    }
    let verdict = if over {
        exit_status::OVER_THRESHOLD
    } else {
        exit_status::OK
    };
    Ok(exit_status::code(exit_status::finished(verdict, written)))
}
