//! `rtlat plot` on what it cannot plot: a missing, binary, unknown or malformed file, an rtlat
//! file whose time series is broken, a file with nothing to draw, an output it cannot write,
//! a PNG without a font. Each ends with status 2 and one line on standard error that names
//! the file (or option) and what was wrong, and writes no image.

use crate::plot_support;

use std::path::Path;

use plot_support::{Plotted, Scratch, data, plot};

/// Expects status 2 and one line that contains every one of `expected`.
fn fails(out: &Plotted, expected: &[&str]) {
    assert_eq!(out.code, 2, "stderr: {}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "one line: {}", out.stderr);
    assert!(out.stderr.starts_with("rtlat plot: "), "{}", out.stderr);
    for e in expected {
        assert!(out.stderr.contains(e), "'{e}' in: {}", out.stderr);
    }
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

#[test]
fn files_that_are_not_results_are_named_with_the_reason() {
    let dir = Scratch::new("files");
    let svg = dir.path("out.svg");
    let png = dir.path("out.png");
    let binary = env!("CARGO_BIN_EXE_rtlat");
    let cases: Vec<(String, Vec<&str>)> = vec![
        (
            data("cyclictest-verbose.txt"),
            vec!["cyclictest-verbose.txt: ", "per-sample output"],
        ),
        (data("missing.json"), vec!["missing.json: no such file"]),
        (binary.to_string(), vec![binary, "binary content"]),
        (
            format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR")),
            vec!["Cargo.toml: not a latency result"],
        ),
        (
            format!("{}/tests", env!("CARGO_MANIFEST_DIR")),
            vec!["tests: cannot read"],
        ),
    ];
    for (file, expected) in &cases {
        for output in [&svg, &png] {
            fails(&plot(&[file, "-o", output], &[]), expected);
        }
    }
    // Among good files, the bad one is named.
    let out = plot(
        &[
            &data("jitterdebugger-results.json"),
            &data("cyclictest-verbose.txt"),
            "-o",
            &svg,
        ],
        &[],
    );
    fails(&out, &["cyclictest-verbose.txt: not a latency result"]);
    assert!(
        !out.stderr.contains("jitterdebugger-results.json"),
        "{}",
        out.stderr
    );
    assert!(dir.is_empty(), "no image, no temporary file");
}

#[test]
fn a_broken_time_series_is_named_by_its_place_in_the_file() {
    let dir = Scratch::new("seconds");
    let text = std::fs::read_to_string(data("rtlat-before.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["thread"]["1"]["rtlat"]["seconds"]["entries"][2]["max"] = "late".into();
    let file = dir.path("broken.json");
    std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    fails(
        &plot(&[&file, "-o", &dir.path("out.svg")], &[]),
        &["broken.json: thread.1.rtlat.seconds.entries[2].max: expected ns"],
    );
    assert!(!Path::new(&dir.path("out.svg")).exists());
}

#[test]
fn a_file_without_histogram_or_time_series_has_nothing_to_plot() {
    let dir = Scratch::new("nothing");
    let file = data("cyclictest-2thr-ns.json");
    fails(
        &plot(&[&file, "-o", &dir.path("out.svg")], &[]),
        &[&file, "nothing to plot", "-h N"],
    );
    // Beside a file that has one it is still in the legend, its maxima marked.
    let out = dir.path("mixed.svg");
    let ok = plot(&[&data("cyclictest-h400-2thr.txt"), &file, "-o", &out], &[]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("cyclictest-2thr-ns.json: T1 (CPU 1)  max 436.4 µs (no histogram)"));
    assert!(
        svg.contains("cyclictest-2thr… T1 436.4 µs"),
        "names shortened in markers"
    );
}

#[test]
fn outputs_it_cannot_make() {
    let dir = Scratch::new("outputs");
    let file = data("cyclictest-h400-2thr.txt");
    for (output, expected) in [
        (
            "plot.pdf",
            vec![
                "plot.pdf: cannot write .pdf images",
                "accepted extensions: .svg, .png",
            ],
        ),
        ("plot", vec!["plot: no extension", ".svg, .png"]),
    ] {
        fails(&plot(&[&file, "-o", &dir.path(output)], &[]), &expected);
    }
    fails(
        &plot(&[&file, "-o", "/nonexistent-rtlat-folder/plot.svg"], &[]),
        &["/nonexistent-rtlat-folder/plot.svg: cannot write"],
    );
    fails(&plot(&[&file], &[]), &["no output", "-o OUT.svg"]);
    fails(&plot(&["-o", &dir.path("x.svg")], &[]), &["no result file"]);
    fails(
        &plot(&[&file, "-o", &dir.path("x.svg"), "--log"], &[]),
        &["unknown option '--log'"],
    );
    fails(
        &plot(&[&file, "-o", &dir.path("x.svg"), "--size", "20x20"], &[]),
        &["--size '20x20'"],
    );
    assert!(dir.is_empty());
}

#[test]
fn png_without_a_font_says_what_to_install() {
    let dir = Scratch::new("font");
    let file = data("cyclictest-h400-2thr.txt");
    let png = dir.path("plot.png");
    let out = plot(
        &[&file, "-o", &png],
        &[
            ("RTLAT_FONT", None),
            ("RTLAT_FONT_DIRS", Some("/nonexistent-rtlat-fonts")),
        ],
    );
    fails(
        &out,
        &[
            "PNG output needs a TrueType font",
            "fonts-dejavu-core",
            "RTLAT_FONT",
            ".svg",
        ],
    );
    let out = plot(&[&file, "-o", &png], &[("RTLAT_FONT", Some(&file))]);
    fails(&out, &["RTLAT_FONT=", "not a TrueType/OpenType font"]);
    assert!(dir.is_empty());
    // SVG needs no font.
    let svg = dir.path("plot.svg");
    let out = plot(
        &[&file, "-o", &svg],
        &[
            ("RTLAT_FONT", None),
            ("RTLAT_FONT_DIRS", Some("/nonexistent-rtlat-fonts")),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}
