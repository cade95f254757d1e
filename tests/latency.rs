//! `rtlat latency` (and rtlat invoked as `latency`) against Xenomai's real output
//! (`tests/data/xenomai-latency-hs.txt`, `tests/data/xenomai-latency-gnuplot.txt`): the same
//! lines in the same order with the same field widths and separators, the values aside;
//! counts that agree with each other; the options' effects; bad input refused.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use common::{Outcome, TempDir, measuring, rtlat, run, spawn};

const FIXTURE: &str = include_str!("data/xenomai-latency-hs.txt");
const GNUPLOT_FIXTURE: &str = include_str!("data/xenomai-latency-gnuplot.txt");

fn latency(args: &[&str]) -> Outcome {
    let out = common::rtlat_command("latency", args, None, Duration::from_secs(60));
    out.code();
    out
}

/// A right-aligned number (`   19.558`, `-1.234`, `       0`): its width and decimals.
fn number_shape(field: &str) -> Option<String> {
    let t = field.trim_start_matches(' ');
    let digits = t.strip_prefix('-').unwrap_or(t);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let numeric = !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && !(digits.contains('.') && fraction.is_empty());
    numeric.then(|| format!("<{}:{}>", field.len(), fraction.len()))
}

/// An `HSD|` range field, `" %3d -%3d "`: `  18 - 19 `, ` 100 -101 `.
fn range_shape(field: &str) -> Option<String> {
    let (a, b) = field.split_once('-')?;
    let ok = |s: &str| {
        let t = s.trim();
        !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit())
    };
    (ok(a) && ok(b) && field.len() == 10 && field.ends_with(' ') && a.len() == 5)
        .then(|| "<range>".to_string())
}

/// A line with its values replaced by their printf shape: numbers by width and decimals,
/// other digits (times, the period) by `9`.
fn shape(line: &str) -> String {
    line.split('|')
        .map(|field| {
            number_shape(field)
                .or_else(|| range_shape(field))
                .unwrap_or_else(|| {
                    field
                        .chars()
                        .map(|c| if c.is_ascii_digit() { '9' } else { c })
                        .collect()
                })
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// The kind of a line: its first four characters (`RTD|`, `HSD|`, `---|`, `== S`, …).
fn kind(line: &str) -> &str {
    line.get(..4).unwrap_or(line)
}

/// The fixture's shapes by line kind.
fn fixture_shapes() -> BTreeMap<String, BTreeSet<String>> {
    let mut shapes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in FIXTURE.lines() {
        shapes
            .entry(kind(line).to_string())
            .or_default()
            .insert(shape(line));
    }
    shapes
}

/// The order of the output in blocks: consecutive lines of one kind collapse into one.
fn block_order(text: &str) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for line in text.lines() {
        let k = if line.starts_with("HSD|") {
            // HSD blocks by parameter: `HSD|    min|`.
            line.get(..12).unwrap_or(line).to_string()
        } else {
            kind(line).to_string()
        };
        if order.last() != Some(&k) {
            order.push(k);
        }
    }
    order
}

/// The `HSS|` line of `param`: (samples, average).
fn hss(text: &str, param: &str) -> (u64, f64) {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("HSS|    {param}|")))
        .unwrap_or_else(|| panic!("no HSS {param} line in\n{text}"));
    let f: Vec<&str> = line.split('|').collect();
    (f[2].trim().parse().unwrap(), f[3].trim().parse().unwrap())
}

/// The sum of the `HSD|` counts of `param`.
fn hsd_total(text: &str, param: &str) -> u64 {
    text.lines()
        .filter(|l| l.starts_with(&format!("HSD|    {param}|")))
        .map(|l| l.rsplit('|').next().unwrap().trim().parse::<u64>().unwrap())
        .sum()
}

#[test]
fn the_fixture_reads_as_this_test_expects() {
    // The helpers below are checked on Xenomai's own output first.
    let order = block_order(FIXTURE);
    assert_eq!(
        order,
        [
            "== S",
            "== T",
            "== A",
            "warm",
            "RTT|",
            "RTH|",
            "RTD|",
            "---|",
            "HSD|    min|",
            "---|",
            "HSD|    avg|",
            "---|",
            "HSD|    max|",
            "HSH|",
            "HSS|",
            "---|",
            "RTS|"
        ]
    );
    assert_eq!(hss(FIXTURE, "avg").0, hsd_total(FIXTURE, "avg"));
    assert_eq!(hss(FIXTURE, "min").0, 3);
    assert_eq!(
        shape("RTD|     19.558|     33.579|    195.041|       0|     0|     19.558|    195.041"),
        "RTD|<11:3>|<11:3>|<11:3>|<8:0>|<6:0>|<11:3>|<11:3>"
    );
    assert_eq!(
        shape("HSD|    avg| 100 -101 |        1"),
        "HSD|    avg|<range>|<9:0>"
    );
}

