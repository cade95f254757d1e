//! `--explain` of `rtlat run`, `rtlat servo` and `rtlat monitor` in one place: the evidence
//! beside the measuring threads ([`Evidence`]: rtlat-system's sampler on the CPUs no thread
//! measures, and the osnoise tracer where the kernel has it), started from plain data (the
//! measured CPUs, the threads' ids, the CPUs it may use), and the one text and JSON rendering
//! of a verdict ([`verdict`]). What a front watches is its own: run and monitor every spike
//! above a threshold (`cli::cyclic::explain`), servo each thread's worst run.

pub mod evidence;
pub mod verdict;

pub use evidence::{Evidence, TracerUse};
