//! `rtlat run` and rtlat invoked as `cyclictest`: the measurement of [`super::cyclic`], its
//! live lines, its reports (cyclictest's text, rtlat's JSON) and its usage.

pub mod execute;
// The end of a run: its reports and exit status.
pub mod finish;
// The main thread while the threads measure: the live lines, -v, SIGUSR1/SIGUSR2.
pub mod live;
// --load: what runs beside the run (stress-ng: rtlat's built-in load).
pub mod load;
pub mod output;
// From the command line to the plan, before anything changes.
pub mod prepare;
// cyclictest's /dev/shm status file, which SIGUSR2 fills.
pub mod snapshot;
// --timerlat: the kernel's timerlat tracer beside (or waking) the measuring threads.
pub mod timerlat;
pub mod usage;
