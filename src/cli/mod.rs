//! The `rtlat` command line, one folder per subcommand. This list is the measuring binary's
//! (`rtlat`, src/main.rs); `rtlat-tools` (src/bin/rtlat-tools.rs) lists the folders of the
//! commands it runs.

pub mod latency;
pub mod run;
pub mod servo;

// The measuring commands use parts of these (`run --profile` and `--governor` hold a
// governor); their commands run in rtlat-tools, so the rest of each is unused here.
#[allow(dead_code)]
pub mod cpufreq;
#[allow(dead_code)]
pub mod tuning;
