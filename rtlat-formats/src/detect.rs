//! Which format a text is in, from its content alone (never from a file name).
//!
//! | content | format |
//! | --- | --- |
//! | JSON with an `"rtlat"` object at the top or in a thread | [`Format::RtlatJson`] |
//! | JSON with `"rt_test_version:"` (or `"thread"` and `"cmdline:"`) | [`Format::CyclictestJson`] |
//! | JSON with `"version"` and a `"cpu"` object | [`Format::Jitterdebugger`] |
//! | `# Histogram` after an optional `# /dev/cpu_dma_latency …` line | [`Format::CyclictestHist`] |
//! | first line `== …`, `warming up…` or `RTT|`/`RTH|`/`RTD|`/`RTS|`/`HSD|` … | [`Format::XenomaiLatency`] |
//! | `#` lines, then rows of two numbers | [`Format::XenomaiGnuplot`] |

use serde_json::Value;

use super::error::{FormatError, shorten};
use super::model::{Format, Run};
use super::schema::{Field, cyclictest, jitterdebugger as jitterdebugger_schema};
use super::{
    cyclictest_hist, cyclictest_json, jitterdebugger, json, rtlat_json, xenomai_gnuplot,
    xenomai_latency,
};

/// The format of `text`, or why it is none rtlat reads. JSON that does not parse is a
/// [`FormatError::Json`] naming line and column.
pub fn detect(text: &str) -> Result<Format, FormatError> {
    detect_unmarked(without_byte_order_mark(text))
}

/// `text` without the one UTF-8 byte order mark some editors put first.
fn without_byte_order_mark(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// [`detect`] on a text whose byte order mark, if any, is already removed.
fn detect_unmarked(text: &str) -> Result<Format, FormatError> {
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(FormatError::Empty);
    }
    if trimmed.starts_with('{') {
        return json_format(json::parse(text)?);
    }
    if cyclictest_hist::looks_like(text) {
        return Ok(Format::CyclictestHist);
    }
    let first_line = trimmed.lines().next().unwrap_or("").trim();
    if xenomai_latency::looks_like(first_line) {
        return Ok(Format::XenomaiLatency);
    }
    if xenomai_gnuplot::looks_like(text) {
        return Ok(Format::XenomaiGnuplot);
    }
    Err(FormatError::Unknown {
        first_line: shorten(first_line, 60),
        hint: hint(trimmed),
    })
}

/// Which JSON format `value` is.
fn json_format(value: Value) -> Result<Format, FormatError> {
    let Some(top) = value.as_object() else {
        return Err(FormatError::UnknownJson { keys: Vec::new() });
    };
    let keys: Vec<String> = top.keys().take(8).cloned().collect();
    let Field::Valid(doc) = Field::<cyclictest::Document>::from_value(value.clone()) else {
        return Err(FormatError::UnknownJson { keys });
    };
    if rtlat_json::is_rtlat(&doc) {
        return Ok(Format::RtlatJson);
    }
    if !doc.rt_test_version.is_absent() || (!doc.cmdline.is_absent() && !doc.thread.is_absent()) {
        return Ok(Format::CyclictestJson);
    }
    match Field::<jitterdebugger_schema::Document>::from_value(value) {
        Field::Valid(doc) if jitterdebugger::is_jitterdebugger(&doc) => Ok(Format::Jitterdebugger),
        _ => Err(FormatError::UnknownJson { keys }),
    }
}

/// What an unknown text looks like, when rtlat recognises it.
fn hint(text: &str) -> Option<&'static str> {
    let verbose = text
        .lines()
        .filter(|l| {
            let parts: Vec<&str> = l.split(':').map(str::trim).collect();
            parts.len() == 3 && parts.iter().all(|p| p.parse::<i64>().is_ok())
        })
        .take(3)
        .count();
    if verbose == 3 {
        return Some(
            "this looks like cyclictest -v per-sample output, which rtlat does not read: \
             run cyclictest with -h N or --json",
        );
    }
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("T:") && l.contains("Max:"))
    {
        return Some(
            "this looks like cyclictest's summary lines, which have no histogram: run \
             cyclictest with -h N or --json",
        );
    }
    None
}

/// Detects the format of `text` and reads it.
pub fn parse(text: &str) -> Result<Run, FormatError> {
    let text = without_byte_order_mark(text);
    parse_as(detect_unmarked(text)?, text)
}

/// Reads `text` as `format`.
pub fn parse_as(format: Format, text: &str) -> Result<Run, FormatError> {
    match format {
        Format::RtlatJson => rtlat_json::parse(text),
        Format::CyclictestJson => cyclictest_json::parse(text),
        Format::CyclictestHist => cyclictest_hist::parse(text),
        Format::Jitterdebugger => jitterdebugger::parse(text),
        Format::XenomaiLatency => xenomai_latency::parse(text),
        Format::XenomaiGnuplot => xenomai_gnuplot::parse(text),
    }
}
