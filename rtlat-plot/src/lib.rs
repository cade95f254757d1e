#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod curve;
mod draw;
mod error;
mod figure;
mod font;
mod input;
mod raster;
mod style;
mod text;
mod time_series;
mod title;

#[cfg(test)]
mod tests;

use plotters::prelude::*;
use rtlat_formats::Run;

use self::figure::Figure;

pub use error::PlotError;
pub use input::Input;
pub use time_series::Timeline;

/// Smallest and largest image side, pixels: the sizes a caller should accept (a default
/// size grown for a long legend stops at the largest).
pub const SIZE_LIMITS: (u32, u32) = (400, 8000);

/// What the image is made as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// Scalable vector graphics: text stays text, no font needed.
    Svg,
    /// A bitmap, text rendered with a system font.
    Png,
}

/// The per-second maxima of `run`, read from `text` (the file's content) where the format
/// keeps them in a part the readers do not model (rtlat JSON's `seconds`; for other formats
/// `text` is not read). Empty when the file has none; the error names the malformed part.
pub fn timelines(run: &Run, text: &str) -> Result<Vec<Timeline>, PlotError> {
    time_series::timelines(run, text).map_err(PlotError::Series)
}

/// The plot of `inputs` (the first is "before") as SVG or PNG bytes: `heading` replaces the
/// title's first line, `x_max_us` ends the latency axis there, `size` is width and height in
/// pixels (by default 1200x800, taller with a time series or a long legend).
pub fn image(
    inputs: &[Input],
    heading: Option<&str>,
    x_max_us: Option<f64>,
    kind: ImageKind,
    size: Option<(u32, u32)>,
) -> Result<Vec<u8>, PlotError> {
    let figure = figure::build(inputs, heading, x_max_us).map_err(PlotError::Figure)?;
    match kind {
        ImageKind::Svg => {
            let size = size.unwrap_or_else(|| draw::default_size(&figure, &text::Table));
            svg(&figure, size)
        }
        ImageKind::Png => {
            let fonts = font::find().map_err(PlotError::Font)?;
            let size = size.unwrap_or_else(|| {
                draw::default_size(
                    &figure,
                    &text::FontMeasure {
                        regular: &fonts.regular,
                        bold: &fonts.bold,
                    },
                )
            });
            raster::png(&figure, &fonts, size)
        }
    }
    .map_err(PlotError::Draw)
}

/// The figure as SVG text.
fn svg(figure: &Figure, size: (u32, u32)) -> Result<Vec<u8>, String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        draw::draw(&root, figure, &text::Table, 1.0)?;
    }
    Ok(text.into_bytes())
}
