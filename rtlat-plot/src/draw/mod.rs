//! Draws a [`Figure`] with plotters on any backend (SVG, or the PNG's bitmap): the title on
//! top, the histogram panel, the time panel where there is one, the parts panel where a file
//! has wake-ups in the timerlat tracer's parts, the legend at the bottom (outside the
//! panels, so that it never hides a curve).
//!
//! Sizes are in design pixels multiplied by `scale` (the PNG is drawn at twice its size and
//! reduced, which smooths lines and text).

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

mod heading;
mod histogram_panel;
mod legend;
mod max_markers;
mod parts_panel;
mod spike_marks;
mod ticks;
mod time_panel;

use super::figure::{Entry, Figure};
use super::text::Measure;
use crate::SIZE_LIMITS;

/// The font family plotters names in the SVG; the PNG's backend draws every family with the
/// font it found.
pub(super) const FAMILY: &str = "sans-serif";
/// The margin around everything, design pixels.
pub(super) const MARGIN: f64 = 16.0;
/// Share of the panels' height the histogram gets when there is a time panel.
const HISTOGRAM_SHARE: f64 = 0.63;

/// Default width, pixels.
const DEFAULT_WIDTH: u32 = 1200;
/// The panels' height that the default size keeps at least, whatever the title and legend
/// take: (histogram only, time series only, both).
const PANELS_HEIGHT: (f64, f64, f64) = (560.0, 420.0, 900.0);

/// The default size: 1200 × 800 pixels (1150 with a time panel, 700 with that alone), taller
/// when the title and legend need it (many threads, many files).
pub fn default_size(figure: &Figure, measure: &dyn Measure) -> (u32, u32) {
    let (base, panels) = match (figure.histogram.is_some(), figure.time.is_some()) {
        (true, true) => (1150, PANELS_HEIGHT.2),
        (false, true) => (700, PANELS_HEIGHT.1),
        _ => (800, PANELS_HEIGHT.0),
    };
    let width = f64::from(DEFAULT_WIDTH);
    let frame = heading::bottom(figure, measure, width)
        + PANELS_GAPS
        + legend::layout(figure, measure, width).height
        + parts_panel::height(figure)
        + MARGIN;
    let needed = (frame + panels).ceil() as u32;
    (DEFAULT_WIDTH, base.max(needed).min(SIZE_LIMITS.1))
}

/// Space above and below the panels, design pixels.
const PANELS_GAPS: f64 = 14.0;

/// Lengths in design pixels turned into backend pixels.
#[derive(Clone, Copy)]
pub(super) struct Scale(f64);

impl Scale {
    pub(super) fn px(self, v: f64) -> i32 {
        (v * self.0).round() as i32
    }
    pub(super) fn upx(self, v: f64) -> u32 {
        self.px(v).max(1) as u32
    }
    /// A text style of `em` design pixels (plotters' SVG writes `font-size` as size / 1.24).
    pub(super) fn font(self, em: f64) -> TextStyle<'static> {
        (FAMILY, em * self.0 * 1.24).into_font().color(&BLACK)
    }
    /// The same in bold.
    pub(super) fn bold(self, em: f64) -> TextStyle<'static> {
        (FAMILY, em * self.0 * 1.24, FontStyle::Bold)
            .into_font()
            .color(&BLACK)
    }
}

/// Draws `figure` on `root`; `measure` sizes the texts as the backend will draw them.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &Figure,
    measure: &dyn Measure,
    scale: f64,
) -> Result<(), String> {
    let s = Scale(scale);
    let (width_px, height_px) = root.dim_in_pixel();
    let width = f64::from(width_px) / scale;
    let height = f64::from(height_px) / scale;
    root.fill(&WHITE).map_err(|e| e.to_string())?;

    let title_bottom = heading::draw(root, figure, measure, s, width)?;
    let legend = legend::layout(figure, measure, width);
    let legend_top = height - MARGIN - legend.height;
    legend::draw(root, figure, &legend, s, legend_top)?;

    let panels_top = title_bottom + 6.0;
    let panels_height = legend_top - (PANELS_GAPS - 6.0) - panels_top;
    let parts_height = parts_panel::height(figure);
    if panels_height - parts_height < 150.0 {
        return Err(format!(
            "{}x{} is too small for the title and a legend of {} entries: give a larger --size",
            width_px as f64 / scale,
            height_px as f64 / scale,
            figure.entries.len()
        ));
    }
    // The parts panel (rtlat run --timerlat --explain files) under the others.
    if parts_height > 0.0 {
        let parts = root.clone().shrink(
            (0, s.px(panels_top + panels_height - parts_height)),
            (width_px, s.upx(parts_height)),
        );
        parts_panel::draw(&parts, figure, measure, s, width)?;
    }
    let panels_height = panels_height - parts_height;
    let area = root
        .clone()
        .shrink((0, s.px(panels_top)), (width_px, s.upx(panels_height)));
    match (figure.histogram, figure.time) {
        (Some(h), Some(t)) => {
            let (upper, lower) = area.split_vertically(s.px(panels_height * HISTOGRAM_SHARE));
            histogram_panel::draw(root, &upper, figure, &h, measure, s)?;
            time_panel::draw(&lower, figure, &t, measure, s)?;
        }
        (Some(h), None) => histogram_panel::draw(root, &area, figure, &h, measure, s)?,
        (None, Some(t)) => time_panel::draw(&area, figure, &t, measure, s)?,
        (None, None) => {}
    }
    root.present().map_err(|e| e.to_string())
}

/// Draws a polyline in `entry`'s colour and pattern, `width` design pixels wide.
pub(super) fn stroke<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    points: Vec<CT::From>,
    entry: &Entry,
    s: Scale,
    width: f64,
) -> Result<(), String>
where
    CT::From: Clone,
{
    let (r, g, b) = entry.colour;
    let style = RGBColor(r, g, b).stroke_width(s.upx(width));
    let result = match entry.dash {
        None => area.draw(&PathElement::new(points, style)),
        Some((on, off)) => area.draw(&DashedPathElement::new(
            points,
            s.upx(f64::from(on)),
            s.upx(f64::from(off)),
            style,
        )),
    };
    result.map_err(|e| e.to_string())
}

/// The grid's bold and light lines and the axes.
pub(super) fn mesh_colours() -> (RGBColor, RGBColor, RGBColor) {
    (
        RGBColor(205, 205, 205),
        RGBColor(236, 236, 236),
        RGBColor(90, 90, 90),
    )
}
