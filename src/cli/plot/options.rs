//! `rtlat plot`'s command line: the files, the output and its kind, the size and title.

use std::path::PathBuf;

use rtlat_plot::{ImageKind, SIZE_LIMITS};

use crate::options::{self, Grammar, Spec, UsageError};

/// The usage text (`rtlat plot --help`): the options part written from [`SPECS`].
pub fn usage() -> String {
    format!(
        "Usage: rtlat plot FILE [FILE …] -o OUT.svg|OUT.png [--title TEXT] [--size WxH] [--x-max US]

Draws latency histograms as OSADL's latency plots do: latency (µs, linear) against the number
of samples (log scale from 1; empty buckets are not drawn), one curve per thread or CPU, the
maximum of each marked, a legend with each curve's label and maximum, a title with the host,
kernel and run settings the files state. Samples are counted per 1 µs bin (wider bins when
the axis spans more than 4 ms, as the axis then says). Several files go on one plot
(before/after): each curve's legend entry starts with its file's name, each file has its own
line pattern.

Files that carry a time series (rtlat run --json, Xenomai latency output) get a second panel
below the histogram in the same image: the largest latency of each second over time. Files of
rtlat run --explain also have their explained spikes marked there, a small red triangle at
each spike's time and latency, and each thread's largest labelled with its most likely
cause's first words (or \"no cause found\"); the legend counts them.

Files are detected from their content: rtlat or cyclictest --json files, cyclictest -h/-H
histogram output, jitterdebugger results.json, Xenomai latency output and its -g gnuplot file.

Options:
{}
PNG text needs a TrueType font: DejaVu Sans (Debian: fonts-dejavu-core), Liberation Sans or
another sans-serif font under /usr/share/fonts, or the file named by RTLAT_FONT. SVG needs none.

A bad option, a missing or unreadable file, a file that is not a latency result, an image
that cannot be made, and an output that cannot be written (a missing or unwritable folder,
a directory, a file of /proc or /sys) are refused with status 2, before drawing; an image
drawn whose file then fails to be written (a full disk) exits with status 4.",
        crate::options::help::options(SPECS, 20)
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Output,
    Title,
    Size,
    XMax,
    Help,
}

/// `rtlat plot`'s options; the files are its operands.
const SPECS: &[Spec<Opt>] = &[
    Spec::new(Opt::Output)
        .short('o')
        .long("output")
        .value("OUT", "a file name (OUT.svg or OUT.png)")
        .help(
            "the image to write, OUT.svg or OUT.png (a file is replaced atomically,\n\
             keeping its owner and mode; a device or FIFO is written to)",
        ),
    Spec::new(Opt::Title)
        .long("title")
        .value("TEXT", "a text")
        .help("the title's first line, instead of the host and kernel"),
    Spec::new(Opt::Size)
        .long("size")
        .value("WxH", "WIDTHxHEIGHT, e.g. 1200x800")
        .help(
            "the image's size in pixels (default 1200x800, 1200x1150 with a time\n\
             series, taller when a long legend needs it)",
        ),
    Spec::new(Opt::XMax)
        .long("x-max")
        .value("US", "a latency in µs")
        .help(
            "end the latency axis at US µs (to see the bulk when a rare outlier would\n\
             squeeze it); maxima beyond are still written at the right edge and in the\n\
             legend",
        ),
    Spec::new(Opt::Help)
        .short('h')
        .long("help")
        .help("this help"),
];

/// The parsed command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The result files, in the order given (the first is "before").
    pub files: Vec<String>,
    /// Where the image goes.
    pub output: PathBuf,
    /// SVG or PNG.
    pub kind: ImageKind,
    /// The title's first line, replacing the one made from the files.
    pub title: Option<String>,
    /// Width and height in pixels, when given.
    pub size: Option<(u32, u32)>,
    /// End of the latency axis, µs, when given.
    pub x_max_us: Option<f64>,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// Plot.
    Plot(Options),
    /// Print the usage.
    Help,
}

