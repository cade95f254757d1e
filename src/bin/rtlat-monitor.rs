//! `rtlat-monitor`: `rtlat monitor`, the Prometheus exporter, a binary of its own so that its
//! code (the HTTP server, the exposition) is not part of the binary that `rtlat run -m`
//! locks into memory. `rtlat monitor ...` execs it with the same arguments (argv\[0\]
//! included); `rtlat-monitor monitor ...` works as well.

// out!, outln!, err!, errln!: printing that never panics (src/stdio.rs).
#[macro_use]
extern crate rtlat;

use rtlat::{allocations, cli};

// The measuring threads count their allocations as in `rtlat` (none while measuring).
#[global_allocator]
static ALLOCATOR: allocations::CountingAllocator = allocations::CountingAllocator;

use std::process::ExitCode;

fn main() -> ExitCode {
    rtlat::args::main(&rtlat::args::name(), command)
}

/// `monitor ARGS`, run to its exit status.
fn command(args: Vec<String>) -> ExitCode {
    match args.get(1).map(String::as_str) {
        Some("monitor") => cli::monitor::main(&args[2..]),
        _ => {
            errln!(
                "rtlat-monitor: runs rtlat's monitor (rtlat monitor ... execs it); rtlat --help lists every command"
            );
            rtlat::exit_status::code(rtlat::exit_status::BAD_INPUT)
        }
    }
}
