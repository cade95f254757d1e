//! The drop-in outputs against golden files: every text that `rtlat run` writes as cyclictest
//! and `rtlat latency` writes as Xenomai's `latency`, rendered from fixed figures and compared
//! byte for byte with `tests/data/drop-in/`. The golden files were written by the renderers
//! before the fronts moved onto one session layer (issue 23); a change that alters one byte
//! of what a cyclictest or `latency` parser reads fails here. Where a golden file must change
//! (the real tool changed), `RTLAT_BLESS=1 cargo test -p rtlat --lib drop_in` rewrites it, and
//! the diff is reviewed against the real tool's output (tests/cyclictest_compat.rs,
//! tests/latency.rs run both side by side).

use std::path::PathBuf;

use rtlat_core::cycle::Sample;
use rtlat_core::report::XenomaiLine;
use rtlat_engine::LiveFigures;
use rtlat_engine::run::{LinearReport, ThreadReport, new_run_histogram};
use rtlat_engine::seconds::SecondsSeries;

use super::latency::output as latency;
use super::run::output::cyclictest::{self, LineHeader};

/// Compares `text` with golden file `name`, or writes it under `RTLAT_BLESS=1`.
fn golden(name: &str, text: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/drop-in")
        .join(name);
    if std::env::var_os("RTLAT_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (RTLAT_BLESS=1 writes it)", path.display()));
    if want != text {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(text.lines().count()));
        panic!(
            "{} differs from line {}:\n--- golden\n{}\n--- now\n{}",
            path.display(),
            line + 1,
            want.lines()
                .skip(line)
                .take(3)
                .collect::<Vec<_>>()
                .join("\n"),
            text.lines()
                .skip(line)
                .take(3)
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
}

/// Thread `index` of a run: `latencies` (ns) recorded in cycle order, a `-h` histogram of
/// `buckets` buckets `width_ns` wide, and `extra` overruns.
fn thread(index: usize, latencies: &[i64], buckets: usize, width_ns: u64) -> ThreadReport {
    let mut histogram = new_run_histogram();
    let mut counts = vec![0u64; buckets];
    let (mut overflows, mut underflows, mut overflow_cycles) = (0, 0, Vec::new());
    let mut max_at: Option<(i64, u64)> = None;
    for (cycle, &ns) in latencies.iter().enumerate() {
        histogram.record(ns);
        let bucket = usize::try_from(ns).ok().map(|ns| ns / width_ns as usize);
        match bucket {
            Some(b) if b < buckets => counts[b] += 1,
            _ => {
                overflows += 1;
                underflows += u64::from(ns < 0);
                if overflow_cycles.len() < buckets {
                    overflow_cycles.push(cycle as u64);
                }
            }
        }
        if max_at.is_none_or(|(max, _)| ns > max) {
            max_at = Some((ns, cycle as u64));
        }
    }
    ThreadReport {
        index,
        tid: 4242 + index as i32,
        cpu: Some(index),
        priority: 80 - index as i32,
        interval_us: 1000 + 500 * index as u64,
        last_ns: latencies.last().copied().unwrap_or(0),
        overruns: 2 * index as u64,
        max_at,
        summary: *histogram.summary(),
        histogram: Some(histogram),
        linear: Some(LinearReport {
            width_ns,
            counts,
            overflows,
            underflows,
            overflow_cycles,
        }),
        broke: None,
        minor_faults: 0,
        allocations: 0,
        spikes: Vec::new(),
        spikes_total: 0,
        translation: None,
        reported_overruns: None,
        smis: None,
        seconds: SecondsSeries::default(),
    }
}

/// Two threads' latencies (ns): spread over a few µs, one early wake-up, one beyond the
/// histogram, and sub-µs values that truncate.
fn two_threads(width_ns: u64) -> Vec<ThreadReport> {
    let a: Vec<i64> = (0..200).map(|i| 1_234 + (i * 7_919) % 9_000).collect();
    let mut b: Vec<i64> = (0..150).map(|i| 2_001 + (i * 104_729) % 14_000).collect();
    b[17] = -350;
    b[90] = 45_678;
    vec![thread(0, &a, 12, width_ns), thread(1, &b, 12, width_ns)]
}

