//! The `rtlat` command line. Invoked as `cyclictest` (a symlink or copy), it is a drop-in
//! for cyclictest: same options, same output.
//!
//! This is the measuring binary: `run` (and `cyclictest`), `latency` and `servo` run in this
//! process, which `-m` locks into memory whole. The other commands run in sibling binaries
//! installed beside it, so that their code is not locked with it: `rtlat-tools` (audit,
//! threads, irq, cpufreq, compare; this process execs it) and `rtlat-plot` (plot).

// out!, outln!, err!, errln!: printing that never panics (src/stdio.rs).
#[macro_use]
extern crate rtlat;

use rtlat::{allocations, cli};

#[global_allocator]
static ALLOCATOR: allocations::CountingAllocator = allocations::CountingAllocator;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Everything the command changed is restored by the time it returns: a reader that went
    // away ends the process by SIGPIPE then, as it ends cyclictest.
    rtlat::args::main(&rtlat::args::name(), command)
}

/// The command `argv` names, run to its exit status.
fn command(args: Vec<String>) -> ExitCode {
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
        Some(
            command @ ("audit" | "threads" | "irq" | "cpufreq" | "compare" | "tune" | "verify"),
        ) => sibling(command, "rtlat-tools"),
        Some("monitor") => sibling("monitor", "rtlat-monitor"),
        Some("plot") => plot(&args[2..]),
        Some("latency") => cli::latency::main(&args[2..]),
        Some("servo") => cli::servo::main(&args[2..]),
        Some("noise") => cli::noise::main(&args[2..]),
        Some("hwnoise") => cli::hwnoise::main(&args[2..]),
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
                 \x20      rtlat tune apply PROFILE set a tuning profile (dry run unless --apply; --persist)\n\
                 \x20      rtlat verify PROFILE     check a tuning profile against the machine (drift: status 1)\n\
                 \x20      rtlat plot FILES -o OUT  OSADL-style latency plots (SVG or PNG)\n\
                 \x20      rtlat latency [OPTIONS]  Xenomai's latency test (also as argv[0] latency)\n\
                 \x20      rtlat servo [OPTIONS]    LinuxCNC's latency-test: base and servo thread jitter\n\
                 \x20      rtlat noise [OPTIONS]    busy-poll OS noise per CPU (oslat's output)\n\
                 \x20      rtlat hwnoise [OPTIONS]  hardware and firmware noise, SMIs (hwlatdetect's output)\n\
                 \x20      rtlat monitor [OPTIONS]  measure for days, serve the latency to Prometheus (/metrics)\n\
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
                "rtlat: unknown command '{other}'; accepted: run, audit, threads, irq, cpufreq, compare, tune, verify, plot, latency, servo, noise, hwnoise, monitor, --version, --help"
            );
            rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
        }
    }
}

/// `rtlat audit|threads|irq|cpufreq|compare ...` are `rtlat-tools`' commands, `rtlat monitor
/// ...` is `rtlat-monitor`'s: this process becomes that binary with the same arguments
/// (argv\[0\] included), so the same PID, the same messages, signals and exit statuses.
/// Returns only when the exec fails.
fn sibling(command: &str, binary: &str) -> ExitCode {
    let Some(program) = rtlat::args::sibling(binary) else {
        errln!(
            "rtlat {command}: the {binary} binary is not beside rtlat; install both (cargo build builds both)"
        );
        return ExitCode::from(2);
    };
    use std::os::unix::process::CommandExt as _;
    let mut args = std::env::args_os();
    let error = std::process::Command::new(&program)
        .arg0(args.next().unwrap_or_else(|| "rtlat".into()))
        .args(args)
        .exec();
    errln!("rtlat {command}: cannot run {}: {error}", program.display());
    ExitCode::from(2)
}

/// `rtlat plot` runs the `rtlat-plot` binary installed beside this one: the plotting code
/// (fonts, rasteriser, libm) stays out of the binary that `rtlat run -m` locks into memory.
/// A child, not an exec: a plot whose process is killed is reported (exit status 4).
fn plot(args: &[String]) -> ExitCode {
    let Some(program) = rtlat::args::sibling("rtlat-plot") else {
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
