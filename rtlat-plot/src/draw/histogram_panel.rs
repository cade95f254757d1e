//! The histogram panel, as OSADL draws it.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::ticks::{count_label, label_areas, linear_label, tick_step};
use super::{MARGIN, Scale, max_markers, mesh_colours, stroke};
use crate::curve;
use crate::figure::{FLOOR, Figure, HistogramAxes};
use crate::style::size;
use crate::text::Measure;

/// Draws the histogram panel: latency (µs, linear) against samples (log, from 1), one
/// step curve per entry, each maximum marked.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    area: &DrawingArea<DB, Shift>,
    figure: &Figure,
    axes: &HistogramAxes,
    measure: &dyn Measure,
    s: Scale,
) -> Result<(), String> {
    let x_range = axes.x_us.0..axes.x_us.1;
    let decades = axes.y_top.log10().round() as u32;
    let y_labels: Vec<String> = (0..=decades)
        .map(|d| count_label(10f64.powi(d as i32)))
        .collect();
    let (left, bottom) = label_areas(&y_labels, measure);
    let plot_width = f64::from(area.dim_in_pixel().0) / s.0 - left - 2.0 * MARGIN;
    let x_ticks = ((plot_width / 90.0) as usize).clamp(4, 20);
    let x_step = tick_step(&x_range, x_ticks);

    let mut chart = ChartBuilder::on(area)
        .margin_left(s.px(MARGIN))
        .margin_right(s.px(MARGIN * 1.5))
        .margin_top(s.px(8.0))
        .margin_bottom(s.px(4.0))
        .x_label_area_size(s.px(bottom))
        .y_label_area_size(s.px(left))
        .build_cartesian_2d(x_range.clone(), (FLOOR..axes.y_top).log_scale())
        .map_err(|e| e.to_string())?;
    let (bold, light, axis) = mesh_colours();
    let x_format = move |v: &f64| linear_label(*v, x_step);
    let y_format = |v: &f64| count_label(*v);
    let y_desc = if axes.bin_us == 1.0 {
        "Number of samples".to_string()
    } else {
        format!("Number of samples per {} µs", axes.bin_us)
    };
    chart
        .configure_mesh()
        .x_desc("Latency (µs)")
        .y_desc(y_desc)
        .axis_desc_style(s.font(size::AXIS))
        .label_style(s.font(size::TICK))
        .x_labels(x_ticks)
        .y_labels(decades as usize + 1)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .bold_line_style(bold.stroke_width(s.upx(1.0)))
        .light_line_style(light.stroke_width(s.upx(1.0)))
        .x_max_light_lines(1)
        .axis_style(axis.stroke_width(s.upx(1.0)))
        .set_all_tick_mark_size(s.px(5.0))
        .draw()
        .map_err(|e| e.to_string())?;

    for entry in &figure.entries {
        for line in curve::outlines(&entry.steps, FLOOR) {
            stroke(chart.plotting_area(), line, entry, s, 1.5)?;
        }
    }
    max_markers::draw(root, &chart, figure, axes, measure, s)
}
