//! The title: the heading in bold, centred, then each file's settings line (wrapped once,
//! then shortened).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{MARGIN, Scale};
use crate::figure::Figure;
use crate::style::size;
use crate::text::{Measure, fit_with, wrap};

/// The settings lines as drawn: each wrapped once, then shortened.
fn detail_lines(figure: &Figure, measure: &dyn Measure, width: f64) -> Vec<String> {
    let room = width - 2.0 * MARGIN;
    figure
        .title
        .details
        .iter()
        .flat_map(|d| wrap(measure, d, size::DETAIL, room, 2))
        .collect()
}

/// Where the title ends, design pixels from the top.
pub fn bottom(figure: &Figure, measure: &dyn Measure, width: f64) -> f64 {
    MARGIN
        + size::HEADING * 1.45
        + detail_lines(figure, measure, width).len() as f64 * size::DETAIL * 1.45
}

/// Draws the heading and the settings lines; returns the bottom, design pixels.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &Figure,
    measure: &dyn Measure,
    s: Scale,
    width: f64,
) -> Result<f64, String> {
    let room = width - 2.0 * MARGIN;
    let centre = s.px(width / 2.0);
    let mut y = MARGIN;
    let heading = fit_with(
        |t| measure.bold_width(t, size::HEADING),
        &figure.title.heading,
        room,
    );
    let style = s.bold(size::HEADING).pos(Pos::new(HPos::Center, VPos::Top));
    root.draw(&Text::new(heading, (centre, s.px(y)), style))
        .map_err(|e| e.to_string())?;
    y += size::HEADING * 1.45;
    let style = s
        .font(size::DETAIL)
        .color(&RGBColor(60, 60, 60))
        .pos(Pos::new(HPos::Center, VPos::Top));
    for line in detail_lines(figure, measure, width) {
        root.draw(&Text::new(line, (centre, s.px(y)), style.clone()))
            .map_err(|e| e.to_string())?;
        y += size::DETAIL * 1.45;
    }
    Ok(y)
}
