//! The legend under the panels: one entry per curve (a sample of its line, its text), in as
//! few columns as fit, filled column by column so that each file's entries stay together.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{MARGIN, Scale, stroke};
use crate::figure::Figure;
use crate::style::size;
use crate::text::Measure;

/// Where the legend's entries go.
pub struct Layout {
    columns: usize,
    rows: usize,
    column_width: f64,
    texts: Vec<String>,
    pub height: f64,
    left: f64,
}

const LEGEND_SAMPLE: f64 = 30.0;
const LEGEND_GAP: f64 = 7.0;
const LEGEND_COLUMN_GAP: f64 = 24.0;
const LEGEND_ROW: f64 = size::LEGEND * 1.55;

pub fn layout(figure: &Figure, measure: &dyn Measure, width: f64) -> Layout {
    let room = width - 2.0 * MARGIN;
    let text_room = room - LEGEND_SAMPLE - LEGEND_GAP;
    let texts: Vec<String> = figure
        .entries
        .iter()
        .map(|e| measure.fit(&e.legend, size::LEGEND, text_room))
        .collect();
    let widest = texts
        .iter()
        .map(|t| measure.width(t, size::LEGEND))
        .fold(0.0, f64::max);
    let column_width = LEGEND_SAMPLE + LEGEND_GAP + widest + LEGEND_COLUMN_GAP;
    let n = texts.len().max(1);
    let columns = ((room + LEGEND_COLUMN_GAP) / column_width)
        .floor()
        .clamp(1.0, n as f64) as usize;
    let rows = n.div_ceil(columns);
    // Even out the columns: as few as the rows need.
    let columns = n.div_ceil(rows);
    let used = columns as f64 * column_width - LEGEND_COLUMN_GAP;
    Layout {
        columns,
        rows,
        column_width,
        texts,
        height: rows as f64 * LEGEND_ROW + 4.0,
        left: MARGIN + ((room - used) / 2.0).max(0.0),
    }
}

pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    figure: &Figure,
    layout: &Layout,
    s: Scale,
    top: f64,
) -> Result<(), String> {
    let text_style = s.font(size::LEGEND).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (entry, text)) in figure.entries.iter().zip(&layout.texts).enumerate() {
        let (column, row) = (i / layout.rows, i % layout.rows);
        debug_assert!(column < layout.columns);
        let x = layout.left + column as f64 * layout.column_width;
        let y = top + (row as f64 + 0.5) * LEGEND_ROW;
        let sample = vec![(s.px(x), s.px(y)), (s.px(x + LEGEND_SAMPLE), s.px(y))];
        stroke(root, sample, entry, s, 2.0)?;
        root.draw(&Text::new(
            text.clone(),
            (s.px(x + LEGEND_SAMPLE + LEGEND_GAP), s.px(y)),
            text_style.clone(),
        ))
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}
