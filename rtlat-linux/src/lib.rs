#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod any_thread;
pub mod clock;
pub mod cpuset;
pub mod dma_latency;
pub mod errno;
pub mod ftrace;
pub mod kernel_file;
pub mod memory;
pub mod msr;
pub mod named_pipe;
pub mod privileges;
pub mod process_cpus;
pub mod signals;
mod sys;
pub mod thread;
pub mod timer;

#[cfg(test)]
mod test_support;

pub use clock::{ClockError, ClockId, NANOS_PER_SEC, PosixClock, UnknownClock, utc_offset_seconds};
pub use dma_latency::{DMA_LATENCY_PATH, DmaLatencyError, DmaLatencyGuard, read_dma_latency};
pub use errno::{Errno, OsError};
pub use ftrace::{Ftrace, FtraceError, find_tracefs};
pub use memory::{
    DEFAULT_STACK_PREFAULT, MemoryError, PageFaults, lock_memory, prefault_stack, stack_room,
    unlock_memory,
};
pub use privileges::{RtCredentials, RtPermission, check_rt_permission};
pub use process_cpus::{ProcessCpus, ProcessCpusError};
pub use signals::SignalError;
pub use thread::{
    Policy, Scheduling, ThreadError, ThreadSetup, UnknownPolicy, affinity, gettid, nice, scheduler,
    scheduler_of, set_affinity, set_nice, set_scheduler,
};
pub use timer::{
    AbsoluteSleep, AnyTimer, NanoSleep, PosixTimer, RelativeSleep, SleepError, TimerCall,
    TimerError, TimerFd, TimerKind, TimerlatFd, UnknownTimer, default_timer_signal,
};
