//! Xenomai `latency`'s text, byte for byte: the `==` preamble, `RTT|`, `RTH|`, `RTD|`, the
//! `HSD|`/`HSH|`/`HSS|` blocks, the final `RTS|` and the gnuplot file. Latencies come in ns
//! and are shown in µs with three decimals by rtlat-core's report types.

use std::fmt::Write as _;

use rtlat_core::report::{Micros3, XenomaiLine};

use rtlat_engine::latency::histogram::{CellStats, cell_stats};

use crate::cli::backend::Backend;

/// The backend that measures, where Xenomai's gnuplot header names its core (`mercury`,
/// `cobalt`).
pub const BACKEND: &str = "linux";

/// What [`BACKEND`] is, in the gnuplot header.
const BACKEND_DETAIL: &str =
    "a SCHED_FIFO thread, clock_nanosleep to absolute CLOCK_MONOTONIC deadlines";

/// The test mode Xenomai names in its headers (`-t 0`, the only one on Linux).
pub const TEST_MODE: &str = "periodic user-mode task";

/// The column header under each `RTT|` line.
pub const RTH: &str =
    "RTH|----lat min|----lat avg|----lat max|-overrun|---msw|---lat best|--lat worst";

/// The separator before each histogram block.
pub const HSD_HEADER: &str = "---|--param|----range-|--samples";

/// The header of the statistics block.
pub const HSH: &str = "HSH|--param|--samples-|--average--|---stddev--";

/// The separator before the `RTS|` line.
pub const RTS_SEPARATOR: &str =
    "---|-----------|-----------|-----------|--------|------|-------------------------";

/// `HH:MM:SS` as Xenomai prints durations (`%.2ld:%.2ld:%.2ld`: hours may take more digits).
pub fn hms(seconds: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The three `==` lines printed first.
pub fn preamble(out: &mut String, period_us: u64) {
    let _ = writeln!(out, "== Sampling period: {period_us} us");
    let _ = writeln!(out, "== Test mode: {TEST_MODE}");
    let _ = writeln!(out, "== All results in microseconds");
}

/// `RTT|  00:00:01  (periodic user-mode task, 500 us period, priority 99)`.
pub fn rtt(out: &mut String, elapsed_s: u64, period_us: u64, priority: i32) {
    let _ = writeln!(
        out,
        "RTT|  {}  ({TEST_MODE}, {period_us} us period, priority {priority})",
        hms(elapsed_s)
    );
}

/// One `RTD|` line.
pub fn rtd(out: &mut String, line: &XenomaiLine) {
    let _ = writeln!(out, "{line}");
}

/// One histogram block (`-h`): the separator, then `HSD|` for each non-empty cell.
pub fn histogram_block(out: &mut String, kind: &str, cells: &[u64]) {
    let _ = writeln!(out, "{HSD_HEADER}");
    for (n, &hits) in cells.iter().enumerate() {
        if hits > 0 {
            let _ = writeln!(out, "HSD|    {kind}| {:3} -{:3} | {hits:8}", n, n + 1);
        }
    }
}

/// A float as C's `%W.3f`, with glibc's `-nan` for Xenomai's 0/0.
fn f3(value: f64, width: usize) -> String {
    if value.is_nan() {
        format!("{:>width$}", "-nan")
    } else {
        format!("{value:width$.3}")
    }
}

/// One `HSS|` line.
pub fn hss(out: &mut String, kind: &str, stats: &CellStats) {
    let _ = writeln!(
        out,
        "HSS|    {kind}| {:9}| {}| {}",
        stats.samples,
        f3(stats.average, 10),
        f3(stats.stddev, 10)
    );
}

/// The statistics block: `HSH|` and the three `HSS|` lines.
pub fn stats_block(out: &mut String, min: &[u64], avg: &[u64], max: &[u64]) {
    let _ = writeln!(out, "{HSH}");
    for (kind, cells) in [("min", min), ("avg", avg), ("max", max)] {
        hss(out, kind, &cell_stats(cells));
    }
}

/// The overall figures, as `RTS|` and the gnuplot header show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overall {
    /// Best (smallest) latency of the reported seconds, ns; Xenomai's 10 ms sentinel when
    /// no second was reported.
    pub min_ns: i64,
    /// Mean of the reported seconds' averages, ns.
    pub avg_ns: i64,
    /// Worst latency of the reported seconds, ns; −10 ms when none was.
    pub max_ns: i64,
    /// Overruns of the reported seconds.
    pub overruns: u64,
    /// Mode switches: always 0 on Linux.
    pub mode_switches: u32,
}

