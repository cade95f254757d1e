//! Everything `rtlat run` prints or writes: cyclictest's text formats and its JSON file.

pub mod cyclictest;
pub mod json;
