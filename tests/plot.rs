//! `rtlat plot` through the binary on real result files: the SVG is well-formed XML with the
//! title, legend entries, maxima and axis descriptions a reader expects; several files share
//! one plot with prefixed legend entries, distinct colours and a pattern per file; files with
//! a time series get the second panel; the PNG is a real PNG of the asked size with text in
//! it; the image is replaced atomically.

use crate::plot_support;

use std::collections::BTreeSet;
use std::path::Path;

use plot_support::{Png, Scratch, Svg, data, parse_xml, plot, plot_ok};

/// The stroke colours of the legend's sample lines (30 px polylines under the panels).
fn curve_colours(svg: &Svg) -> BTreeSet<String> {
    let greys = ["#5A5A5A", "#CDCDCD", "#ECECEC", "#000000", "#FFFFFF"];
    svg.elements
        .iter()
        .filter_map(|e| e.attributes.get("stroke"))
        .filter(|c| c.starts_with('#') && !greys.contains(&c.as_str()))
        .cloned()
        .collect()
}

#[test]
fn the_xml_reader_of_these_tests_is_strict() {
    assert!(parse_xml("<svg a=\"1\"><text>x &amp; y</text><line/></svg>").is_ok());
    for bad in [
        "<svg><text>x</svg>",
        "<svg a=1></svg>",
        "<svg>a & b</svg>",
        "<svg></svg><svg></svg>",
        "<svg a=\"1\" a=\"2\"/>",
        "<svg><text></svg></text>",
        "<svg>",
    ] {
        assert!(parse_xml(bad).is_err(), "{bad}");
    }
}

