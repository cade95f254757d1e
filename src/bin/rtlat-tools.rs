//! `rtlat-tools`: the commands of `rtlat` that do not measure (audit, threads, irq, cpufreq,
//! compare), a binary of its own so that their code (the audit's checks, the readers of
//! result files, regular expressions) is not part of the binary that `rtlat run -m` locks
//! into memory. `rtlat audit ...` execs `rtlat-tools` with the same arguments (argv\[0\]
//! included); `rtlat-tools audit ...` works as well.

// out!, outln!, err!, errln!: printing that never panics (src/stdio.rs).
#[macro_use]
extern crate rtlat;

use std::process::ExitCode;

use rtlat::cli;

fn main() -> ExitCode {
    // Everything the command changed is restored by the time it returns: a reader that went
    // away ends the process by SIGPIPE then, as it ends cyclictest.
    rtlat::args::main(&rtlat::args::name(), command)
}

/// The command `argv[1]` names, run to its exit status.
fn command(args: Vec<String>) -> ExitCode {
    match args.get(1).map(String::as_str) {
        Some("audit") => cli::audit::main(&args[2..]),
        Some("threads") => cli::threads::main(&args[2..]),
        Some("irq") => cli::irq::main(&args[2..]),
        Some("cpufreq") => cli::cpufreq::main(&args[2..]),
        Some("compare") => cli::compare::main(&args[2..]),
        Some("tune") => cli::tune::main(&args[2..]),
        Some("verify") => cli::verify::main(&args[2..]),
        _ => {
            errln!(
                "rtlat-tools: runs rtlat's audit, threads, irq, cpufreq, compare, tune and verify (rtlat COMMAND ... execs it); rtlat --help lists every command"
            );
            ExitCode::from(2)
        }
    }
}
