//! `rtlat run` and rtlat invoked as `cyclictest`.

pub mod execute;
pub mod explain;
pub mod fifo;
// --deepest-idle-state N: idle states limited for the run.
pub mod idle_states;
// The main thread while the threads measure: the live lines, -v, SIGUSR1/SIGUSR2.
pub mod live;
// The measuring threads' plan from the options, run through rtlat-engine.
pub mod measure;
pub mod options;
pub mod output;
// cyclictest's /dev/shm status file, which SIGUSR2 fills.
pub mod snapshot;
pub mod usage;
/// The option-value parsers live in the library (`rtlat::values`), where the fuzz targets reach them.
pub use rtlat::values;
