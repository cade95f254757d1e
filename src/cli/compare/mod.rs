//! `rtlat compare A B [C …] [--json]`: latency results of rtlat, cyclictest, jitterdebugger
//! and Xenomai `latency` side by side, per thread or CPU, each file against the first.
//!
//! Formats are detected from the content (see [`rtlat_formats`]); a file that is missing,
//! unreadable or not a result ends the command with status 2 and one line naming the file and
//! what was wrong.

// What changed in the tuning between two rtlat runs (their provenance).
mod changes;
mod json;
mod report;
mod spikes;
mod table;
mod timerlat;

use std::path::Path;
use std::process::ExitCode;

use rtlat::exit_status;
use rtlat::options::{self, CliError, Grammar, Spec, UsageError};

/// `rtlat compare --help`: the options part written from [`SPECS`].
fn usage() -> String {
    format!(
        "Usage: rtlat compare A B [C …] [--json]

Compares latency results per thread or CPU: cycles, min, avg, p50, p99, p99.9, max and
overruns, each file against the first (A), and gives each file's worst case against A's.

Files are detected from their content: rtlat or cyclictest --json files, cyclictest -h/-H
histogram output, jitterdebugger results.json, Xenomai latency output and its -g gnuplot file.
Percentiles come from the histogram each file carries (n/a where it has none).

Files from rtlat run --explain also get their explained spikes, after the verdicts: per
thread, how many latencies were above the threshold and where it came from, then the worst
{shown} spikes (latency, seconds since the thread's start, CPU, (max) for the largest), each
followed by its first {causes} likely causes, most likely first (\"no cause found\" when there were
none, \"no verdict: WHY\" when there could be none). --json lists every spike under
files[].explained.

Options:
{}
Exit status: 0, or 2 when a file is missing or not a latency result.",
        options::help::options(SPECS, 14),
        shown = spikes::SPIKES_SHOWN,
        causes = spikes::CAUSES_SHOWN,
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Json,
    Help,
}

/// `rtlat compare`'s options; the files are its operands.
const SPECS: &[Spec<Opt>] = &[
    Spec::new(Opt::Json)
        .long("json")
        .help("print the comparison as JSON (values in ns)"),
    Spec::new(Opt::Help)
        .short('h')
        .long("help")
        .help("this help"),
];

/// What the command line asks for, checked (the files are read after).
enum Parsed {
    Help,
    Compare { files: Vec<String>, as_json: bool },
}

/// Parses `rtlat compare`'s words: options anywhere, files in order (`--` ends the options).
fn parse(args: &[String]) -> Result<Parsed, CliError> {
    let grammar = Grammar {
        operands: true,
        ..Grammar::default()
    };
    let unknown = |option: &str| format!("unknown option '{option}'; accepted: --json, --help");
    let scanned = options::scan_with(args, SPECS, &(), grammar).map_err(|e| match e {
        UsageError::UnknownOption { option } => unknown(&option),
        UsageError::UnexpectedValue { given, .. } => unknown(&given),
        other => other.to_string(),
    })?;
    if scanned.options.iter().any(|f| f.id == Opt::Help) {
        return Ok(Parsed::Help);
    }
    let as_json = scanned.options.iter().any(|f| f.id == Opt::Json);
    let files = scanned.operands;
    if files.len() < 2 {
        return Err(format!(
            "needs at least two result files (got {}); usage: rtlat compare A B [C …] [--json]",
            files.len()
        )
        .into());
    }
    Ok(Parsed::Compare { files, as_json })
}

/// Runs `rtlat compare ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let (files, as_json) = match parse(args) {
        Ok(Parsed::Help) => {
            outln!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Compare { files, as_json }) => (files, as_json),
        Err(error) => {
            errln!("rtlat compare: {error}");
            return exit_status::code(exit_status::of(&error));
        }
    };
    let mut runs = Vec::with_capacity(files.len());
    let mut failed = false;
    for file in &files {
        match rtlat_formats::read_file(Path::new(file)) {
            Ok(run) => runs.push(run),
            Err(e) => {
                errln!("rtlat compare: {file}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        return exit_status::code(exit_status::BAD_INPUT);
    }
    let comparison = report::compare(runs);
    let text = if as_json {
        json::render(&comparison)
    } else {
        table::render(&comparison)
    };
    out!("{text}");
    ExitCode::SUCCESS
}
