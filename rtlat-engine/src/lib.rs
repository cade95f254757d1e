#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod backend;
pub mod error;
pub mod latency;
pub mod measure;
pub mod poll;
pub mod rings;
pub mod run;
pub mod seconds;
pub mod servo;
pub mod session;
pub mod setup;
pub mod tap;
pub mod threads;
pub mod timers;
#[cfg(feature = "xenomai")]
pub mod xenomai;

pub use error::{MeasureError, OnThread, ThreadName};
pub use rtlat_core::live::{LiveFigures, LiveStatus};
pub use rtlat_core::windows::{SECOND_NS, Window};
