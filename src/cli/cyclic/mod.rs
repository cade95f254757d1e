//! The cyclictest-style measurement that `rtlat run` (and the `cyclictest` name) and
//! `rtlat monitor` share: its options and their plan, its measuring threads, what it holds on
//! the measured CPUs (governor, idle states), the `-F` statistics pipe and the `--explain`
//! sampler. The fronts (`cli/run`, `cli/monitor`) hold only their own output and main thread.

// --explain: the evidence sampler beside the threads, and its verdicts.
pub mod explain;
// -F: the statistics pipe.
pub mod fifo;
// --governor, --profile: the governor and frequency held for the run.
pub mod governor;
// --deepest-idle-state N: idle states limited for the run.
pub mod idle_states;
// The measuring threads' plans from the options, run through rtlat-engine.
pub mod measure;
pub mod options;
// --smi under the name cyclictest: where cyclictest cannot read the counter either.
pub mod smi;

/// The option-value parsers live in the library (`rtlat::values`), where the fuzz targets reach them.
pub use rtlat::values;
