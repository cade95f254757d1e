//! The `rtlat` command line. Invoked as `cyclictest` (a symlink or copy), it is a drop-in
//! for cyclictest: same options, same output.

// out!, outln!, err!, errln!: printing that never panics (src/stdio.rs).
#[macro_use]
extern crate rtlat;

mod allocations;
mod cli;

#[global_allocator]
static ALLOCATOR: allocations::CountingAllocator = allocations::CountingAllocator;

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = command();
    // Everything the command changed is restored by now: a reader that went away ends the
    // process by SIGPIPE here, as it ends cyclictest.
    let name = rtlat::args::invoked_as().unwrap_or_else(|| "rtlat".into());
    rtlat::stdio::exit(&name, code)
}

/// The command `argv` names, run to its exit status.
fn command() -> ExitCode {
    let args = match rtlat::args::utf8(std::env::args_os()) {
        Ok(args) => args,
        Err(message) => {
            let name = rtlat::args::invoked_as().unwrap_or_else(|| "rtlat".into());
            errln!("{name}: {message}");
            return ExitCode::from(rtlat::exit_status::BAD_INPUT);
        }
    };
    let invoked_as = args
        .first()
        .and_then(|a| std::path::Path::new(a).file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("rtlat");
    if invoked_as == "cyclictest" {
        return cli::run::execute::main(&args[1..], true);
    }
    if invoked_as == "latency" {
        return cli::latency::main(&args[1..]);
    }
    match args.get(1).map(String::as_str) {
        Some("run") => cli::run::execute::main(&args[2..], false),
        Some("audit") => cli::audit::main(&args[2..]),
        Some("threads") => cli::threads::main(&args[2..]),
        Some("irq") => cli::irq::main(&args[2..]),
        Some("cpufreq") => cli::cpufreq::main(&args[2..]),
        Some("compare") => cli::compare::main(&args[2..]),
        Some("plot") => plot(&args[2..]),
        Some("latency") => cli::latency::main(&args[2..]),
        Some("servo") => cli::servo::main(&args[2..]),
        Some("--version" | "-V") => {
            outln!("rtlat {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help" | "-h" | "help") | None => {
            outln!(
                "rtlat {}: real-time latency toolkit\n\n\
                 Usage: rtlat run [OPTIONS]      measure wake-up latency (cyclictest's options)\n\
                 \x20      rtlat audit [OPTIONS]    check the machine's real-time tuning\n\
                 \x20      rtlat threads [OPTIONS]  list or change threads' policy, priority, CPUs\n\
                 \x20      rtlat irq [OPTIONS]      move IRQs away from CPUs (dry run unless --apply)\n\
                 \x20      rtlat cpufreq [OPTIONS]  set CPU frequency governors (dry run unless --apply)\n\
                 \x20      rtlat compare A B [...]  compare result files (rtlat, cyclictest, Xenomai, ...)\n\
                 \x20      rtlat plot FILES -o OUT  OSADL-style latency plots (SVG or PNG)\n\
                 \x20      rtlat latency [OPTIONS]  Xenomai's latency test (also as argv[0] latency)\n\
                 \x20      rtlat servo [OPTIONS]    LinuxCNC's latency-test: base and servo thread jitter\n\
                 \x20      rtlat --version\n\n\
                 Each command's --help tells more.\n\n{}",
                env!("CARGO_PKG_VERSION"),
                rtlat::exit_status::HELP
            );
            if args.len() < 2 {
                rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
            } else {
                ExitCode::SUCCESS
            }
        }
        Some(other) => {
            errln!(
                "rtlat: unknown command '{other}'; accepted: run, audit, threads, irq, cpufreq, compare, plot, latency, servo, --version, --help"
            );
            rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
        }
    }
}

/// `rtlat plot` runs the `rtlat-plot` binary installed beside this one: the plotting code
/// (fonts, rasteriser, libm) stays out of the binary that `rtlat run -m` locks into memory.
fn plot(args: &[String]) -> ExitCode {
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("rtlat-plot")));
    let Some(program) = sibling.filter(|p| p.is_file()) else {
        errln!(
            "rtlat plot: the rtlat-plot binary is not beside rtlat; build or install both (cargo build builds both)"
        );
        return rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT);
    };
    match std::process::Command::new(&program).args(args).status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(code.clamp(0, 255) as u8),
            None => {
                use std::os::unix::process::ExitStatusExt;
                let signal = status.signal().unwrap_or(0);
                if signal == libc::SIGPIPE {
                    // rtlat-plot's reader went away (`rtlat plot --help | head -1`): so did
                    // ours, and this process ends the same way.
                    rtlat_linux::signals::die_of_sigpipe();
                }
                let why = if signal == libc::SIGKILL {
                    " (SIGKILL: out of memory, or killed)"
                } else {
                    ""
                };
                errln!(
                    "rtlat plot: {} was killed by signal {signal}{why}; no plot was written",
                    program.display()
                );
                ExitCode::from(rtlat::exit_status::NOT_WRITTEN)
            }
        },
        Err(e) => {
            errln!("rtlat plot: cannot run {}: {e}", program.display());
            rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
        }
    }
}
