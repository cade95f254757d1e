#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod cmdline;
pub mod facts;
pub mod noise;
#[cfg(feature = "profile")]
pub mod profile;
pub mod tune;

pub use facts::{FactError, FactResultExt, Facts};
pub use tune::TuneError;
