//! Colours, line patterns and text sizes of the plot.

/// Tableau 10: ten colours that stay apart on white and for most colour-blind readers; each
/// curve takes the next (they repeat after ten).
pub const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// Line patterns, one per file (they repeat after four): `None` solid, else dash and gap
/// lengths in pixels.
pub const DASHES: [Option<(u32, u32)>; 4] = [None, Some((9, 5)), Some((3, 3)), Some((16, 4))];

/// Text sizes (the em), pixels at scale 1.
pub mod size {
    /// The title's first line.
    pub const HEADING: f64 = 19.0;
    /// The title's other lines.
    pub const DETAIL: f64 = 13.0;
    /// Axis descriptions.
    pub const AXIS: f64 = 14.0;
    /// Tick labels.
    pub const TICK: f64 = 12.5;
    /// Legend entries and max labels.
    pub const LEGEND: f64 = 13.0;
}

/// The colour of the `index`th curve.
pub fn colour(index: usize) -> (u8, u8, u8) {
    PALETTE[index % PALETTE.len()]
}

/// The pattern of the `file`th file's lines.
pub fn dash(file: usize) -> Option<(u32, u32)> {
    DASHES[file % DASHES.len()]
}
