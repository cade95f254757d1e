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

/// A change to a `seconds` block.
type Change = Box<dyn Fn(&mut serde_json::Value)>;

/// `rtlat-before.json` with thread 1's `seconds` block changed by `change`, plotted to SVG.
fn plot_seconds(dir: &Scratch, change: impl Fn(&mut serde_json::Value)) -> (Plotted, String) {
    let text = std::fs::read_to_string(data("rtlat-before.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    change(&mut doc["thread"]["1"]["rtlat"]["seconds"]);
    let file = dir.path("seconds.json");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let svg = dir.path("out.svg");
    let _ = std::fs::remove_file(&svg);
    (plot(&[&file, "-o", &svg], &[]), svg)
}

/// Expects a refusal without a panic and without an image.
fn refused(out: &Plotted, svg: &str, expected: &[&str]) {
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    fails(out, expected);
    assert!(!Path::new(svg).exists(), "no image");
}

#[test]
fn per_second_values_no_run_can_have_are_refused_by_key() {
    let dir = Scratch::new("seconds-values");
    let key = "seconds.json: thread.1.rtlat.seconds";
    let period = || vec!["period_s: expected a number of seconds from 0.001 to 4294967295"];
    let set = |k: &'static str, v: serde_json::Value| -> Change {
        Box::new(move |s: &mut serde_json::Value| s[k] = v.clone())
    };
    let entry = |i: usize, k: &'static str, v: serde_json::Value| -> Change {
        Box::new(move |s: &mut serde_json::Value| s["entries"][i][k] = v.clone())
    };
    let cases: Vec<(&str, Change, Vec<&str>)> = vec![
        ("period 0", set("period_s", 0.into()), period()),
        ("period -1", set("period_s", (-1).into()), period()),
        ("period 1e300", set("period_s", 1e300.into()), period()),
        ("period 1e-300", set("period_s", 1e-300.into()), period()),
        (
            "period u64::MAX",
            set("period_s", u64::MAX.into()),
            period(),
        ),
        (
            "t 1e300",
            entry(4, "t", 1e300.into()),
            vec!["entries[4].t: expected seconds from 0 to 4294967295"],
        ),
        (
            "t i64::MAX",
            entry(0, "t", i64::MAX.into()),
            vec!["entries[0].t: expected seconds from 0 to 4294967295"],
        ),
        (
            "t -5",
            entry(0, "t", (-5).into()),
            vec!["entries[0].t: expected seconds from 0 to 4294967295"],
        ),
        (
            "t decreasing",
            entry(3, "t", 1.into()),
            vec![
                "entries[3].t: expected a time after entries[2].t",
                "oldest first",
            ],
        ),
        (
            "t repeated",
            entry(1, "t", 0.into()),
            vec!["entries[1].t: expected a time after entries[0].t"],
        ),
        (
            "window past the longest run",
            entry(4, "t", 4294967295u64.into()),
            vec!["entries[4].t: expected seconds from 0 to 4294967295"],
        ),
        (
            "max u64::MAX",
            entry(2, "max", u64::MAX.into()),
            vec!["entries[2].max: expected ns"],
        ),
        (
            "max without cycles",
            entry(2, "cycles", 0.into()),
            vec!["entries[2].max: expected null in a window of 0 cycles"],
        ),
        (
            "no max with cycles",
            entry(2, "max", serde_json::Value::Null),
            vec!["entries[2].max: expected ns in a window of 666 cycles"],
        ),
        (
            "cycles not a count",
            entry(2, "cycles", (-1).into()),
            vec!["entries[2].cycles: expected a count"],
        ),
    ];
    for (name, change, expected) in &cases {
        let (out, svg) = plot_seconds(&dir, change);
        // The first text follows the file's name and the block's place.
        let first = format!("{key}.{}", expected[0]);
        let mut expected = expected.clone();
        expected[0] = &first;
        assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
        refused(&out, &svg, &expected);
    }
}

#[test]
fn per_second_values_a_run_can_have_are_drawn() {
    let dir = Scratch::new("seconds-drawn");
    let cases: Vec<Change> = vec![
        // Early wake-ups: a negative maximum, down to the smallest latency there is.
        Box::new(|s| s["entries"][2]["max"] = i64::MIN.into()),
        Box::new(|s| s["entries"][2]["max"] = (-9_007_199_254_740_992i64).into()),
        Box::new(|s| s["entries"][2]["max"] = i64::MAX.into()),
        // The longest run's windows.
        Box::new(|s| {
            s["period_s"] = 1_000_000.into();
            for (i, e) in s["entries"].as_array_mut().unwrap().iter_mut().enumerate() {
                e["t"] = (i * 1_000_000).into();
            }
        }),
        Box::new(|s| s["period_s"] = 0.001.into()),
        Box::new(|s| s["entries"] = serde_json::json!([])),
    ];
    for change in &cases {
        let (out, svg) = plot_seconds(&dir, change);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(Path::new(&svg).exists());
    }
}

#[test]
fn a_changed_per_second_value_never_panics() {
    let dir = Scratch::new("seconds-sweep");
    let values: Vec<serde_json::Value> = vec![
        0.into(),
        (-1).into(),
        1e300.into(),
        (-1e300).into(),
        1e-300.into(),
        i64::MIN.into(),
        u64::MAX.into(),
        "1".into(),
        serde_json::Value::Null,
    ];
    let mut places: Vec<(Option<usize>, &str)> = vec![(None, "period_s")];
    for i in [0, 2, 4] {
        places.extend([(Some(i), "t"), (Some(i), "max"), (Some(i), "cycles")]);
    }
    for (entry, key) in places {
        for value in &values {
            let (out, svg) = plot_seconds(&dir, |s| match entry {
                None => s[key] = value.clone(),
                Some(i) => s["entries"][i][key] = value.clone(),
            });
            let what = format!("{entry:?} {key} = {value}: {}", out.stderr);
            assert!(!out.stderr.contains("panicked"), "{what}");
            match out.code {
                0 => assert!(Path::new(&svg).exists(), "{what}"),
                2 => {
                    assert_eq!(out.stderr.lines().count(), 1, "{what}");
                    assert!(out.stderr.contains("thread.1.rtlat.seconds."), "{what}");
                    assert!(!Path::new(&svg).exists(), "{what}");
                }
                _ => panic!("{what}"),
            }
        }
    }
}

#[test]
fn a_result_with_extreme_latencies_is_drawn() {
    // The run's own minimum at the smallest latency there is: the axis spans it.
    let dir = Scratch::new("extreme");
    let text = std::fs::read_to_string(data("rtlat-before.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["thread"]["1"]["rtlat"]["min"] = i64::MIN.into();
    let file = dir.path("extreme.json");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let svg = dir.path("out.svg");
    let out = plot(&[&file, "-o", &svg], &[]);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn malformed_spikes_are_named() {
    let dir = Scratch::new("bad-spikes");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("rtlat-after.json")).unwrap()).unwrap();
    doc["thread"]["1"]["rtlat"]["spikes"] = serde_json::json!([{"latency": 5, "t": "soon"}]);
    let file = dir.path("run.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let svg = dir.path("out.svg");
    fails(
        &plot(&[&file, "-o", &svg], &[]),
        &[
            "run.json: key \"thread.1.rtlat.spikes[0].t\": expected seconds since the \
             thread's start, found a string (\"soon\")",
        ],
    );
    assert!(!Path::new(&svg).exists(), "no image");
}
