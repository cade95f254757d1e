//! cyclictest's measuring threads (`rtlat run`, rtlat as `cyclictest`): one per CPU or as
//! asked, each on its own interval, recording every latency into a log-linear histogram and,
//! as asked, cyclictest's fixed-width one, a list of spikes, the `-v` ring and per-second
//! windows; the first thread to finish its loops, break or fail ends the run.

pub mod report;
pub mod thread;

pub use report::{LinearReport, RUN_LAYOUT, RunHistogram, ThreadReport, new_run_histogram};
pub use thread::{MeasurePlan, RunShared, run_thread};