fn live(cycles: u64, min_ns: i64, act_ns: i64, max_ns: i64, sum_ns: i64) -> LiveFigures {
    LiveFigures {
        cycles,
        min_ns,
        act_ns,
        max_ns,
        sum_ns,
        overruns: 0,
        smis: 0,
    }
}

/// cyclictest's `T:` lines (µs and `-N`), before the first cycle and after many; the live
/// header and cursor moves; `-v` lines; the SIGUSR1 block.
#[test]
fn cyclictest_lines_are_as_golden() {
    let mut out = String::new();
    for nanoseconds in [false, true] {
        let header = |index, tid| LineHeader {
            index,
            tid,
            priority: 99 - index as i32,
            interval_us: 1000 * (index as u64 + 1),
            smi: false,
        };
        cyclictest::live_header(&mut out, "fifo", "0.52 0.58 0.59 1/234 5678");
        cyclictest::thread_line(&mut out, header(0, 0), &live(0, 0, 0, 0, 0), nanoseconds);
        let figures = live(123_456, 1_499, 2_750, 87_654, 123_456 * 3_141);
        cyclictest::thread_line(&mut out, header(1, 31337), &figures, nanoseconds);
        let big = live(4_000_000_000, 999, 1_000_001, 10_000_000_000, i64::MAX);
        cyclictest::thread_line(&mut out, header(11, 7), &big, nanoseconds);
        cyclictest::cursor_up(&mut out, 3);
        cyclictest::cursor_down(&mut out, 3);
        out.push('\n');
        for (cycle, ns) in [(0u64, 1_999i64), (1, -42), (99_999_999, 123_456_789)] {
            cyclictest::verbose_line(&mut out, 3, cycle, ns, None, nanoseconds);
        }
        let lines = [
            (header(0, 100), live(10, 900, 1_000, 5_000, 20_000)),
            (header(1, 101), live(0, 0, 0, 0, 0)),
        ];
        cyclictest::status_block(&mut out, &lines, nanoseconds);
    }
    golden("cyclictest-lines.txt", &out);
}

/// `--smi`: the `T:` line's SMI column (live, `-q`, SIGUSR1), `-v`'s fourth column and the
/// histogram's `# SMIs:` line (no all-threads column), µs and ns.
#[test]
fn cyclictest_smi_lines_are_as_golden() {
    let mut out = String::new();
    for nanoseconds in [false, true] {
        let header = |index, tid| LineHeader {
            index,
            tid,
            priority: 95,
            interval_us: 1000,
            smi: true,
        };
        let mut figures = live(123_456, 1_499, 2_750, 87_654, 123_456 * 3_141);
        figures.smis = 7;
        cyclictest::thread_line(&mut out, header(0, 31337), &figures, nanoseconds);
        figures.smis = 123_456_789;
        cyclictest::thread_line(&mut out, header(1, 31338), &figures, nanoseconds);
        cyclictest::status_block(&mut out, &[(header(0, 100), figures)], nanoseconds);
        for (cycle, ns, smis) in [
            (0u64, 1_999i64, 0u64),
            (1, -42, 3),
            (99_999_999, 123_456_789, 12_345_678_901),
        ] {
            cyclictest::verbose_line(&mut out, 3, cycle, ns, Some(smis), nanoseconds);
        }
        let mut threads = two_threads(if nanoseconds { 1 } else { 1000 });
        threads[0].smis = Some(4);
        threads[1].smis = Some(123_456);
        cyclictest::histogram(&mut out, &threads, true, nanoseconds, false).unwrap();
    }
    golden("cyclictest-smi.txt", &out);
}

