#![doc = include_str!("../README.md")]
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod clock;
pub mod cycle;
pub mod delay;
mod div64;
mod divider;
mod error;
mod extend;
pub mod gaps;
pub mod histogram;
pub mod jitter;
pub mod live;
pub mod report;
pub mod ring;
mod seqlock;
#[cfg(any(test, feature = "sim"))]
pub mod sim;
pub mod stats;
pub mod windows;
mod word;

#[cfg(feature = "defmt")]
mod defmt;
#[cfg(feature = "serde")]
mod serde;

pub use clock::{Clock, TickScale, Timer};
pub use cycle::{
    BackToBack, CycleConfig, CycleEngine, Missed, Outcome, Periodic, Run, Sample, Skip,
};
pub use divider::Divider;
pub use error::Error;
pub use extend::CounterExtender;
pub use histogram::{
    Bucket, Counter, DEFAULT_LOG_BUCKETS, DEFAULT_PRECISION, DefaultHistogram, Histogram, Layout,
    Linear, LinearHistogram, LogHistogram, LogLinear, SmallHistogram, Storage,
    SymmetricLogHistogram, SymmetricLogLinear,
};
pub use jitter::{
    JitterMonitor, JitterReport, JitterSnapshot, SharedJitterMonitor, SharedJitterMonitor32, Tick,
};
pub use stats::{Record, Stats, Summary};