#[test]
fn output_has_xenomais_lines_widths_and_order() {
    let _guard = measuring();
    let dir = TempDir::new("latency-hs");
    let plot = dir.join("plot.txt");
    let plot_arg = plot.to_str().unwrap();
    let out = latency(&["-T", "3", "-p", "500", "-h", "-s", "-g", plot_arg]);
    assert_eq!(out.code(), 0, "{}", out.stderr);
    let text = &out.stdout;

    // The same blocks in the same order as Xenomai's.
    assert_eq!(block_order(text), block_order(FIXTURE), "\n{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "== Sampling period: 500 us",
            "== Test mode: periodic user-mode task",
            "== All results in microseconds",
            "warming up..."
        ]
    );
    // Every line has the shape of a line of its kind in the fixture.
    let fixture = fixture_shapes();
    for line in &lines {
        let shapes = fixture
            .get(kind(line))
            .unwrap_or_else(|| panic!("a line Xenomai does not print: {line:?}"));
        assert!(
            shapes.contains(&shape(line)),
            "{line:?} has shape {:?}; Xenomai's are {shapes:?}",
            shape(line)
        );
    }
    // As in Xenomai, -T 3 reports two full seconds (the third is cut by the end of the run).
    let rtd = lines.iter().filter(|l| l.starts_with("RTD|")).count();
    assert_eq!(rtd, 2, "\n{text}");
    assert_eq!(
        hss(text, "min").0,
        rtd as u64,
        "one min per reported second"
    );
    assert_eq!(
        hss(text, "max").0,
        rtd as u64,
        "one max per reported second"
    );
    assert_eq!(hsd_total(text, "avg"), hss(text, "avg").0);
    assert!(
        hss(text, "avg").0 >= 2 * 2000,
        "every latency of the reported seconds"
    );
    let rts = lines.last().unwrap();
    assert!(rts.ends_with("|    00:00:03/00:00:03"), "{rts}");
    // RTD's best and worst columns are the running min and max.
    let rtd_lines: Vec<Vec<f64>> = lines
        .iter()
        .filter(|l| l.starts_with("RTD|"))
        .map(|l| {
            l.split('|')
                .skip(1)
                .map(|f| f.trim().parse().unwrap())
                .collect()
        })
        .collect();
    let mut best = f64::MAX;
    let mut worst = f64::MIN;
    for f in &rtd_lines {
        assert!(f[0] <= f[1] && f[1] <= f[2], "min ≤ avg ≤ max: {f:?}");
        best = best.min(f[0]);
        worst = worst.max(f[2]);
        assert_eq!((f[5], f[6]), (best, worst));
        assert_eq!(f[4], 0.0, "no mode switches on Linux");
    }
    let rts_fields: Vec<&str> = rts.split('|').collect();
    assert_eq!(rts_fields[1].trim().parse::<f64>().unwrap(), best);
    assert_eq!(rts_fields[3].trim().parse::<f64>().unwrap(), worst);

    // The gnuplot file: Xenomai's header, then `x count` rows at cell centres.
    let plot_text = std::fs::read_to_string(&plot).unwrap();
    check_gnuplot(&plot_text, hss(text, "avg").0, 1.0);
    let ours: Vec<&str> = plot_text.lines().take(3).collect();
    let theirs: Vec<&str> = GNUPLOT_FIXTURE.lines().take(3).collect();
    for (a, b) in ours.iter().zip(&theirs) {
        // Shapes after the `# `, so that the numbers' padding is compared.
        let (a_body, b_body) = (a.trim_start_matches("# "), b.trim_start_matches("# "));
        assert_eq!(shape(a_body), shape(b_body), "{a:?} vs Xenomai's {b:?}");
    }
    assert!(ours[0].starts_with("# 00:00:03 (periodic user-mode task, 500 us period"));
    // The overall figures are RTS's.
    let summary: Vec<&str> = ours[2].trim_start_matches("# ").split('|').collect();
    assert_eq!(summary[..5], rts_fields[1..6]);
}

