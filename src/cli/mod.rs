//! The `rtlat` command line, one folder per subcommand.

pub mod audit;
pub mod compare;
pub mod cpufreq;
pub mod irq;
pub mod latency;
pub mod run;
pub mod servo;
pub mod threads;
pub mod tuning;
