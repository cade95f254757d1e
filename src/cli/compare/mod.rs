//! `rtlat compare A B [C …] [--json]`: latency results of rtlat, cyclictest, jitterdebugger
//! and Xenomai `latency` side by side, per thread or CPU, each file against the first.
//!
//! Formats are detected from the content (see [`rtlat::formats`]); a file that is missing,
//! unreadable or not a result ends the command with status 2 and one line naming the file and
//! what was wrong.

mod json;
mod report;
mod table;

use std::path::Path;
use std::process::ExitCode;

use rtlat::formats;

const USAGE: &str = "Usage: rtlat compare A B [C …] [--json]

Compares latency results per thread or CPU: cycles, min, avg, p50, p99, p99.9, max and
overruns, each file against the first (A), and gives each file's worst case against A's.

Files are detected from their content: rtlat or cyclictest --json files, cyclictest -h/-H
histogram output, jitterdebugger results.json, Xenomai latency output and its -g gnuplot file.
Percentiles come from the histogram each file carries (n/a where it has none).

Options:
  --json      print the comparison as JSON (values in ns)
  -h, --help  this help

Exit status: 0, or 2 when a file is missing or not a latency result.";

/// Runs `rtlat compare ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let mut as_json = false;
    let mut files: Vec<&str> = Vec::new();
    let mut options_done = false;
    for arg in args {
        match arg.as_str() {
            _ if options_done => files.push(arg),
            "--" => options_done = true,
            "--json" => as_json = true,
            "-h" | "--help" => {
                outln!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            option if option.starts_with('-') && option.len() > 1 => {
                errln!("rtlat compare: unknown option '{option}'; accepted: --json, --help");
                return ExitCode::from(2);
            }
            file => files.push(file),
        }
    }
    if files.len() < 2 {
        errln!(
            "rtlat compare: needs at least two result files (got {}); usage: rtlat compare A B \
             [C …] [--json]",
            files.len()
        );
        return ExitCode::from(2);
    }
    let mut runs = Vec::with_capacity(files.len());
    let mut failed = false;
    for file in &files {
        match formats::read_file(Path::new(file)) {
            Ok(run) => runs.push(run),
            Err(e) => {
                errln!("rtlat compare: {file}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        return ExitCode::from(2);
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
