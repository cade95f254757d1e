#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod clock;
pub mod cmdline;
pub mod cpuset;
pub mod dma_latency;
pub mod error;
pub mod facts;
pub mod ftrace;
pub mod memory;
pub mod named_pipe;
pub mod privileges;
pub mod signals;
mod sys;
pub mod thread;
pub mod timer;
pub mod tune;

#[cfg(test)]
mod test_support;

pub use clock::{ClockId, NANOS_PER_SEC, PosixClock, utc_offset_seconds};
pub use dma_latency::{DMA_LATENCY_PATH, DmaLatencyGuard, read_dma_latency};
pub use error::{Errno, Error};
pub use ftrace::{Ftrace, find_tracefs};
pub use memory::{
    DEFAULT_STACK_PREFAULT, PageFaults, lock_memory, prefault_stack, stack_room, unlock_memory,
};
pub use privileges::{RtCredentials, RtPermission, check_rt_permission};
pub use thread::{
    Policy, Scheduling, ThreadSetup, affinity, gettid, nice, scheduler, scheduler_of, set_affinity,
    set_nice, set_scheduler,
};
pub use timer::{
    AbsoluteSleep, AnyTimer, NanoSleep, PosixTimer, RelativeSleep, TimerFd, TimerKind,
    default_timer_signal,
};
