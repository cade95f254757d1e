//! `rtlat run` and rtlat invoked as `cyclictest`.

pub mod execute;
pub mod getopt;
pub mod live;
pub mod measure;
pub mod options;
pub mod output;
pub mod report;
pub mod ring;
pub mod usage;
pub mod values;
