//! `rtlat plot FILE [FILE …] -o OUT.svg|OUT.png`: latency histograms as OSADL draws them
//! (latency in µs on a linear x axis, number of samples on a log y axis from 1, one curve per
//! thread or CPU, each maximum marked), several files on one plot for before/after, and for
//! files with a time series (rtlat JSON, Xenomai `latency` output) a second panel in the same
//! image with each second's maximum over time.
//!
//! The files are read by [`crate::formats`] (format detected from the content); the figure
//! is built independently of the output (`figure`), then drawn with plotters (`draw`) on
//! its SVG backend (text stays text: no font needed) or on a bitmap whose text is drawn with a
//! font found on the machine (`font`, `raster`). The image is written atomically.

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

use std::process::ExitCode;

use plotters::prelude::*;

use crate::atomic_file::write_atomically;

use self::figure::Figure;
use self::options::{ImageKind, Options, Parsed, USAGE};

/// Runs `rtlat plot ARGS`; returns the exit status.
pub fn main(args: &[String]) -> ExitCode {
    let options = match options::parse(args) {
        Ok(Parsed::Plot(options)) => options,
        Ok(Parsed::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("rtlat plot: {message}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(messages) => {
            for message in messages {
                eprintln!("rtlat plot: {message}");
            }
            ExitCode::from(2)
        }
    }
}

/// Reads, draws and writes; the errors are one line each.
fn run(options: &Options) -> Result<(), Vec<String>> {
    let inputs = input::load(&options.files)?;
    let figure =
        figure::build(&inputs, options.title.as_deref(), options.x_max_us).map_err(|e| vec![e])?;
    let output = options.output.display();
    let bytes = match options.kind {
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
    .map_err(|e| vec![format!("{output}: {e}")])?;
    write_atomically(&options.output, &bytes)
        .map_err(|e| vec![format!("{output}: cannot write: {e}")])
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
