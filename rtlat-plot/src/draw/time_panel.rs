//! The time panel: the largest latency of each second (or longer window) over the run, one
//! line per thread, a gap where a window had no cycles, and the spikes `rtlat run --explain`
//! explained marked over them.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::ticks::{label_areas, linear_label, linear_labels, tick_step};
use super::{MARGIN, Scale, mesh_colours, spike_marks, stroke};
use crate::figure::{Figure, TimeAxes};
use crate::style::size;
use crate::text::Measure;

/// Draws the time panel: each entry's per-window maximum (µs) over time.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    figure: &Figure,
    axes: &TimeAxes,
    measure: &dyn Measure,
    s: Scale,
) -> Result<(), String> {
    let (unit_s, unit) = time_unit(axes.t_end);
    let x_range = 0.0..axes.t_end / unit_s;
    let y_range = axes.y_bottom_us..axes.y_top_us;
    let y_labels = linear_labels(&y_range, 8);
    let (left, bottom) = label_areas(&y_labels, measure);
    let plot_width = f64::from(area.dim_in_pixel().0) / s.0 - left - 2.0 * MARGIN;
    // Whole units at least: no more labels than units.
    let x_ticks = ((plot_width / 90.0) as usize)
        .clamp(4, 20)
        .min((x_range.end.floor() as usize).saturating_add(1));
    let x_step = tick_step(&x_range, x_ticks);
    let y_step = tick_step(&y_range, 8);
    let mut chart = ChartBuilder::on(area)
        .margin_left(s.px(MARGIN))
        .margin_right(s.px(MARGIN * 1.5))
        .margin_top(s.px(14.0))
        .margin_bottom(s.px(4.0))
        .x_label_area_size(s.px(bottom))
        .y_label_area_size(s.px(left))
        .build_cartesian_2d(x_range, y_range)
        .map_err(|e| e.to_string())?;
    let (bold, light, axis) = mesh_colours();
    let x_format = move |v: &f64| linear_label(*v, x_step);
    let y_format = move |v: &f64| linear_label(*v, y_step);
    let y_desc = if axes.period_s == 1.0 {
        "Max latency per second (µs)".to_string()
    } else {
        format!("Max latency per {} s (µs)", axes.period_s)
    };
    chart
        .configure_mesh()
        .x_desc(format!("Time since start ({unit})"))
        .y_desc(y_desc)
        .axis_desc_style(s.font(size::AXIS))
        .label_style(s.font(size::TICK))
        .x_labels(x_ticks)
        .y_labels(8)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .bold_line_style(bold.stroke_width(s.upx(1.0)))
        .light_line_style(light.stroke_width(s.upx(1.0)))
        .max_light_lines(1)
        .axis_style(axis.stroke_width(s.upx(1.0)))
        .set_all_tick_mark_size(s.px(5.0))
        .draw()
        .map_err(|e| e.to_string())?;
    for entry in &figure.entries {
        let Some(timeline) = &entry.timeline else {
            continue;
        };
        // Windows without cycles break the line.
        let mut run: Vec<(f64, f64)> = Vec::new();
        let mut runs = Vec::new();
        for &(t, max) in &timeline.points {
            match max {
                // A point in the middle of the window it stands for.
                Some(m) => run.push(((t + timeline.period_s / 2.0) / unit_s, m as f64 / 1000.0)),
                None => runs.push(std::mem::take(&mut run)),
            }
        }
        runs.push(run);
        let few = timeline.points.len() <= 120;
        let (r, g, b) = entry.colour;
        for run in runs.into_iter().filter(|r| !r.is_empty()) {
            if run.len() > 1 {
                stroke(chart.plotting_area(), run.clone(), entry, s, 1.5)?;
            }
            if few || run.len() == 1 {
                for p in run {
                    chart
                        .plotting_area()
                        .draw(&Circle::new(p, s.upx(2.5), RGBColor(r, g, b).filled()))
                        .map_err(|e| e.to_string())?;
                }
            }
        }
    }
    spike_marks::draw(&chart, figure, unit_s, measure, s)
}

/// The time axis' unit for a run of `t_end` seconds: seconds up to ten minutes, minutes up
/// to three hours, hours beyond. Returns its length in seconds and its symbol.
fn time_unit(t_end: f64) -> (f64, &'static str) {
    if t_end > 3.0 * 3600.0 {
        (3600.0, "h")
    } else if t_end > 600.0 {
        (60.0, "min")
    } else {
        (1.0, "s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_runs_count_minutes_or_hours() {
        assert_eq!(time_unit(600.0), (1.0, "s"));
        assert_eq!(time_unit(7200.0), (60.0, "min"));
        assert_eq!(time_unit(86400.0), (3600.0, "h"));
    }
}
