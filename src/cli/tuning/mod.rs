//! What `rtlat threads`, `rtlat irq` and `rtlat cpufreq` share: their option scanner, the
//! dry run / apply / save flow, and `--restore FILE`.

pub mod apply;
pub mod args;
pub mod restore;
