#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod call;
mod clock;
mod delay;
mod error;
mod init;
mod periodic;
pub mod sys;
mod task;

pub use clock::AlchemyClock;
pub use error::Error;
pub use init::{CORE, Core, cobalt_core, init};
pub use periodic::PeriodicTimer;
pub use task::{JoinHandle, Task, TaskInfo, spawn};
