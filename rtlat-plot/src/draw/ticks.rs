//! Tick labels and the room they take: the steps plotters will choose, labels with as few
//! decimals as the step needs, the count axis by decades.

use std::ops::Range;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::style::size;
use crate::text::Measure;

/// The widest of `labels`, design pixels.
pub fn widest(labels: impl Iterator<Item = String>, measure: &dyn Measure, em: f64) -> f64 {
    labels.map(|l| measure.width(&l, em)).fold(0.0, f64::max)
}

/// A tick label for a linear axis: as few decimals as the tick step needs.
pub fn linear_label(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil().clamp(0.0, 6.0) as usize
    };
    let text = format!("{value:.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// A tick label for the count axis: 1, 10, 100 … 1000000, then 1e7 ….
pub fn count_label(value: f64) -> String {
    if value < 0.99 {
        String::new()
    } else if value < 9.5e6 {
        format!("{}", value.round() as u64)
    } else {
        format!("1e{}", value.log10().round() as i32)
    }
}

/// The step between ticks plotters will choose for `range` with at most `n` labels.
pub fn tick_step(range: &Range<f64>, n: usize) -> f64 {
    let coord: RangedCoordf64 = range.clone().into();
    let points = coord.key_points(n);
    points
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::INFINITY, f64::min)
        .min(range.end - range.start)
}

/// Tick labels of a linear range, as plotters will place them.
pub fn linear_labels(range: &Range<f64>, n: usize) -> Vec<String> {
    let coord: RangedCoordf64 = range.clone().into();
    let step = tick_step(range, n);
    coord
        .key_points(n)
        .into_iter()
        .map(|v| linear_label(v, step))
        .collect()
}

/// Label area sizes for a panel: (left, bottom), design pixels.
pub fn label_areas(y_labels: &[String], measure: &dyn Measure) -> (f64, f64) {
    let left =
        10.0 + widest(y_labels.iter().cloned(), measure, size::TICK) + 8.0 + size::AXIS * 1.3;
    let bottom = 10.0 + size::TICK * 1.2 + 8.0 + size::AXIS * 1.3;
    (left, bottom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels() {
        assert_eq!(linear_label(100.0, 50.0), "100");
        assert_eq!(linear_label(0.5, 0.5), "0.5");
        assert_eq!(linear_label(-0.0, 1.0), "0");
        assert_eq!(count_label(0.5), "");
        assert_eq!(count_label(1.0), "1");
        assert_eq!(count_label(100000.0), "100000");
        assert_eq!(count_label(1e7), "1e7");
    }
}
