//! The `rtlat` command line, one folder per subcommand.

pub mod atomic_file;
pub mod run;