/// Checks a gnuplot file: `#` lines first (the summary, rtlat's version where Xenomai gives
/// its own, the `uname -a` line, the kernel parameters), then rows `x count`: the first
/// edge with 1, cell centres with count + 1, the last edge with 1, `samples` in all.
fn check_gnuplot(text: &str, samples: u64, bucket_us: f64) {
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    assert!(header.len() >= 6, "{text}");
    assert_eq!(
        header[1],
        "# ----lat min|----lat avg|----lat max|-overrun|---msw|"
    );
    assert!(
        header[3].starts_with("# rtlat version: rtlat "),
        "{}",
        header[3]
    );
    assert!(header[4].starts_with("# Linux "), "{}", header[4]);
    assert!(header[4].ends_with(" GNU/Linux"), "{}", header[4]);
    assert!(
        header[5].starts_with("# Kernel parameters: "),
        "{}",
        header[5]
    );
    let rows: Vec<(f64, u64)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (x, n) = l.split_once(' ').unwrap();
            (x.parse().unwrap(), n.parse().unwrap())
        })
        .collect();
    assert!(rows.len() >= 3);
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    assert_eq!((first.1, last.1), (1, 1), "edges count 1");
    let cells = &rows[1..rows.len() - 1];
    assert_eq!(cells[0].0, first.0 + bucket_us / 2.0);
    assert_eq!(last.0, cells[cells.len() - 1].0 + bucket_us / 2.0);
    for pair in cells.windows(2) {
        assert!((pair[1].0 - pair[0].0 - bucket_us).abs() < 1e-9, "{pair:?}");
    }
    let total: u64 = cells.iter().map(|(_, n)| n - 1).sum();
    assert_eq!(total, samples);
}

#[test]
fn the_fixtures_gnuplot_file_passes_the_same_checks() {
    let header: Vec<&str> = GNUPLOT_FIXTURE.lines().take(6).collect();
    // Xenomai names itself where rtlat names itself; the rest of the checks hold as is.
    let ours = GNUPLOT_FIXTURE.replace(
        "# Xenomai version: Xenomai/mercury v3.2.7",
        "# rtlat version: rtlat x",
    );
    assert!(header[3].starts_with("# Xenomai version:"));
    check_gnuplot(&ours, hss(FIXTURE, "avg").0, 1.0);
}

#[test]
fn invoked_as_latency_it_is_a_drop_in() {
    let _guard = measuring();
    let dir = TempDir::new("latency-alias");
    let alias: PathBuf = dir.join("latency");
    std::os::unix::fs::symlink(rtlat(), &alias).unwrap();
    let out = run(&alias, &["-T", "2", "-q"], None, Duration::from_secs(30));
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("running quietly for 2 seconds"),
        "{}",
        out.stderr
    );
    assert_eq!(
        block_order(&out.stdout),
        ["== S", "== T", "== A", "warm", "---|", "RTS|"]
    );
    assert!(
        out.stdout.ends_with("|    00:00:02/00:00:02\n"),
        "{}",
        out.stdout
    );
    // Its messages carry its name.
    let bad = run(&alias, &["-p", "0"], None, Duration::from_secs(10));
    assert_eq!(bad.code(), 2);
    assert!(bad.stderr.starts_with("latency: "), "{}", bad.stderr);
}