#[test]
fn cyclictest_histogram_has_title_legend_axes_and_maxima() {
    let dir = Scratch::new("h400");
    let svg_path = dir.path("h400.svg");
    plot_ok(&[&data("cyclictest-h400-2thr.txt"), "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    assert_eq!(svg.size(), (1200, 800), "one panel: the default size");
    assert!(
        svg.has_text("Latency histogram: cyclictest-h400-2thr.txt"),
        "{:?}",
        svg.texts()
    );
    assert!(svg.has_text("cyclictest -h histogram, 2 threads × 4000 samples"));
    // The legend: label and maximum; T1's two overflows are said, not hidden.
    assert!(svg.has_text("T0 max 91 µs"), "{:?}", svg.texts());
    assert!(svg.has_text("T1 max 467 µs (2 over 400 µs not in histogram)"));
    // The maxima marked on the plot.
    assert!(svg.has_text("T0 91 µs") && svg.has_text("T1 467 µs"));
    // The axes: µs on x, a log count axis labelled from 1 by decades.
    assert!(svg.has_text("Latency (µs)") && svg.has_text("Number of samples"));
    for decade in ["1", "10", "100", "1000"] {
        assert!(svg.has_text(decade), "y tick {decade}");
    }
    assert!(!svg.has_text("0.5"), "the floor under 1 has no label");
    assert!(
        svg.has_text("450"),
        "the x axis reaches past the 467 µs maximum"
    );
    assert!(
        !svg.has_text("Time since start (s)"),
        "no time series in -h output"
    );
    assert_eq!(curve_colours(&svg).len(), 2, "one colour per thread");
}

#[test]
fn jitterdebugger_cpus_are_the_curves() {
    let dir = Scratch::new("jd");
    let svg_path = dir.path("jd.svg");
    plot_ok(&[&data("jitterdebugger-results.json"), "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    assert!(
        svg.has_text(
            "Latency histogram: host vm, kernel 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0"
        )
    );
    assert!(svg.has_text(
        "jitterdebugger-results.json: jitterdebugger results.json, 2 CPUs × 2986 samples"
    ));
    assert!(svg.has_text("CPU0 max 83 µs") && svg.has_text("CPU1 max 83 µs"));
    assert!(svg.has_text("CPU0 83 µs") && svg.has_text("CPU1 83 µs"));
}

#[test]
fn xenomai_gnuplot_file_has_its_test_line_and_no_time_panel() {
    let dir = Scratch::new("xg");
    let svg_path = dir.path("xg.svg");
    plot_ok(&[&data("xenomai-latency-gnuplot.txt"), "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    assert!(svg.has_text("Latency histogram: host vm, kernel 6.18.44-fc-v669"));
    let texts = svg.texts().join("\n");
    assert!(
        texts.contains("Xenomai latency (periodic user-mode task, 500 us period, priority 99)"),
        "{texts}"
    );
    assert!(svg.has_text("T0 max 195.0 µs") && svg.has_text("T0 195.0 µs"));
    assert_eq!(svg.size(), (1200, 800));
    assert!(!svg.has_text("Time since start (s)"));
}

#[test]
fn xenomai_output_gets_the_time_panel_from_its_rtd_lines() {
    let dir = Scratch::new("xt");
    let svg_path = dir.path("xt.svg");
    plot_ok(&[&data("xenomai-latency-hs.txt"), "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    assert_eq!(svg.size(), (1200, 1150), "two panels: the taller default");
    assert!(svg.has_text("Time since start (s)"));
    assert!(svg.has_text("Max latency per second (µs)"));
    // Three RTD lines: three points.
    assert_eq!(svg.named("circle").count(), 3);
}

#[test]
fn before_and_after_share_one_plot() {
    let dir = Scratch::new("ba");
    let svg_path = dir.path("ba.svg");
    plot_ok(&[
        &data("rtlat-before.json"),
        &data("rtlat-after.json"),
        "-o",
        &svg_path,
        "--title",
        "mlockall: before & after",
    ]);
    let svg = Svg::read(Path::new(&svg_path));
    assert!(
        svg.has_text("mlockall: before & after"),
        "the title, escaped in XML"
    );
    let texts = svg.texts();
    let line = |prefix: &str| texts.iter().find(|t| t.starts_with(prefix)).cloned();
    let before = line("rtlat-before.json: rtlat run").expect("before's settings line");
    let after = line("rtlat-after.json: rtlat run").expect("after's settings line");
    assert!(
        before.contains("-D 4") && after.contains("-m"),
        "{before} / {after}"
    );

    // Legend entries start with the file's name and end with the maximum, which the file
    // states (in ns: one decimal of µs).
    let runs: Vec<serde_json::Value> = ["rtlat-before.json", "rtlat-after.json"]
        .iter()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(data(f)).unwrap()).unwrap())
        .collect();
    for (file, run) in ["rtlat-before", "rtlat-after"].iter().zip(&runs) {
        for (n, thread) in run["thread"].as_object().unwrap() {
            let max = thread["rtlat"]["max"].as_i64().unwrap();
            let value = if max >= 1_000_000 {
                format!("{} µs", (max as f64 / 1000.0).round())
            } else {
                format!("{:.1} µs", max as f64 / 1000.0)
            };
            let entry = format!("{file}.json: T{n} (CPU {n}) max {value}");
            assert!(svg.has_text(&entry), "legend {entry}: {texts:?}");
            let marker = format!("{file} T{n} {value}");
            assert!(svg.has_text(&marker), "marker {marker}: {texts:?}");
        }
    }
    assert_eq!(curve_colours(&svg).len(), 4, "four curves, four colours");
    // A 22 ms outlier stretches the axis: bins of 10 µs, said on the axis.
    assert!(svg.has_text("Number of samples per 10 µs"), "{texts:?}");

    // The time panel: one point per second with cycles, per thread and file.
    assert!(svg.has_text("Time since start (s)"));
    let points: usize = runs
        .iter()
        .flat_map(|r| r["thread"].as_object().unwrap().values())
        .map(|t| {
            t["rtlat"]["seconds"]["entries"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| !e["max"].is_null())
                .count()
        })
        .sum();
    assert!(points >= 8, "the fixtures have seconds: {points}");
    assert_eq!(svg.named("circle").count(), points);
}

#[test]
fn x_max_shows_the_bulk_and_keeps_the_maxima() {
    let dir = Scratch::new("xmax");
    let svg_path = dir.path("cut.svg");
    plot_ok(&[
        &data("rtlat-before.json"),
        &data("rtlat-after.json"),
        "-o",
        &svg_path,
        "--x-max",
        "150",
    ]);
    let svg = Svg::read(Path::new(&svg_path));
    let texts = svg.texts();
    assert!(
        svg.has_text("140") && !svg.has_text("160"),
        "the axis ends at 150 µs: {texts:?}"
    );
    assert!(svg.has_text("Number of samples"), "1 µs bins again");
    // Maxima past the end: at the edge with an arrow, and in the legend.
    assert!(svg.has_text("rtlat-after T0 21996 µs →"), "{texts:?}");
    assert!(svg.has_text("rtlat-after.json: T0 (CPU 0) max 21996 µs"));
    let out = plot(
        &[&data("rtlat-before.json"), "-o", &svg_path, "--x-max", "-3"],
        &[],
    );
    assert_eq!(out.code, 2);
}

/// A cyclictest `-h 100` output of `threads` threads: thread `t` has 1000 samples at
/// `10 + t` µs and one at `50 + t` µs.
fn many_threads(threads: usize) -> String {
    let mut text = String::from("# /dev/cpu_dma_latency set to 0us\n# Histogram\n");
    for bucket in 0..100 {
        let counts: Vec<String> = (0..threads)
            .map(|t| match bucket {
                b if b == 10 + t => "001000".to_string(),
                b if b == 50 + t => "000001".to_string(),
                _ => "000000".to_string(),
            })
            .collect();
        text += &format!("{bucket:06} {}\n", counts.join("\t"));
    }
    let row = |f: &dyn Fn(usize) -> String| (0..threads).map(f).collect::<Vec<_>>().join(" ");
    text += &format!("# Total: {}\n", row(&|_| "000001001".into()));
    text += &format!("# Min Latencies: {}\n", row(&|t| format!("{:05}", 10 + t)));
    text += &format!("# Avg Latencies: {}\n", row(&|t| format!("{:05}", 10 + t)));
    text += &format!("# Max Latencies: {}\n", row(&|t| format!("{:05}", 50 + t)));
    text += &format!("# Histogram Overflows: {}\n", row(&|_| "00000".into()));
    text += "# Histogram Overflow at cycle number:\n";
    for t in 0..threads {
        text += &format!("# Thread {t}:\n");
    }
    text
}

#[test]
fn many_curves_make_a_taller_image_with_every_legend_entry() {
    let dir = Scratch::new("many");
    // Long names: wide legend entries, few columns, many rows.
    let names = [
        "before-the-kernel-update-on-the-test-bench.txt",
        "after-the-kernel-update-on-the-test-bench.txt",
    ];
    let (a, b) = (dir.path(names[0]), dir.path(names[1]));
    std::fs::write(&a, many_threads(12)).unwrap();
    std::fs::write(&b, many_threads(12)).unwrap();
    let svg_path = dir.path("many.svg");
    plot_ok(&[&a, &b, "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    let (width, height) = svg.size();
    assert_eq!(width, 1200);
    assert!(
        height > 800,
        "the legend of 24 entries makes room: {height}"
    );
    for file in names {
        for t in 0..12 {
            let entry = format!("{file}: T{t} max {} µs", 50 + t);
            assert!(svg.has_text(&entry), "{entry}: {:?}", svg.texts());
        }
    }
    // Beyond ten curves, a thread's colour is its number's; the files differ by pattern.
    assert_eq!(curve_colours(&svg).len(), 10);
    let png_path = dir.path("many.png");
    plot_ok(&[&a, &b, "-o", &png_path]);
    let png = Png::read(Path::new(&png_path));
    assert_eq!(png.width, 1200);
    assert!(png.height > 800, "{}", png.height);
    // Too small for all that: said, not drawn over.
    let small = plot(&[&a, &b, "-o", &svg_path, "--size", "600x400"], &[]);
    assert_eq!(small.code, 2);
    assert_eq!(small.stderr.lines().count(), 1, "{}", small.stderr);
    assert!(small.stderr.contains("too small"), "{}", small.stderr);
}

#[test]
fn dashes_tell_the_files_apart() {
    let dir = Scratch::new("dash");
    let one = dir.path("one.svg");
    let two = dir.path("two.svg");
    let before = data("rtlat-before.json");
    plot_ok(&[&before, "-o", &one]);
    plot_ok(&[&before, &before, "-o", &two]);
    let lines = |p: &str| Svg::read(Path::new(p)).named("polyline").count();
    // The same file again, dashed: its curves come in many more pieces.
    assert!(
        lines(&two) > 2 * lines(&one),
        "{} vs {}",
        lines(&two),
        lines(&one)
    );
    let svg = Svg::read(Path::new(&two));
    let texts = svg.texts();
    assert!(
        texts.iter().any(|t| t.contains("/rtlat-before.json: T0")),
        "files of the same name are told apart by their paths: {texts:?}"
    );
}

#[test]
fn png_is_a_png_of_the_asked_size_with_text() {
    let dir = Scratch::new("png");
    let default = dir.path("h400.png");
    plot_ok(&[&data("cyclictest-h400-2thr.txt"), "-o", &default]);
    let png = Png::read(Path::new(&default));
    assert_eq!((png.width, png.height), (1200, 800));
    // The title is drawn: dark pixels in the top band; and the curves' colours are there.
    assert!(
        png.dark_pixels(10..40) > 500,
        "title text: {}",
        png.dark_pixels(10..40)
    );
    assert!(png.has_colour((31, 119, 180), 12), "T0's blue");
    assert!(png.has_colour((255, 127, 14), 12), "T1's orange");
    assert_eq!(png.pixel(0, 0), (255, 255, 255), "white background");

    let sized = dir.path("sized.PNG");
    plot_ok(&[
        &data("jitterdebugger-results.json"),
        "-o",
        &sized,
        "--size",
        "900x600",
    ]);
    let png = Png::read(Path::new(&sized));
    assert_eq!((png.width, png.height), (900, 600));

    let series = dir.path("series.png");
    plot_ok(&[
        &data("rtlat-before.json"),
        &data("rtlat-after.json"),
        "-o",
        &series,
    ]);
    let png = Png::read(Path::new(&series));
    assert_eq!((png.width, png.height), (1200, 1150));
}

#[test]
fn the_image_is_replaced_atomically() {
    let dir = Scratch::new("atomic");
    let target = dir.path("plot.svg");
    std::fs::write(&target, "old").unwrap();
    plot_ok(&[&data("cyclictest-h400-2thr.txt"), "-o", &target]);
    Svg::read(Path::new(&target));
    let names: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["plot.svg"], "no temporary file is left");
    // A failed plot leaves the old image alone.
    let before = std::fs::read(&target).unwrap();
    let failed = plot(&[&data("cyclictest-verbose.txt"), "-o", &target], &[]);
    assert_eq!(failed.code, 2);
    assert_eq!(std::fs::read(&target).unwrap(), before);
}

#[test]
fn help_says_how() {
    let out = plot(&["--help"], &[]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.starts_with("Usage: rtlat plot FILE"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("fonts-dejavu-core"));
    assert!(
        out.stdout.contains("explained spikes marked there"),
        "{}",
        out.stdout
    );
}

/// rtlat-after.json with what `rtlat run --explain` adds: four spikes of T0 (its maximum at
/// 1.37 s, explained by an IRQ) and T1's maximum, for which no cause was found.
fn with_spikes() -> serde_json::Value {
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("rtlat-after.json")).unwrap()).unwrap();
    let t0 = &mut doc["thread"]["0"]["rtlat"];
    t0["explain"] = serde_json::json!({"threshold_ns": 150000, "threshold_from": "p99.9",
                                       "above_threshold": 4, "left_off": 0, "unseen": 0});
    t0["spikes"] = serde_json::json!([
        {"cycle": 100, "latency": 180745, "t": 0.1, "cpu": 0, "max": false, "causes": []},
        {"cycle": 1081, "latency": 21996003, "t": 1.37, "cpu": 0, "max": true, "causes": [
            {"text": "IRQ 24 (enp1s0) fired 3× on CPU 0: move it with rtlat irq --away-from 0",
             "audit": "irq-affinity"},
            {"text": "ksoftirqd/0 ran 120 µs", "audit": null}]},
        {"cycle": 2500, "latency": 154810, "t": 2.5, "cpu": 0, "max": false, "causes": []},
        {"cycle": 3100, "latency": 1956035, "t": 3.1, "cpu": 0, "max": false, "causes": []},
    ]);
    doc["thread"]["1"]["rtlat"]["spikes"] = serde_json::json!([
        {"cycle": 726, "latency": 13497625, "t": 1.09, "cpu": 1, "max": true, "causes": []}]);
    doc
}

/// The centre of a polygon (a triangle's, as plotters draws it around its point).
fn centre(polygon: &plot_support::Element) -> (f64, f64) {
    let points: Vec<(f64, f64)> = polygon.attributes["points"]
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    let n = points.len() as f64;
    (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    )
}

/// An attribute as a number.
fn number(e: &plot_support::Element, key: &str) -> f64 {
    e.attributes[key].parse().unwrap()
}

#[test]
fn explained_spikes_are_marked_on_the_time_panel() {
    let dir = Scratch::new("spikes");
    std::fs::create_dir_all(dir.0.join("plain")).unwrap();
    std::fs::create_dir_all(dir.0.join("spiky")).unwrap();
    std::fs::create_dir_all(dir.0.join("empty")).unwrap();
    let (plain, spiky, empty) = (
        dir.path("plain/run.json"),
        dir.path("spiky/run.json"),
        dir.path("empty/run.json"),
    );
    std::fs::copy(data("rtlat-after.json"), &plain).unwrap();
    std::fs::write(&spiky, with_spikes().to_string()).unwrap();
    // --explain without a spike (no cycles): nothing to mark.
    let mut doc = with_spikes();
    doc["thread"]["0"]["rtlat"]["spikes"] = serde_json::json!([]);
    doc["thread"]["1"]["rtlat"]["spikes"] = serde_json::json!([]);
    std::fs::write(&empty, doc.to_string()).unwrap();
    for (file, svg) in [
        (&plain, "plain.svg"),
        (&spiky, "spiky.svg"),
        (&empty, "empty.svg"),
    ] {
        plot_ok(&[file, "-o", &dir.path(svg)]);
    }
    let image = |name: &str| std::fs::read(dir.path(name)).unwrap();
    assert!(
        image("plain.svg") == image("empty.svg"),
        "without spikes the image is the same"
    );
    let plain = Svg::read(Path::new(&dir.path("plain.svg")));
    assert_eq!(plain.named("polygon").count(), 0);
    let svg = Svg::read(Path::new(&dir.path("spiky.svg")));

    // One red triangle per spike, nothing else is a polygon.
    let triangles: Vec<(f64, f64)> = svg.named("polygon").map(centre).collect();
    assert_eq!(triangles.len(), 5, "four spikes of T0, one of T1");
    for p in svg.named("polygon") {
        assert_eq!(p.attributes["fill"], "#C80000");
        assert_eq!(p.attributes["points"].split_whitespace().count(), 3);
    }
    // Each at its (t, latency): the axes' scale from T0's points, drawn in the middle of
    // their seconds at their maxima (180.745 µs at 0.5 s, 21996.003 µs at 1.5 s).
    let points: Vec<(f64, f64)> = svg
        .named("circle")
        .filter(|c| c.attributes["fill"] == "#1F77B4")
        .map(|c| (number(c, "cx"), number(c, "cy")))
        .collect();
    assert_eq!(points.len(), 5, "T0's five seconds");
    let (x0, y0) = points[0];
    let (x1, y1) = points[1];
    let x_at = |t: f64| x0 + (t - 0.5) * (x1 - x0);
    let y_at = |us: f64| y0 + (us - 180.745) * (y1 - y0) / (21996.003 - 180.745);
    let spikes_t0 = [
        (0.1, 180.745),
        (1.37, 21996.003),
        (2.5, 154.81),
        (3.1, 1956.035),
    ];
    for (&(x, y), (t, us)) in triangles.iter().zip(spikes_t0) {
        assert!(
            (x - x_at(t)).abs() <= 2.0,
            "{t} s at x {x}, not {}",
            x_at(t)
        );
        assert!(
            (y - y_at(us)).abs() <= 2.0,
            "{us} µs at y {y}, not {}",
            y_at(us)
        );
    }
    assert!((triangles[4].0 - x_at(1.09)).abs() <= 2.0);
    assert!((triangles[4].1 - y_at(13497.625)).abs() <= 2.0);
    // The maxima labelled: the first cause's evidence (the remedy cut), or no cause found;
    // the legend says what the triangles are.
    assert!(
        svg.has_text("T0: IRQ 24 (enp1s0) fired 3× on CPU 0…"),
        "{:?}",
        svg.texts()
    );
    assert!(svg.has_text("T1: no cause found"));
    assert!(svg.has_text("T0 (CPU 0) max 21996 µs, ▲ 4 spikes explained"));
    assert!(svg.has_text("T1 (CPU 1) max 13498 µs, ▲ 1 spike explained"));
    assert!(
        !svg.texts().iter().any(|t| t.contains("ksoftirqd")),
        "the first cause only"
    );
}

#[test]
fn a_spike_label_stays_inside_the_panel() {
    let dir = Scratch::new("spike-label");
    let mut doc = with_spikes();
    // The maximum at the right end, with a cause of many words: the label goes left of
    // the mark, eight words at most.
    doc["thread"]["0"]["rtlat"]["spikes"] = serde_json::json!([
        {"latency": 21996003, "t": 4.99, "cpu": 0, "max": true, "causes": [
            {"text": "one two three four five six seven eight nine ten eleven twelve"}]}]);
    doc["thread"]["1"]["rtlat"]
        .as_object_mut()
        .unwrap()
        .remove("spikes");
    let file = dir.path("run.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let svg_path = dir.path("run.svg");
    plot_ok(&[&file, "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    let label = svg
        .named("text")
        .find(|t| t.text.starts_with("T0: "))
        .expect("the label");
    assert_eq!(label.text, "T0: one two three four five six seven eight…");
    let triangle = centre(svg.named("polygon").next().unwrap());
    assert!(
        number(label, "x") < triangle.0,
        "left of the mark at the right edge"
    );
    assert!(number(label, "x") > 0.0);
}

#[test]
fn timerlat_wake_ups_are_drawn_as_bars_of_their_parts() {
    let dir = Scratch::new("timerlat-parts");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("rtlat-after.json")).unwrap()).unwrap();
    // Two wake-ups as rtlat run --timerlat --explain writes them (the 6.12 guest's numbers).
    doc["thread"]["0"]["rtlat"]["timerlat"] = serde_json::json!({
        "workload": "user", "cpu": 1, "period_us": 1000, "spikes": [
        {"seq": 839, "thread": 403427697, "irq": 6608338, "user": 404251566, "parts": [
            {"part": "irq_delay", "name": "local_timer:236", "ns": 9845},
            {"part": "irq_latency", "name": "", "ns": 6598493},
            {"part": "blocking_thread", "name": "sh:959", "ns": 396008304},
            {"part": "irq_interference", "name": "local_timer:236", "ns": 740201},
            {"part": "irq_duration_and_switch", "name": "", "ns": 70854},
            {"part": "return_to_wait", "name": "", "ns": 823869}]},
        {"seq": 2062, "thread": 6621202, "irq": 6457978, "parts": [
            {"part": "irq_latency", "name": "", "ns": 6457978},
            {"part": "irq_duration_and_switch", "name": "", "ns": 163224}]}]});
    let file = dir.path("run.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let svg_path = dir.path("run.svg");
    plot_ok(&[&file, "-o", &svg_path]);
    let svg = Svg::read(Path::new(&svg_path));
    assert!(
        svg.has_text(
            "The largest wake-ups in the timerlat tracer's parts (share of each wake-up's latency)"
        ),
        "{:?}",
        svg.texts()
    );
    // Largest first, each with its largest part; a wake-up with a user-ret latency is that
    // long (its thread's 403 ms, then 0.8 ms back to its wait).
    let t0 = svg.named("text").position(|t| t.text == "T0 #839 404 ms");
    let t1 = svg
        .named("text")
        .position(|t| t.text == "T0 #2062 6621.2 µs");
    assert!(t0.is_some() && t1.is_some() && t0 < t1, "{:?}", svg.texts());
    assert!(svg.has_text("98.0 % blocking_thread sh:959"));
    assert!(svg.has_text("97.5 % irq_latency"));
    // The key names the kinds drawn, and only those.
    for kind in [
        "irq_delay",
        "irq_latency",
        "blocking_thread",
        "irq_interference",
        "irq_duration_and_switch",
        "return_to_wait",
    ] {
        assert!(svg.has_text(kind), "{kind}");
    }
    assert!(!svg.has_text("softirq_interference"));
}
