//! Helpers shared by the integration tests, one concern per file: the binaries under test,
//! running programs, temporary folders, CPUs, users, captured machines, cyclictest-style lines
//! compared by shape, and JSON.

#![allow(dead_code)] // Each test file uses its own subset.

pub mod xenomai;

mod binaries;
mod cpus;
mod files;
mod hog;
mod json;
mod lines;
mod machines;
mod process;
mod users;

pub use binaries::*;
pub use cpus::*;
pub use files::*;
pub use hog::*;
pub use json::*;
pub use lines::*;
pub use machines::*;
pub use process::*;
pub use users::*;