#[test]
fn headers_repeat_every_l_lines_and_l_0_drops_them() {
    let _guard = measuring();
    let out = latency(&["-T", "4", "-p", "1000", "-l", "2"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let kinds: Vec<&str> = lines
        .iter()
        .map(|l| kind(l))
        .filter(|k| ["RTT|", "RTH|", "RTD|"].contains(k))
        .collect();
    assert_eq!(
        kinds,
        ["RTT|", "RTH|", "RTD|", "RTD|", "RTT|", "RTH|", "RTD|"],
        "\n{}",
        out.stdout
    );
    // The RTT time is the seconds since the end of the warm-up.
    let times: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("RTT|"))
        .map(|l| &l[6..14])
        .collect();
    assert_eq!(times, ["00:00:01", "00:00:03"]);
    let none = latency(&["-T", "3", "-p", "1000", "-l", "0"]);
    assert!(!none.stdout.contains("RTT|") && !none.stdout.contains("RTH|"));
    assert_eq!(none.stdout.matches("RTD|").count(), 2);
    // Without -h, -s and -g: no histogram or statistics lines.
    assert!(!none.stdout.contains("HS"));
}

#[test]
fn statistics_alone_and_gnuplot_to_standard_output() {
    let _guard = measuring();
    let out = latency(&[
        "-T", "2", "-p", "1000", "-s", "-g", "-", "-B", "500", "-H", "1000",
    ]);
    assert!(!out.stdout.contains("HSD|"), "-s prints no histogram");
    // The gnuplot text comes after the statistics and before the RTS separator.
    let lines: Vec<&str> = out.stdout.lines().collect();
    let position = |p: &dyn Fn(&str) -> bool| lines.iter().position(|l| p(l)).unwrap();
    let last_hss = lines.iter().rposition(|l| l.starts_with("HSS|")).unwrap();
    let first_plot = position(&|l| l.starts_with("# "));
    let separator = position(&|l| l.starts_with("---|---"));
    assert!(
        last_hss < first_plot && first_plot < separator,
        "\n{}",
        out.stdout
    );
    // The plot's rows come between the header and the RTS separator, cells of 0.5 µs.
    let plot: String = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("# "))
        .take_while(|l| !l.starts_with("---|"))
        .map(|l| format!("{l}\n"))
        .collect();
    check_gnuplot(&plot, hss(&out.stdout, "avg").0, 0.5);
}

#[test]
fn ctrl_c_ends_the_run_with_the_summary() {
    let _guard = measuring();
    let running = spawn(&rtlat(), &["latency", "-p", "1000", "-h"], None);
    std::thread::sleep(Duration::from_millis(3200));
    running.signal(libc::SIGINT);
    let out = running.finish(Duration::from_secs(10));
    assert_eq!(out.code(), 0, "{}", out.stderr);
    assert!(out.stdout.contains("RTD|"), "{}", out.stdout);
    let rts = out.stdout.lines().last().unwrap();
    assert!(rts.starts_with("RTS|"), "{rts}");
    // Without -T the planned duration is the actual one.
    let times = rts.rsplit('|').next().unwrap().trim();
    let (actual, planned) = times.split_once('/').unwrap();
    assert_eq!(actual, planned);
}

#[test]
fn m_sets_the_exit_status_past_the_limit() {
    let _guard = measuring();
    let over = latency(&["-T", "2", "-q", "-m", "0"]);
    assert_eq!(over.code(), 1);
    assert!(over.stderr.contains("is above -m 0 µs"), "{}", over.stderr);
    assert!(
        over.stdout.contains("RTS|"),
        "the summary is printed all the same"
    );
    let under = latency(&["-T", "2", "-q", "-m", "1000000"]);
    assert_eq!(under.code(), 0, "{}", under.stderr);
}

#[test]
fn bad_input_is_refused_with_one_line_naming_the_option() {
    for (args, needle) in [
        (&["-p", "0"][..], "-p"),
        (&["-p", "1000001"], "1 to 1000000"),
        (&["-p", "abc"], "-p"),
        (&["-T", "-3"], "-T"),
        (&["-H", "0"], "-H"),
        (&["-B", "0"], "-B"),
        (&["-l", "1.5"], "-l"),
        (&["-P", "0"], "1 to 99"),
        (&["-P", "100"], "1 to 99"),
        (&["-c", "4096"], "-c"),
        (&["-m", "x"], "-m"),
        (&["-t", "1"], "timerbench"),
        (&["-t", "2"], "timerbench"),
        (&["-t", "7"], "-t"),
        (&["-b"], "mode switch"),
        (&["-f"], "-f"),
        (&["-g"], "needs a value"),
        (&["-g", "/nonexistent-dir/plot"], "-g"),
        (&["-x"], "unknown option"),
        (&["5"], "unexpected argument"),
    ] {
        let out = common::rtlat_command("latency", args, None, Duration::from_secs(10));
        assert_eq!(out.code(), 2, "{args:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.starts_with("rtlat latency: ") && out.stderr.contains(needle),
            "{args:?}: {}",
            out.stderr
        );
        assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
}

#[test]
fn help_describes_the_options() {
    let out = latency(&["--help"]);
    assert_eq!(out.code(), 0);
    for option in [
        "-p US", "-T SEC", "-h", "-s", "-g FILE", "-H N", "-B NS", "-l N", "-q", "-c CPU",
        "-P PRIO", "-m MAX",
    ] {
        assert!(out.stdout.contains(option), "{option}");
    }
}
