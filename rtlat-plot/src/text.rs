//! How wide a text is, for the layout (legend columns, title lines, label areas): the real
//! font's advances for a PNG, a fixed table for an SVG (whose reader picks the font), so that
//! an SVG is the same on every machine.

use ab_glyph::{Font, FontArc, ScaleFont};

/// Advance widths of DejaVu Sans for ASCII 32 ..= 126, thousandths of an em. DejaVu is wider
/// than most sans-serif fonts, so a layout made with it leaves room for the others.
const ADVANCES: [u16; 95] = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
    575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685,
    611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579,
    278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];

/// Widths of texts.
pub trait Measure {
    /// The width of `text` at font size `size_px` (the em), pixels.
    fn width(&self, text: &str, size_px: f64) -> f64;

    /// The same in the bold face.
    fn bold_width(&self, text: &str, size_px: f64) -> f64;

    /// `text` shortened with an ellipsis to fit `max_px`, whole if it fits.
    fn fit(&self, text: &str, size_px: f64, max_px: f64) -> String {
        fit_with(|t| self.width(t, size_px), text, max_px)
    }
}

/// `text` shortened with an ellipsis until `width` of it is at most `max_px`.
pub fn fit_with(width: impl Fn(&str) -> f64, text: &str, max_px: f64) -> String {
    if width(text) <= max_px {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let candidate: String = chars[..mid].iter().chain(['…'].iter()).collect();
        if width(&candidate) <= max_px {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    chars[..lo].iter().chain(['…'].iter()).collect()
}

/// `text` broken at spaces into lines that fit `max_px`, at most `max_lines` (the last one
/// shortened with an ellipsis if the text goes on).
pub fn wrap(
    measure: &dyn Measure,
    text: &str,
    size_px: f64,
    max_px: f64,
    max_lines: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() && lines.len() + 1 < max_lines.max(1) {
        if measure.width(rest, size_px) <= max_px {
            break;
        }
        // The longest prefix that ends before a space and fits.
        let mut cut = None;
        for (i, c) in rest.char_indices() {
            if c == ' ' {
                if measure.width(&rest[..i], size_px) > max_px {
                    break;
                }
                cut = Some(i);
            }
        }
        let Some(i) = cut else { break };
        lines.push(rest[..i].trim_end().to_string());
        rest = rest[i..].trim_start();
    }
    if !rest.is_empty() || lines.is_empty() {
        lines.push(measure.fit(rest, size_px, max_px));
    }
    lines
}

/// The fixed table (SVG).
pub struct Table;

/// How much wider bold text is than regular, for the table (DejaVu Sans Bold is about 12 %
/// wider; a little more leaves room for other fonts).
const BOLD_FACTOR: f64 = 1.15;

impl Measure for Table {
    fn width(&self, text: &str, size_px: f64) -> f64 {
        let thousandths: u32 = text
            .chars()
            .map(|c| match c as u32 {
                32..=126 => u32::from(ADVANCES[c as usize - 32]),
                _ => 1000,
            })
            .sum();
        f64::from(thousandths) / 1000.0 * size_px
    }

    fn bold_width(&self, text: &str, size_px: f64) -> f64 {
        self.width(text, size_px) * BOLD_FACTOR
    }
}

/// The loaded faces (PNG).
pub struct FontMeasure<'a> {
    /// The regular face.
    pub regular: &'a FontArc,
    /// The bold face.
    pub bold: &'a FontArc,
}

impl Measure for FontMeasure<'_> {
    fn width(&self, text: &str, size_px: f64) -> f64 {
        advance(self.regular, text, size_px)
    }

    fn bold_width(&self, text: &str, size_px: f64) -> f64 {
        advance(self.bold, text, size_px)
    }
}

/// How far `text` in `font` at `size_px` advances, kerning included, pixels.
pub fn advance(font: &FontArc, text: &str, size_px: f64) -> f64 {
    let font = font.as_scaled(em_scale(font, size_px));
    let mut width = 0.0;
    let mut previous = None;
    for c in text.chars() {
        let glyph = font.glyph_id(c);
        if let Some(p) = previous {
            width += font.kern(p, glyph);
        }
        width += font.h_advance(glyph);
        previous = Some(glyph);
    }
    f64::from(width)
}

/// The ab_glyph scale that makes one em `size_px` pixels (ab_glyph scales by the font's
/// ascent-to-descent height, CSS and SVG by the em).
pub fn em_scale(font: &FontArc, size_px: f64) -> ab_glyph::PxScale {
    let units_per_em = font.units_per_em().unwrap_or(1000.0);
    ab_glyph::PxScale::from(size_px as f32 * font.height_unscaled() / units_per_em)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_widths_and_fitting() {
        assert_eq!(Table.width("00", 10.0), 12.72);
        assert_eq!(Table.width("µ", 10.0), 10.0);
        let long = "rtlat run -t 2 -p 80 -i 500 -D 5 -q --json /tmp/x.json";
        let fitted = Table.fit(long, 10.0, 100.0);
        assert!(fitted.ends_with('…') && Table.width(&fitted, 10.0) <= 100.0);
        assert_eq!(Table.fit("short", 10.0, 100.0), "short");
        let lines = wrap(&Table, long, 10.0, 110.0, 2);
        assert_eq!(lines.len(), 2);
        assert!(
            lines.iter().all(|l| Table.width(l, 10.0) <= 110.0),
            "{lines:?}"
        );
        assert!(long.starts_with(&format!("{} ", lines[0])), "{lines:?}");
        let rest = &long[lines[0].len() + 1..];
        assert!(
            lines[1].ends_with('…') && rest.starts_with(lines[1].trim_end_matches('…')),
            "{lines:?} {rest}"
        );
        assert_eq!(wrap(&Table, long, 10.0, 1000.0, 2), [long]);
        assert_eq!(wrap(&Table, "", 10.0, 100.0, 2), [""]);
    }
}
