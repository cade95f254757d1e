//! rtlat's library side: what the CLI, the fuzz targets and other tools share (the readers of
//! result files are the `rtlat-formats` crate).

#![deny(missing_docs)]

// The commands (src/cli) name this crate `rtlat::…` as the binaries do.
extern crate self as rtlat;

// out!, outln!, err!, errln! for every module below.
#[macro_use]
pub mod stdio;

pub mod allocations;
pub mod args;
pub mod atomic_file;
pub mod exit_status;
pub mod output;

/// The command line of every command (the `rtlat-options` crate).
pub use rtlat_options as options;
/// Option values: C-style numbers and durations (`rtlat-options`).
pub use rtlat_options::values;

/// The commands, one folder per subcommand, run by the binaries' `main`s: `rtlat`
/// (src/main.rs) runs the measuring ones, `rtlat-tools` (src/bin/rtlat-tools.rs) the rest.
/// Not a library API.
#[doc(hidden)]
#[allow(missing_docs)]
pub mod cli;

// The unit tests of the commands count allocations as the `rtlat` binary does.
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: allocations::CountingAllocator = allocations::CountingAllocator;