/// The final two lines: the separator and `RTS|…|    HH:MM:SS/HH:MM:SS`.
pub fn rts(out: &mut String, o: &Overall, actual_s: u64, planned_s: u64) {
    let _ = writeln!(out, "{RTS_SEPARATOR}");
    let _ = writeln!(
        out,
        "RTS|{:11}|{:11}|{:11}|{:8}|{:6}|    {}/{}",
        Micros3(o.min_ns),
        Micros3(o.avg_ns),
        Micros3(o.max_ns),
        o.overruns,
        o.mode_switches,
        hms(actual_s),
        hms(planned_s)
    );
}

/// `-m`'s verdict when the worst latency is over the limit: Xenomai's empty line and
/// `Maximum latency exceeded:` line, on standard output after `RTS|`.
pub fn max_exceeded(out: &mut String, worst_ns: i64, limit_us: u64) {
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Maximum latency exceeded: {:11} > {limit_us}",
        Micros3(worst_ns)
    );
}

/// What the gnuplot header says about the machine (Xenomai prints `xeno-config --info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildInfo {
    /// The `uname -a` line: `Linux host 6.1.0 #1 SMP PREEMPT_DYNAMIC … x86_64 GNU/Linux`.
    pub uname: String,
    /// The kernel command line.
    pub cmdline: String,
}

impl BuildInfo {
    /// This machine's, read from `/proc`.
    pub fn live() -> BuildInfo {
        let read = |path: &str| {
            std::fs::read_to_string(path)
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let ostype = read("/proc/sys/kernel/ostype");
        let uname = [
            if ostype.is_empty() {
                "Linux".to_string()
            } else {
                ostype
            },
            read("/proc/sys/kernel/hostname"),
            read("/proc/sys/kernel/osrelease"),
            read("/proc/sys/kernel/version"),
            std::env::consts::ARCH.to_string(),
            "GNU/Linux".to_string(),
        ]
        .join(" ");
        BuildInfo {
            uname,
            cmdline: read("/proc/cmdline"),
        }
    }
}

/// What the gnuplot header says about the run.
#[derive(Debug, Clone, Copy)]
pub struct PlotRun<'a> {
    /// Measured duration (after the warm-up), s.
    pub duration_s: u64,
    /// Sampling period, µs.
    pub period_us: u64,
    /// Priority.
    pub priority: i32,
    /// The overall figures.
    pub overall: &'a Overall,
    /// The machine.
    pub info: &'a BuildInfo,
    /// What measured.
    pub backend: Backend,
}

/// The gnuplot file (`-g`): Xenomai's `#` header (duration and mode, the overall figures,
/// then the five lines of `xeno-config --info` with their keys, here naming rtlat and its
/// backend where Xenomai names its version and core, the kernel and its command line,
/// rtlat's build), then `x count` rows: the histogram's first edge with count
/// 1, each cell from the first non-empty to the last at its centre in µs with count + 1 (so
/// a log scale shows empty cells), the last edge with count 1.
pub fn gnuplot(out: &mut String, cells: &[u64], bucket_ns: u64, run: &PlotRun) {
    let &PlotRun {
        duration_s,
        period_us,
        priority,
        overall,
        info,
        backend,
    } = run;
    let _ = writeln!(
        out,
        "# {} ({TEST_MODE}, {period_us} us period, priority {priority})",
        hms(duration_s)
    );
    let _ = writeln!(
        out,
        "# ----lat min|----lat avg|----lat max|-overrun|---msw|"
    );
    let _ = writeln!(
        out,
        "# {:11}|{:11}|{:11}|{:8}|{:6}|",
        Micros3(overall.min_ns),
        Micros3(overall.avg_ns),
        Micros3(overall.max_ns),
        overall.overruns,
        overall.mode_switches
    );
    // Xenomai's five `xeno-config --info` lines, with the same keys and shapes (scripts
    // read them by key), saying what measured: rtlat on its Linux backend.
    let version = env!("CARGO_PKG_VERSION");
    let _ = match (backend, backend.core()) {
        (Backend::Xenomai, Some(core)) => writeln!(
            out,
            "# Xenomai version: rtlat/xenomai v{version} (Xenomai 3, {core} core: an Alchemy task on its periodic timer, rt_task_wait_period)"
        ),
        _ => writeln!(
            out,
            "# Xenomai version: rtlat/{BACKEND} v{version} (no Xenomai: {BACKEND_DETAIL})"
        ),
    };
    let _ = writeln!(out, "# {}", info.uname);
    let _ = writeln!(out, "# Kernel parameters: {}", info.cmdline);
    let _ = writeln!(
        out,
        "# Compiler: rustc (rtlat {} needs Rust {} or later)",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_RUST_VERSION")
    );
    let _ = writeln!(
        out,
        "# Build args: --backend={} --profile={} --target={}-{}",
        backend.name(),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        std::env::consts::ARCH,
        std::env::consts::OS
    );
    let (Some(start), Some(stop)) = (
        cells.iter().position(|&c| c > 0),
        cells.iter().rposition(|&c| c > 0),
    ) else {
        return;
    };
    let x = |edge_halves: u64| printf_g(edge_halves as f64 * bucket_ns as f64 / 2000.0);
    let _ = writeln!(out, "{} 1", x(2 * start as u64));
    for (n, &hits) in cells.iter().enumerate().take(stop + 1).skip(start) {
        let _ = writeln!(out, "{} {}", x(2 * n as u64 + 1), hits.saturating_add(1));
    }
    let _ = writeln!(out, "{} 1", x(2 * (stop as u64 + 1)));
}

