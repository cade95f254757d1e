//! The `rtlat` command line, one folder per subcommand.

pub mod atomic_file;
pub mod audit;
pub mod cpufreq;
pub mod irq;
pub mod run;
pub mod threads;
