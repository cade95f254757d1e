//! The JSON documents rtlat writes and reads, as serde types: one definition of each
//! document's keys, key order and value kinds, used by the writer that makes it and the
//! reader that takes it back, so that the two cannot drift apart.
//!
//! | document | types | written by | read by |
//! | --- | --- | --- | --- |
//! | cyclictest `--json` (rt-tests 2.x), rtlat `run --json` | [`cyclictest::Document`] with [`rtlat::ThreadExtra`] and [`rtlat::RunExtra`] | `rtlat run --json`, rtlat as `cyclictest --json` | [`crate`], `rtlat compare`, `rtlat plot` |
//! | jitterdebugger `results.json` | [`jitterdebugger::Document`] | jitterdebugger | [`crate`] |
//! | `rtlat compare --json` | [`compare::Document`] with [`explain::SpikeRecord`] | `rtlat compare` | scripts |
//! | `rtlat audit --json` | [`audit::Report`], [`audit::Suggestion`] | `rtlat audit` | scripts |
//! | `rtlat servo --json` | [`servo::Document`] | `rtlat servo` | scripts |
//! | `rtlat noise --json` (oslat's keys) | [`oslat::Document`] | `rtlat noise` | scripts |
//! | `rtlat hwnoise --json` | [`hwnoise::Document`] | `rtlat hwnoise` | scripts |
//! | `rtlat threads --json` | [`threads::Thread`] | `rtlat threads` | scripts |
//! | `rtlat verify --json` | [`verify::Report`] | `rtlat verify` | scripts, `rtlat monitor --profile-verify` |
//!
//! Readers take files written by other tools and other versions: every value they read is a
//! [`Field`], which keeps a value of the wrong kind as it was found instead of refusing the
//! whole document, so that a reader refuses a file only for a value it needs, and names that
//! value's key and what it should hold (see [`Field::get`]).

pub mod audit;
pub mod compare;
mod count;
pub mod cyclictest;
mod entries;
pub mod explain;
mod field;
pub mod hwnoise;
pub mod jitterdebugger;
pub mod oslat;
pub mod provenance;
pub mod rtlat;
pub mod servo;
#[cfg(test)]
mod tests;
pub mod threads;
pub mod verify;

pub use count::Count;
pub use entries::Entries;
pub use field::{Expected, Field};
pub(crate) use field::{OBJECT, bad_value, objects};
