//! The spikes `rtlat run --explain` explained, on the time panel: a small red triangle at
//! each (t, latency), and by each thread's largest a label with its likely cause, kept
//! inside the panel.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Scale;
use crate::figure::Figure;
use crate::style::size;
use crate::text::Measure;

/// The marks' colour: a red none of the curves has.
pub const SPIKE_COLOUR: RGBColor = RGBColor(200, 0, 0);
/// The triangle's size: centre to corner, design pixels.
const TRIANGLE: f64 = 5.0;
/// Room between a mark and its label, design pixels.
const GAP: f64 = 7.0;

/// Draws the marks of every entry on `chart` (time in units of `unit_s` seconds, latency in
/// µs), then the labels of the largest spikes over them.
pub fn draw<DB: DrawingBackend>(
    chart: &ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    figure: &Figure,
    unit_s: f64,
    measure: &dyn Measure,
    s: Scale,
) -> Result<(), String> {
    let plot = chart.plotting_area();
    let at = |t: f64, latency_ns: i64| (t / unit_s, latency_ns as f64 / 1000.0);
    for entry in &figure.entries {
        for spike in &entry.spikes {
            plot.draw(&TriangleMarker::new(
                at(spike.t, spike.latency_ns),
                s.px(TRIANGLE),
                SPIKE_COLOUR.filled(),
            ))
            .map_err(|e| e.to_string())?;
        }
    }
    // The labels, in the panel's own pixels (design units from its top left corner).
    let (x_pixels, y_pixels) = plot.get_pixel_range();
    let area = plot.strip_coord_spec();
    let width = f64::from(x_pixels.end - x_pixels.start) / s.0;
    let height = f64::from(y_pixels.end - y_pixels.start) / s.0;
    let row = size::LEGEND * 1.45;
    let mut placed: Vec<(f64, f64, f64, f64)> = Vec::new();
    for entry in &figure.entries {
        for spike in &entry.spikes {
            let Some(note) = &spike.note else { continue };
            let (px, py) = chart.backend_coord(&at(spike.t, spike.latency_ns));
            let x = f64::from(px - x_pixels.start) / s.0;
            let y = f64::from(py - y_pixels.start) / s.0;
            // Right of the mark where there is more room there, else left of it; the text
            // shortened to what the panel has.
            let (right, room) = if width - x >= x {
                (true, width - x - GAP - 4.0)
            } else {
                (false, x - GAP - 4.0)
            };
            let text = measure.fit(note, size::LEGEND, room.max(0.0));
            let text_width = measure.width(&text, size::LEGEND);
            let left = if right { x + GAP } else { x - GAP - text_width };
            // Beside the mark, one row lower while it would cover a label already placed;
            // within the panel's height.
            let mut centre = y.clamp(row / 2.0, (height - row / 2.0).max(row / 2.0));
            for _ in 0..figure.entries.len() {
                let overlaps = placed.iter().any(|&(l, t, r, b)| {
                    left < r
                        && l < left + text_width
                        && centre - row / 2.0 < b
                        && t < centre + row / 2.0
                });
                if !overlaps {
                    break;
                }
                centre += row;
                if centre + row / 2.0 > height {
                    centre = row / 2.0;
                }
            }
            placed.push((
                left,
                centre - row / 2.0,
                left + text_width,
                centre + row / 2.0,
            ));
            area.draw(&Rectangle::new(
                [
                    (s.px(left - 2.0), s.px(centre - row / 2.0 + 1.0)),
                    (
                        s.px(left + text_width + 2.0),
                        s.px(centre + row / 2.0 - 1.0),
                    ),
                ],
                WHITE.mix(0.85).filled(),
            ))
            .map_err(|e| e.to_string())?;
            area.draw(&Text::new(
                text,
                (s.px(left), s.px(centre)),
                s.font(size::LEGEND)
                    .color(&SPIKE_COLOUR)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