/// Parses `rtlat plot`'s arguments (what was typed: the files are read and the output
/// checked after); the error is one line for the user.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let grammar = Grammar {
        operands: true,
        ..Grammar::default()
    };
    let scanned = options::scan_with(args, SPECS, &(), grammar).map_err(|e| match e {
        UsageError::UnknownOption { option } => format!(
            "unknown option '{option}'; accepted: -o/--output, --title, --size, --x-max, --help"
        ),
        // A value missing is the last word's: the option as typed.
        UsageError::MissingValue { expected, .. } => format!(
            "{} needs {expected}",
            args.last().map(String::as_str).unwrap_or_default()
        ),
        other => other.to_string(),
    })?;
    if scanned.options.iter().any(|f| f.id == Opt::Help) {
        return Ok(Parsed::Help);
    }
    let files = scanned.operands;
    let mut output: Option<String> = None;
    let mut title = None;
    let mut size = None;
    let mut x_max_us = None;
    for found in scanned.options {
        let value = found.value.unwrap_or_default();
        match found.id {
            Opt::Help => {}
            Opt::Output => output = Some(value),
            Opt::Title => title = Some(value),
            Opt::Size => size = Some(parse_size(&value)?),
            Opt::XMax => {
                let v: f64 = value
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite() && *v > 0.0 && *v <= 1e9)
                    .ok_or(format!(
                        "--x-max '{value}': expected a positive number of µs"
                    ))?;
                x_max_us = Some(v);
            }
        }
    }
    let output = output.ok_or("no output: name the image with -o OUT.svg or -o OUT.png")?;
    if files.is_empty() {
        return Err(
            "no result file to plot; usage: rtlat plot FILE [FILE …] -o OUT.svg|OUT.png".into(),
        );
    }
    let kind = image_kind(&output)?;
    Ok(Parsed::Plot(Options {
        files,
        output: PathBuf::from(output),
        kind,
        title,
        size,
        x_max_us,
    }))
}

/// The image kind from the output's extension (case-insensitive).
pub fn image_kind(output: &str) -> Result<ImageKind, String> {
    let extension = std::path::Path::new(output)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("svg") => Ok(ImageKind::Svg),
        Some("png") => Ok(ImageKind::Png),
        Some(other) => Err(format!(
            "{output}: cannot write .{other} images; accepted extensions: .svg, .png"
        )),
        None => Err(format!(
            "{output}: no extension to tell the image kind; accepted extensions: .svg, .png"
        )),
    }
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "--size '{text}': expected WIDTHxHEIGHT in pixels, each {} to {}",
            SIZE_LIMITS.0, SIZE_LIMITS.1
        )
    };
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    let ok = |v: u32| (SIZE_LIMITS.0..=SIZE_LIMITS.1).contains(&v);
    if ok(w) && ok(h) {
        Ok((w, h))
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    fn plot(text: &str) -> Options {
        match parse(&args(text)) {
            Ok(Parsed::Plot(o)) => o,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn files_output_and_options_in_any_order() {
        let o = plot("a.json -o out.PNG b.txt --size 800x600 --title=Before/after --x-max 150");
        assert_eq!(o.x_max_us, Some(150.0));
        assert_eq!(o.files, ["a.json", "b.txt"]);
        assert_eq!(o.output, PathBuf::from("out.PNG"));
        assert_eq!(o.kind, ImageKind::Png);
        assert_eq!(o.size, Some((800, 600)));
        assert_eq!(o.title.as_deref(), Some("Before/after"));
        assert_eq!(plot("-oout.svg -- -odd-name").files, ["-odd-name"]);
        assert_eq!(plot("--output=x.svg a").kind, ImageKind::Svg);
    }

    #[test]
    fn mistakes_are_one_line_each() {
        for (text, expected) in [
            ("a.json", "no output"),
            ("-o out.svg", "no result file"),
            ("a -o out.pdf", "accepted extensions: .svg, .png"),
            ("a -o out", "no extension"),
            ("a -o out.svg --size 10x10", "--size '10x10'"),
            ("a -o out.svg --size big", "WIDTHxHEIGHT"),
            ("a -o out.svg --colour", "unknown option '--colour'"),
            ("a -o out.svg --x-max -5", "--x-max '-5'"),
            ("a -o out.svg --x-max inf", "--x-max 'inf'"),
            ("a -o", "-o needs"),
        ] {
            let e = parse(&args(text)).unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        assert_eq!(parse(&args("a -h")), Ok(Parsed::Help));
    }
}