/// `value` as C's `printf("%g")`: six significant digits, trailing zeros removed, exponent
/// form below 1e-4 and from 1e6.
pub fn printf_g(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "nan".into()
        } else if value > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to six significant digits.
    let scientific = format!("{value:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..6).contains(&exponent) {
        let decimals = (5 - exponent) as usize;
        trim(&format!("{value:.decimals$}"))
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_printf() {
        for (value, text) in [
            (18.0, "18"),
            (18.5, "18.5"),
            (196.0, "196"),
            (0.25, "0.25"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (1_000_000.0, "1e+06"),
            (999999.5, "1e+06"),
            (2.0000005, "2"),
            (0.0, "0"),
            (-3.5, "-3.5"),
            (100.125, "100.125"),
        ] {
            assert_eq!(printf_g(value), text, "{value}");
        }
    }

    #[test]
    fn lines_have_xenomais_widths() {
        let mut out = String::new();
        rtt(&mut out, 1, 500, 99);
        histogram_block(&mut out, "avg", &[0, 0, 3]);
        let mut cells = vec![0; 102];
        cells[100] = 1;
        histogram_block(&mut out, "max", &cells);
        hss(
            &mut out,
            "min",
            &CellStats {
                samples: 3,
                average: 18.0 + 1.0 / 3.0,
                stddev: 0.57735,
            },
        );
        hss(
            &mut out,
            "max",
            &CellStats {
                samples: 0,
                average: f64::NAN,
                stddev: 0.0,
            },
        );
        let o = Overall {
            min_ns: 18_180,
            avg_ns: 32_053,
            max_ns: 195_041,
            overruns: 0,
            mode_switches: 0,
        };
        rts(&mut out, &o, 4, 4);
        let expected = "\
RTT|  00:00:01  (periodic user-mode task, 500 us period, priority 99)
---|--param|----range-|--samples
HSD|    avg|   2 -  3 |        3
---|--param|----range-|--samples
HSD|    max| 100 -101 |        1
HSS|    min|         3|     18.333|      0.577
HSS|    max|         0|       -nan|      0.000
---|-----------|-----------|-----------|--------|------|-------------------------
RTS|     18.180|     32.053|    195.041|       0|     0|    00:00:04/00:00:04
";
        assert_eq!(out, expected);
        assert_eq!(hms(100 * 3600 + 61), "100:01:01");
    }

    #[test]
    fn gnuplot_rows_at_cell_centres_with_edges() {
        let mut out = String::new();
        let mut cells = vec![0u64; 200];
        cells[18] = 0;
        cells[19] = 3;
        cells[21] = 1;
        let o = Overall {
            min_ns: -1_234,
            avg_ns: 20_000,
            max_ns: 21_500,
            overruns: 2,
            mode_switches: 0,
        };
        let info = BuildInfo {
            uname: "Linux vm 6.1.0 #1 SMP x86_64 GNU/Linux".into(),
            cmdline: "quiet isolcpus=1".into(),
        };
        let run = PlotRun {
            duration_s: 4,
            period_us: 500,
            priority: 99,
            overall: &o,
            info: &info,
            backend: Backend::Linux,
        };
        gnuplot(&mut out, &cells, 1000, &run);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "# 00:00:04 (periodic user-mode task, 500 us period, priority 99)"
        );
        assert_eq!(
            lines[1],
            "# ----lat min|----lat avg|----lat max|-overrun|---msw|"
        );
        assert_eq!(
            lines[2],
            "#      -1.234|     20.000|     21.500|       2|     0|"
        );
        assert!(lines[3].starts_with("# Xenomai version: rtlat/linux v"));
        assert_eq!(lines[4], "# Linux vm 6.1.0 #1 SMP x86_64 GNU/Linux");
        assert_eq!(lines[5], "# Kernel parameters: quiet isolcpus=1");
        assert!(lines[6].starts_with("# Compiler: "));
        assert!(lines[7].starts_with("# Build args: --backend=linux "));
        assert!(!lines[8].starts_with('#'));
        let data: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.starts_with('#'))
            .collect();
        assert_eq!(data, vec!["19 1", "19.5 4", "20.5 1", "21.5 2", "22 1"]);
        let mut half = String::new();
        gnuplot(&mut half, &cells, 250, &run);
        assert!(
            half.ends_with("4.75 1\n4.875 4\n5.125 1\n5.375 2\n5.5 1\n"),
            "{half}"
        );
    }
}
