//! Why a plot could not be made.

use std::fmt;

/// Why a plot could not be made; each displays as one line for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlotError {
    /// A file's time series is malformed: the part named and what is wrong with it.
    Series(String),
    /// The files give nothing to draw, or the axis asked for cannot hold them.
    Figure(String),
    /// A PNG needs a font and none was found: what to install.
    Font(String),
    /// The image could not be drawn or encoded (too small for its legend, say).
    Draw(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Series(m) | Self::Figure(m) | Self::Font(m) | Self::Draw(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PlotError {}
