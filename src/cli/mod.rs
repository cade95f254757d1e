//! The `rtlat` command line, one folder per subcommand.

pub mod atomic_file;
pub mod audit;
pub mod compare;
pub mod cpufreq;
pub mod irq;
pub mod latency;
pub mod plot;
pub mod run;
pub mod servo;
pub mod threads;
pub mod tuning;
