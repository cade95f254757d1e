//! The maxima marked on the histogram panel.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Scale, stroke};
use crate::figure::{Entry, FLOOR, Figure, HistogramAxes};
use crate::style::size;
use crate::text::Measure;

/// Rows of labels under the top of the plot; labels that find no room in them are left to
/// the legend, so that they never pile up over the curves.
const MAX_ROWS: usize = 4;

/// A dotted vertical line at each curve's maximum (and at those of series without a
/// histogram), and its value at the top of the plot (labels that would overlap go one row
/// lower, down to [`MAX_ROWS`]); a maximum past the end of the axis is written at the right
/// edge with an arrow.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &ChartContext<
        DB,
        Cartesian2d<RangedCoordf64, plotters::coord::combinators::LogCoord<f64>>,
    >,
    figure: &Figure,
    axes: &HistogramAxes,
    measure: &dyn Measure,
    s: Scale,
) -> Result<(), String> {
    let (x_pixels, y_pixels) = chart.plotting_area().get_pixel_range();
    let mut placed: Vec<Vec<(f64, f64)>> = Vec::new();
    let row_height = size::LEGEND * 1.45;
    let mut markers: Vec<(&Entry, i64)> = figure
        .entries
        .iter()
        .filter_map(|e| e.max_ns.map(|m| (e, m)))
        .collect();
    markers.sort_by_key(|(_, m)| std::cmp::Reverse(*m));
    let right_edge = f64::from(x_pixels.end) / s.0;
    // The lines first, then the labels over them all.
    for &(entry, max) in &markers {
        let x_us = max as f64 / 1000.0;
        if (axes.x_us.0..=axes.x_us.1).contains(&x_us) {
            let marker = Entry {
                dash: Some((2, 3)),
                ..entry.clone()
            };
            stroke(
                chart.plotting_area(),
                vec![(x_us, FLOOR), (x_us, axes.y_top)],
                &marker,
                s,
                1.0,
            )?;
        }
    }
    for (entry, max) in markers {
        let x_us = max as f64 / 1000.0;
        // Past the end of the axis (--x-max): the value at the right edge, with an arrow.
        let beyond = x_us > axes.x_us.1;
        if x_us < axes.x_us.0 {
            continue;
        }
        let label = match (&entry.max_text, beyond) {
            (Some(value), false) => format!("{} {value}", entry.label),
            (Some(value), true) => format!("{} {value} →", entry.label),
            (None, _) => continue,
        };
        let text_width = measure.width(&label, size::LEGEND) + 6.0;
        let x = if beyond {
            right_edge
        } else {
            f64::from(chart.backend_coord(&(x_us, FLOOR)).0) / s.0
        };
        let (from, to, anchor_x, h_pos) = if x + 4.0 + text_width <= right_edge {
            (x, x + 4.0 + text_width, x + 5.0, HPos::Left)
        } else {
            (x - 4.0 - text_width, x, x - 5.0, HPos::Right)
        };
        let Some(row) = (0..MAX_ROWS).find(|&r| {
            placed
                .get(r)
                .is_none_or(|spans| spans.iter().all(|&(a, b)| to <= a || b <= from))
        }) else {
            // No room left above the curves: the legend has the value.
            continue;
        };
        if placed.len() <= row {
            placed.resize(row + 1, Vec::new());
        }
        placed[row].push((from, to));
        let y = f64::from(y_pixels.start) / s.0 + 4.0 + (row as f64 + 0.5) * row_height;
        let (r, g, b) = entry.colour;
        let box_left = if matches!(h_pos, HPos::Left) {
            anchor_x - 3.0
        } else {
            anchor_x - text_width + 3.0
        };
        root.draw(&Rectangle::new(
            [
                (s.px(box_left), s.px(y - row_height / 2.0 + 1.0)),
                (
                    s.px(box_left + text_width),
                    s.px(y + row_height / 2.0 - 1.0),
                ),
            ],
            WHITE.mix(0.85).filled(),
        ))
        .map_err(|e| e.to_string())?;
        root.draw(&Text::new(
            label,
            (s.px(anchor_x), s.px(y)),
            s.font(size::LEGEND)
                .color(&RGBColor(r, g, b))
                .pos(Pos::new(h_pos, VPos::Center)),
        ))
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}
