//! One result file to plot, as read: its run, its time series and the name its legend
//! entries carry.

use rtlat_formats::Run;

use crate::time_series::Timeline;

/// One result file.
#[derive(Debug, Clone)]
pub struct Input {
    /// The path as given (named in errors about the file).
    pub path: String,
    /// The name legend entries start with: the file's name, or its path where two files
    /// share a name.
    pub name: String,
    /// What the file holds.
    pub run: Run,
    /// Per-second maxima, where the file has them ([`timelines`](crate::timelines)).
    pub timelines: Vec<Timeline>,
}
