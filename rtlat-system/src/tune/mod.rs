//! The write side of the tuning commands (`rtlat threads`, `rtlat irq`, `rtlat cpufreq`,
//! `rtlat run --governor`): what [`crate::facts`] reads, changed.
//!
//! Everything is a [`Change`] (a setting, its old value, its new value), planned first and
//! printed (a dry run stops there), then made all or nothing ([`transaction::apply`]), saved
//! to a [`RestoreFile`] that undoes it, or held for a run by a [`Hold`] that undoes it on drop.
//!
//! | idea | module |
//! |---|---|
//! | what can go wrong | [`error`] |
//! | what a change sets | [`target`] |
//! | one setting, before and after | [`change`] |
//! | writing a kernel file, naming the privilege it needs | [`file`](mod@file) |
//! | another thread's scheduling, nice value, affinity, read and written | [`thread_setting`] |
//! | a thread id still naming the same thread | [`same_thread`] |
//! | changes planned for a thread | [`thread`] |
//! | whether this user may change a thread, and change it back | [`permission`] |
//! | IRQs away from CPUs | [`irq`] |
//! | governors and fixed frequencies | [`cpufreq`], [`frequency`] |
//! | idle states limited for a run | [`cpuidle`] |
//! | all or nothing | [`transaction`] |
//! | held for a run | [`hold`] |
//! | saved and undone later | [`restore`] |
//!
//! Files are written under a root path, as facts are read, so the tests change copies of
//! captured machine trees (`tests/data/`), not the machine they run on. A change names what it
//! sets, never a path, and kernel files are opened through no link the kernel did not make
//! ([`file`](mod@file)): a restore file cannot choose where rtlat writes.

pub mod change;
pub mod cpufreq;
pub mod cpuidle;
pub mod error;
pub mod file;
pub mod frequency;
pub mod hold;
pub mod irq;
pub mod permission;
pub mod restore;
pub mod same_thread;
pub mod target;
pub mod thread;
pub mod thread_setting;
pub mod transaction;

pub use change::{Change, CpufreqSetting, Target, ThreadSetting};
pub use error::TuneError;
pub use frequency::{format_khz, parse_frequency};
pub use hold::Hold;
pub use irq::{IrqMove, IrqPlan};
pub use restore::{Machine, RestoreFile, Restored, Undone};
pub use thread::{SchedRequest, SchedValue, ThreadRef};
pub use transaction::{Applied, Failed};