/// `-h`/`-H` histograms: one and two threads, with and without the all-threads column,
/// cyclictest's trailer alone (under the name `cyclictest`) and with rtlat's lines, µs and ns.
#[test]
fn cyclictest_histograms_are_as_golden() {
    let mut out = String::new();
    for (nanoseconds, width_ns) in [(false, 1000), (true, 1)] {
        let threads = two_threads(width_ns);
        for (histofall, extra) in [(false, false), (true, false), (true, true)] {
            out.push_str(&format!(
                "=== -N {nanoseconds} histofall {histofall} extra {extra}\n"
            ));
            cyclictest::histogram(&mut out, &threads, histofall, nanoseconds, extra).unwrap();
            cyclictest::histogram(&mut out, &threads[..1], histofall, nanoseconds, extra).unwrap();
        }
    }
    golden("cyclictest-histograms.txt", &out);
}

/// `-b`'s lines at exit and `--spike`'s report.
#[test]
fn cyclictest_break_and_spike_lines_are_as_golden() {
    let mut out = String::new();
    for nanoseconds in [false, true] {
        let mut threads = two_threads(1000);
        threads[1].broke = Some(Sample {
            cycle: 90,
            latency_ns: 45_678,
            overruns: 0,
            wake_ticks: 1_000_045_678,
        });
        cyclictest::break_lines(&mut out, &threads, threads[1].tid, nanoseconds);
        cyclictest::break_lines(&mut out, &threads, 1, nanoseconds);
        threads[0].spikes = vec![(12_345, 5_000_000_000), (9_999, 1_000_000)];
        threads[0].spikes_total = 5;
        threads[1].spikes = vec![(45_678, 3_000_123_456)];
        threads[1].spikes_total = 1;
        cyclictest::spikes(&mut out, &threads, 2, nanoseconds);
        cyclictest::spikes(&mut out, &threads, 10, nanoseconds);
        cyclictest::spikes(&mut out, &threads[..0], 10, nanoseconds);
    }
    golden("cyclictest-break-spikes.txt", &out);
}

/// Xenomai `latency`'s text: the preamble, `RTT|`, `RTD|` (with negative and large figures),
/// the `-h` blocks and their statistics, `RTS|` (with and without a reported second) and
/// `-m`'s verdict.
#[test]
fn latency_text_is_as_golden() {
    let mut out = String::new();
    latency::preamble(&mut out, 1000);
    latency::rtt(&mut out, 0, 1000, 99);
    latency::rtt(&mut out, 3_725, 100, 1);
    for (min, avg, max, overruns, best, worst) in [
        (1_234, 2_345, 12_345, 0, 1_234, 12_345),
        (-567, 1_001, 999_999, 3, -567, 999_999),
        (0, 0, 0, 12_345_678, -567, 123_456_789_012),
    ] {
        latency::rtd(
            &mut out,
            &XenomaiLine {
                min_ns: min,
                avg_ns: avg,
                max_ns: max,
                overruns,
                mode_switches: 0,
                best_ns: best,
                worst_ns: worst,
            },
        );
    }
    let min = [0, 5, 120, 3, 0, 0, 1];
    let avg = [0, 0, 40, 88, 0, 0, 0];
    let max = [0, 0, 0, 12, 30, 0, 86];
    latency::histogram_block(&mut out, "min", &min);
    latency::histogram_block(&mut out, "avg", &avg);
    latency::histogram_block(&mut out, "max", &max);
    latency::stats_block(&mut out, &min, &avg, &max);
    latency::stats_block(&mut out, &[0; 4], &[0; 4], &[0; 4]);
    let overall = latency::Overall {
        min_ns: -567,
        avg_ns: 1_789,
        max_ns: 999_999,
        overruns: 3,
        mode_switches: 0,
    };
    latency::rts(&mut out, &overall, 61, 3_600);
    let none = latency::Overall {
        min_ns: 10_000_000,
        avg_ns: 0,
        max_ns: -10_000_000,
        overruns: 0,
        mode_switches: 0,
    };
    latency::rts(&mut out, &none, 0, 0);
    latency::max_exceeded(&mut out, 999_999, 500);
    golden("latency.txt", &out);
}
