//! `rtlat plot FILE [FILE …] -o OUT.svg|OUT.png`: latency histograms as OSADL draws them
//! (latency in µs on a linear x axis, number of samples on a log y axis from 1, one curve per
//! thread or CPU, each maximum marked), several files on one plot for before/after, and for
//! files with a time series (rtlat JSON, Xenomai `latency` output) a second panel in the same
//! image with each second's maximum over time (and, for `rtlat run --explain` files, each
//! explained spike marked on it, the largest labelled with its likely cause).
//!
//! The files are read by [`rtlat_formats`] (format detected from the content, `input`); the
//! image is made by [`rtlat_plot`] and written by [`crate::output`]: checked before the files
//! are read, then replaced atomically (or written to a device). This is the command's front:
//! its options, its files by path, its messages and exit statuses.

mod input;
mod options;

use std::process::ExitCode;

use rtlat_plot::PlotError;

use crate::exit_status;

use self::options::{Options, Parsed, usage};

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
    rtlat_plot::image(
        &inputs,
        options.title.as_deref(),
        options.x_max_us,
        options.kind,
        options.size,
    )
    .map_err(|e| match e {
        PlotError::Draw(e) => vec![format!("{}: {e}", options.output.display())],
        other => vec![other.to_string()],
    })
}
