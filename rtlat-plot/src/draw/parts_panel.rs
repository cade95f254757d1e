//! The parts panel under the others, for `rtlat run --timerlat --explain` files: the largest
//! wake-ups as bars of their thread latency, one segment per part of the tracer's (each
//! part kind its colour), the bar's label and latency on the left, its largest part named on
//! the right, and a key of the kinds drawn.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{MARGIN, Scale};
use crate::figure::{Figure, PartsBar};
use crate::style::size;
use crate::text::Measure;

/// The panel's title row, design pixels.
const TITLE: f64 = 26.0;
/// One bar's row.
const ROW: f64 = 24.0;
/// The bar's thickness.
const BAR: f64 = 14.0;
/// The key's row.
const KEY: f64 = 24.0;
/// Room for the bars' labels on the left and their largest part on the right.
const LEFT: f64 = 190.0;
const RIGHT: f64 = 300.0;

/// The part kinds in the order of a wake-up, with their colours.
const KINDS: [(&str, (u8, u8, u8)); 9] = [
    ("irq_delay", (148, 103, 189)),
    ("irq_latency", (197, 176, 213)),
    ("blocking_thread", (214, 39, 40)),
    ("thread_interference", (255, 152, 150)),
    ("irq_interference", (31, 119, 180)),
    ("softirq_interference", (174, 199, 232)),
    ("nmi_interference", (140, 86, 75)),
    ("irq_duration_and_switch", (199, 199, 199)),
    ("return_to_wait", (188, 189, 34)),
];

/// A kind the panel does not know (a newer file): grey.
const OTHER: (u8, u8, u8) = (127, 127, 127);

fn colour(kind: &str) -> RGBColor {
    let (r, g, b) = KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(OTHER, |(_, c)| *c);
    RGBColor(r, g, b)
}

/// The panel's height for `figure` (0 without bars), design pixels.
pub fn height(figure: &Figure) -> f64 {
    if figure.parts.is_empty() {
        0.0
    } else {
        TITLE + ROW * figure.parts.len() as f64 + KEY + 8.0
    }
}

/// `ns` as the bars' labels show it.
fn shown(ns: u64) -> String {
    if ns >= 10_000_000 {
        format!("{:.0} ms", ns as f64 / 1e6)
    } else {
        format!("{:.1} µs", ns as f64 / 1e3)
    }
}

/// The largest part's text: `98.2 % thread_interference sh:959`.
fn largest(bar: &PartsBar) -> String {
    let Some((part, name, ns)) = bar.parts.iter().max_by_key(|(_, _, ns)| *ns) else {
        return String::new();
    };
    let share = if bar.whole_ns == 0 {
        0.0
    } else {
        *ns as f64 * 100.0 / bar.whole_ns as f64
    };
    if name.is_empty() {
        format!("{share:.1} % {part}")
    } else {
        format!("{share:.1} % {part} {name}")
    }
}

pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    figure: &Figure,
    measure: &dyn Measure,
    s: Scale,
    width: f64,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let left_text = s.font(size::LEGEND).pos(Pos::new(HPos::Left, VPos::Center));
    area.draw(&Text::new(
        "The largest wake-ups in the timerlat tracer's parts (share of each wake-up's latency)",
        (s.px(MARGIN), s.px(TITLE / 2.0)),
        s.bold(size::LEGEND).pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(err)?;
    let x0 = MARGIN + LEFT;
    let x1 = (width - MARGIN - RIGHT).max(x0 + 100.0);
    for (i, bar) in figure.parts.iter().enumerate() {
        let y = TITLE + (i as f64 + 0.5) * ROW;
        let label = measure.fit(
            &format!("{} {}", bar.label, shown(bar.whole_ns)),
            size::LEGEND,
            LEFT - 8.0,
        );
        area.draw(&Text::new(
            label,
            (s.px(MARGIN), s.px(y)),
            left_text.clone(),
        ))
        .map_err(err)?;
        let mut at = 0u64;
        for (part, _, ns) in &bar.parts {
            let from = x0 + (x1 - x0) * at as f64 / bar.whole_ns.max(1) as f64;
            at = at.saturating_add(*ns).min(bar.whole_ns);
            let to = x0 + (x1 - x0) * at as f64 / bar.whole_ns.max(1) as f64;
            if to - from < 0.01 {
                continue;
            }
            area.draw(&Rectangle::new(
                [
                    (s.px(from), s.px(y - BAR / 2.0)),
                    (s.px(to).max(s.px(from) + 1), s.px(y + BAR / 2.0)),
                ],
                colour(part).filled(),
            ))
            .map_err(err)?;
        }
        let note = measure.fit(&largest(bar), size::LEGEND, RIGHT - 12.0);
        area.draw(&Text::new(
            note,
            (s.px(x1 + 8.0), s.px(y)),
            left_text.clone(),
        ))
        .map_err(err)?;
    }
    // The key: the kinds the bars have, in the order of a wake-up.
    let mut x = MARGIN;
    let y = TITLE + ROW * figure.parts.len() as f64 + KEY / 2.0;
    for (kind, _) in KINDS {
        if !figure
            .parts
            .iter()
            .any(|b| b.parts.iter().any(|(k, _, _)| k == kind))
        {
            continue;
        }
        area.draw(&Rectangle::new(
            [(s.px(x), s.px(y - 5.0)), (s.px(x + 10.0), s.px(y + 5.0))],
            colour(kind).filled(),
        ))
        .map_err(err)?;
        area.draw(&Text::new(
            kind,
            (s.px(x + 14.0), s.px(y)),
            left_text.clone(),
        ))
        .map_err(err)?;
        x += 14.0 + measure.width(kind, size::LEGEND) + 16.0;
    }
    Ok(())
}
