//! The PNG: plotters' bitmap backend for the shapes, text drawn here with the system font
//! (plotters' own text needs font-kit and C libraries), everything drawn at [`SUPERSAMPLE`]
//! times the size and averaged down so that lines and text come out smooth, then encoded.

use ab_glyph::{Font, FontArc, ScaleFont, point};
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

use super::draw;
use super::figure::Figure;
use super::font::Fonts;
use super::text::{FontMeasure, advance, em_scale};

/// Drawn at this many times the image's size, then reduced.
pub const SUPERSAMPLE: u32 = 2;

/// The figure as PNG bytes, `size` pixels.
pub fn png(figure: &Figure, fonts: &Fonts, size: (u32, u32)) -> Result<Vec<u8>, String> {
    let (w, h) = (size.0 * SUPERSAMPLE, size.1 * SUPERSAMPLE);
    let mut big = vec![255u8; w as usize * h as usize * 3];
    {
        let backend = TextBackend {
            inner: BitMapBackend::with_buffer(&mut big, (w, h)),
            fonts,
        };
        let root = backend.into_drawing_area();
        draw::draw(
            &root,
            figure,
            &FontMeasure {
                regular: &fonts.regular,
                bold: &fonts.bold,
            },
            f64::from(SUPERSAMPLE),
        )?;
    }
    let small = reduce(&big, (w, h), SUPERSAMPLE);
    encode(&small, size, &figure.title.heading)
}

/// Averages each `factor`×`factor` block of an RGB image.
fn reduce(rgb: &[u8], (w, h): (u32, u32), factor: u32) -> Vec<u8> {
    let (w, h, f) = (w as usize, h as usize, factor as usize);
    let (sw, sh) = (w / f, h / f);
    let mut out = vec![0u8; sw * sh * 3];
    for y in 0..sh {
        for x in 0..sw {
            for c in 0..3 {
                let mut sum = 0u32;
                for dy in 0..f {
                    for dx in 0..f {
                        sum += u32::from(rgb[((y * f + dy) * w + x * f + dx) * 3 + c]);
                    }
                }
                out[(y * sw + x) * 3 + c] = ((sum + (f * f / 2) as u32) / (f * f) as u32) as u8;
            }
        }
    }
    out
}

fn encode(rgb: &[u8], (w, h): (u32, u32), title: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let text = |e: png::EncodingError| format!("cannot encode the PNG: {e}");
    encoder
        .add_itxt_chunk("Title".into(), title.into())
        .map_err(text)?;
    encoder
        .add_text_chunk(
            "Software".into(),
            format!("rtlat plot {}", env!("CARGO_PKG_VERSION")),
        )
        .map_err(text)?;
    let mut writer = encoder.write_header().map_err(text)?;
    writer.write_image_data(rgb).map_err(text)?;
    writer.finish().map_err(text)?;
    Ok(bytes)
}

/// A bitmap backend that draws text with ab_glyph.
struct TextBackend<'a> {
    inner: BitMapBackend<'a>,
    fonts: &'a Fonts,
}

impl TextBackend<'_> {
    fn font(&self, style: FontStyle) -> &FontArc {
        match style {
            FontStyle::Bold => &self.fonts.bold,
            _ => &self.fonts.regular,
        }
    }
}

type BitmapError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;
type Result2<T> = Result<T, DrawingErrorKind<BitmapError>>;

impl DrawingBackend for TextBackend<'_> {
    type ErrorType = BitmapError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result2<()> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result2<()> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result2<()> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result2<()> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result2<()> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result2<()> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result2<()> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result2<()> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result2<()> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result2<(u32, u32)> {
        let em = style.size() / 1.24;
        let font = self.font(style.style());
        let width = advance(font, text, em);
        Ok((width.ceil() as u32, em.ceil() as u32))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result2<()> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        // plotters' sizes are 1.24 times the em (its SVG backend divides them so).
        let em = style.size() / 1.24;
        let font = self.font(style.style()).clone();
        let scaled = font.as_scaled(em_scale(&font, em));
        let width = advance(&font, text, em);
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        // The same baselines as plotters' SVG: the top at the capitals' height, the centre
        // through the middle of the digits, the bottom under the descenders.
        let baseline = match anchor.v_pos {
            VPos::Top => 0.76 * em,
            VPos::Center => 0.36 * em,
            VPos::Bottom => -0.24 * em,
        };
        let transform = style.transform();
        let mut caret = 0.0f32;
        let mut previous = None;
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                caret += scaled.kern(p, id);
            }
            previous = Some(id);
            let glyph = id
                .with_scale_and_position(scaled.scale(), point(caret + dx as f32, baseline as f32));
            caret += scaled.h_advance(id);
            let Some(outline) = font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            let mut pixels = Vec::new();
            outline.draw(|x, y, coverage| {
                if coverage > 0.0 {
                    pixels.push((
                        bounds.min.x as i32 + x as i32,
                        bounds.min.y as i32 + y as i32,
                        coverage,
                    ));
                }
            });
            for (x, y, coverage) in pixels {
                let (x, y) = transform.transform(x, y);
                self.inner.draw_pixel(
                    (pos.0 + x, pos.1 + y),
                    BackendColor {
                        alpha: colour.alpha * f64::from(coverage.min(1.0)),
                        rgb: colour.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_averages_blocks() {
        let big = [
            0, 0, 0, 255, 255, 255, 10, 10, 10, 20, 20, 20, //
            255, 255, 255, 0, 0, 0, 30, 30, 30, 40, 40, 40,
        ];
        assert_eq!(reduce(&big, (4, 2), 2), [128, 128, 128, 25, 25, 25]);
    }
}
