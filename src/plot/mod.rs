//! `rtlat plot FILE [FILE …] -o OUT.svg|OUT.png`: latency histograms as OSADL draws them
//! (latency in µs on a linear x axis, number of samples on a log y axis from 1, one curve per
//! thread or CPU, each maximum marked), several files on one plot for before/after, and for
//! files with a time series (rtlat JSON, Xenomai `latency` output) a second panel in the same
//! image with each second's maximum over time (and, for `rtlat run --explain` files, each
//! explained spike marked on it, the largest labelled with its likely cause).
//!
//! The files are read by [`rtlat_formats`] (format detected from the content); the figure
//! is built independently of the output (`figure`), then drawn with plotters (`draw`) on
//! its SVG backend (text stays text: no font needed) or on a bitmap whose text is drawn with a
//! font found on the machine (`font`, `raster`). The image is written by [`crate::output`]:
//! checked before the files are read, then replaced atomically (or written to a device).

mod curve;
mod draw;
mod figure;
mod font;
mod input;
mod options;
mod raster;
mod style;
mod text;
mod time_series;
mod title;

#[cfg(test)]
mod tests;

use std::process::ExitCode;

use plotters::prelude::*;

use crate::exit_status;

use self::figure::Figure;
use self::options::{ImageKind, Options, Parsed, usage};

/// Runs `rtlat plot ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let options = match options::parse(args) {
        Ok(Parsed::Plot(options)) => options,
        Ok(Parsed::Help) => {
            crate::outln!("{}\n\n{}", usage(), exit_status::HELP);
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            crate::errln!("rtlat plot: {message}");
            return exit_status::code(exit_status::BAD_INPUT);
        }
    };
    let output = options.output.display();
    // Before reading and drawing: an image that cannot be written is refused first.
    if let Err(e) = crate::output::check(&options.output) {
        crate::errln!("rtlat plot: {output}: cannot write: {e}");
        return exit_status::code(exit_status::BAD_INPUT);
    }
    let bytes = match make_image(&options) {
        Ok(bytes) => bytes,
        Err(messages) => {
            for message in messages {
                crate::errln!("rtlat plot: {message}");
            }
            return exit_status::code(exit_status::BAD_INPUT);
        }
    };
    match crate::output::write(&options.output, &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::errln!("rtlat plot: {output}: cannot write: {e}");
            exit_status::code(exit_status::finished(exit_status::OK, false))
        }
    }
}

/// Reads and draws; the errors are one line each.
fn make_image(options: &Options) -> Result<Vec<u8>, Vec<String>> {
    let inputs = input::load(&options.files)?;
    let figure =
        figure::build(&inputs, options.title.as_deref(), options.x_max_us).map_err(|e| vec![e])?;
    let output = options.output.display();
    match options.kind {
        ImageKind::Svg => {
            let size = options
                .size
                .unwrap_or_else(|| draw::default_size(&figure, &text::Table));
            svg(&figure, size)
        }
        ImageKind::Png => {
            let fonts = font::find().map_err(|e| vec![e])?;
            let size = options.size.unwrap_or_else(|| {
                draw::default_size(
                    &figure,
                    &text::FontMeasure {
                        regular: &fonts.regular,
                        bold: &fonts.bold,
                    },
                )
            });
            raster::png(&figure, &fonts, size)
        }
    }
    .map_err(|e| vec![format!("{output}: {e}")])
}

/// The figure as SVG text.
fn svg(figure: &Figure, size: (u32, u32)) -> Result<Vec<u8>, String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        draw::draw(&root, figure, &text::Table, 1.0)?;
    }
    Ok(text.into_bytes())
}
