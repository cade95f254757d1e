//! What the image shows, whatever it is drawn on: the title, one entry per curve (its legend
//! text, colour, pattern, steps, maximum, time series and explained spikes) and the ranges of
//! the axes.

use rtlat_formats::Series;
use rtlat_formats::schema::explain::SpikeRecord;

use super::curve::{self, Step};
use super::input::Input;
use super::style;
use super::time_series::{self, Timeline};
use super::title::{self, Title};

/// Bins a histogram curve may have across the x axis (more would be finer than the pixels).
pub const MAX_BINS: i64 = 4000;
/// Points a time series may have (longer ones are decimated, maxima kept).
pub const MAX_TIME_POINTS: usize = 2000;
/// The log axis' floor: one below the first decade, so that a single sample stands out as a
/// spike instead of lying on the axis.
pub const FLOOR: f64 = 0.5;

/// One thread or CPU of one file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The legend's text: `[file: ]label[ (CPU n)]  max …`.
    pub legend: String,
    /// What the maximum's marker says: the series' label (`T0`, `CPU1`), after the file's
    /// name (without its extension) when there are several files.
    pub label: String,
    /// RGB.
    pub colour: (u8, u8, u8),
    /// The file's line pattern.
    pub dash: Option<(u32, u32)>,
    /// The largest latency, ns, where known.
    pub max_ns: Option<i64>,
    /// `max_ns` as the marker shows it (`467 µs`).
    pub max_text: Option<String>,
    /// The histogram's steps (empty without a histogram).
    pub steps: Vec<Step>,
    /// The per-second maxima, where the file has them.
    pub timeline: Option<Timeline>,
    /// The spikes `rtlat run --explain` explained (none for other files), marked on the
    /// time panel.
    pub spikes: Vec<SpikeMark>,
}

/// One explained spike as the time panel marks it.
#[derive(Debug, Clone, PartialEq)]
pub struct SpikeMark {
    /// When it woke, seconds since the thread's start.
    pub t: f64,
    /// Its latency, ns.
    pub latency_ns: i64,
    /// For the thread's largest latency: the label, `T0: ` and its first cause's first
    /// words, or why there is none.
    pub note: Option<String>,
}

/// Words of a cause the label keeps.
const NOTE_WORDS: usize = 8;

/// The spikes of `s` as marks; `label` names the entry.
fn spike_marks(s: &Series, label: &str) -> Vec<SpikeMark> {
    s.spikes
        .iter()
        // A time no run can have is not drawn (the reader takes any t from 0).
        .filter(|spike| spike.t <= time_series::MAX_TIME_S)
        .map(|spike| SpikeMark {
            t: spike.t,
            latency_ns: spike.latency,
            note: spike
                .max
                .then(|| format!("{label}: {}", first_words(spike))),
        })
        .collect()
}

/// What the label of a thread's largest spike says: its most likely cause's evidence (the
/// words before the remedy, at most [`NOTE_WORDS`]), `no cause found`, or `no verdict`.
fn first_words(spike: &SpikeRecord) -> String {
    if let Some(cause) = spike.causes.as_deref().and_then(|c| c.first()) {
        let evidence = cause.text.split(": ").next().unwrap_or_default().trim();
        let words: Vec<&str> = evidence.split_whitespace().collect();
        let mut text = words[..words.len().min(NOTE_WORDS)].join(" ");
        if words.len() > NOTE_WORDS || evidence.len() < cause.text.trim().len() {
            text.push('…');
        }
        return text;
    }
    match (&spike.unexplained, &spike.causes) {
        (None, Some(_)) => "no cause found".to_string(),
        _ => "no verdict".to_string(),
    }
}

/// Wake-ups the parts panel shows, the largest first.
pub const PARTS_BARS: usize = 5;

/// One wake-up `rtlat run --timerlat --explain` split into the tracer's parts, as the parts
/// panel draws it: a bar of its thread latency, one segment per part.
#[derive(Debug, Clone, PartialEq)]
pub struct PartsBar {
    /// `T0 #839` (after the file's short name with several files).
    pub label: String,
    /// The thread latency, ns: the whole bar.
    pub whole_ns: u64,
    /// `(part, name, ns)`, in the file's order (they add up to `whole_ns`).
    pub parts: Vec<(String, String, u64)>,
}

/// The largest [`PARTS_BARS`] wake-ups in parts of every file, the largest first.
fn parts_bars(inputs: &[Input]) -> Vec<PartsBar> {
    let several = inputs.len() > 1;
    let mut bars: Vec<PartsBar> = inputs
        .iter()
        .flat_map(|input| {
            input.run.series.iter().flat_map(move |s| {
                s.timerlat_spikes.iter().map(move |spike| PartsBar {
                    label: {
                        let seq = spike.seq.map_or_else(String::new, |n| format!(" #{n}"));
                        if several {
                            format!("{} {}{seq}", short_name(&input.name), s.label)
                        } else {
                            format!("{}{seq}", s.label)
                        }
                    },
                    whole_ns: spike.whole_ns(),
                    parts: spike
                        .parts
                        .iter()
                        .map(|p| (p.part.clone(), p.name.clone(), p.ns))
                        .collect(),
                })
            })
        })
        .collect();
    bars.sort_by_key(|b| std::cmp::Reverse(b.whole_ns));
    bars.truncate(PARTS_BARS);
    bars
}

/// The histogram panel's axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistogramAxes {
    /// Latency range, µs.
    pub x_us: (f64, f64),
    /// Top of the count axis (a power of ten).
    pub y_top: f64,
    /// Bin width, µs.
    pub bin_us: f64,
}

/// The time panel's axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeAxes {
    /// End of the time axis, s.
    pub t_end: f64,
    /// Bottom of the latency axis, µs: 0, or below the lowest maximum where one is negative
    /// (early wake-ups), so that every point lies on the panel.
    pub y_bottom_us: f64,
    /// Top of the latency axis, µs.
    pub y_top_us: f64,
    /// Seconds each point covers (the longest of the series).
    pub period_s: f64,
}

/// Everything to draw.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Heading and settings lines.
    pub title: Title,
    /// The curves, file by file, series by series.
    pub entries: Vec<Entry>,
    /// `None` when no file has a histogram.
    pub histogram: Option<HistogramAxes>,
    /// `None` when no file has a time series.
    pub time: Option<TimeAxes>,
    /// The largest wake-ups in the timerlat tracer's parts (empty: no parts panel).
    pub parts: Vec<PartsBar>,
}

/// The figure for `inputs`; `x_max_us` ends the latency axis there. An error when there is
/// nothing to draw.
pub fn build(
    inputs: &[Input],
    heading: Option<&str>,
    x_max_us: Option<f64>,
) -> Result<Figure, String> {
    let several = inputs.len() > 1;
    let series = || inputs.iter().flat_map(|i| i.run.series.iter());
    // The x range: every histogram bucket and every maximum.
    let lows = series()
        .filter_map(|s| s.histogram.as_ref())
        .filter_map(|h| {
            h.buckets()
                .iter()
                .filter(|b| b.count > 0)
                .map(|b| b.low)
                .min()
        });
    let lows = lows.chain(series().filter_map(|s| s.min));
    let highs = series()
        .filter_map(|s| s.histogram.as_ref())
        .filter_map(|h| {
            h.buckets()
                .iter()
                .filter(|b| b.count > 0)
                .map(|b| b.high)
                .max()
        });
    let highs = highs.chain(series().filter_map(|s| s.max));
    let low = lows.min().unwrap_or(0).min(0);
    let mut high = highs.max().unwrap_or(0).max(low + 1000);
    let cut_ns = x_max_us.map(|us| (us * 1000.0).round() as i64);
    if let Some(cut) = cut_ns {
        if cut <= low {
            return Err(format!(
                "--x-max {}: the latency axis starts at {}; give a larger value",
                x_max_us.unwrap_or_default(),
                format_us(low, 1000)
            ));
        }
        high = cut;
    }
    let bin_ns = curve::bin_width_ns(high.saturating_sub(low), MAX_BINS);

    // Every curve its own colour while the palette lasts; beyond, a thread's colour is its
    // number's and the files differ by their pattern only.
    let total: usize = inputs.iter().map(|i| i.run.series.len()).sum();
    let distinct = total <= style::PALETTE.len();
    let mut entries = Vec::new();
    for (file, input) in inputs.iter().enumerate() {
        for (index, s) in input.run.series.iter().enumerate() {
            let steps = s
                .histogram
                .as_ref()
                .map(|h| curve::steps(h, bin_ns))
                .unwrap_or_default();
            let steps = match cut_ns {
                Some(cut) => curve::cut(steps, cut),
                None => steps,
            };
            let timeline = input
                .timelines
                .iter()
                .find(|t| t.label == s.label)
                .map(|t| time_series::decimated(t, MAX_TIME_POINTS));
            let prefix = if several {
                format!("{}: ", input.name)
            } else {
                String::new()
            };
            let label = if several {
                format!("{} {}", short_name(&input.name), s.label)
            } else {
                s.label.clone()
            };
            entries.push(Entry {
                legend: format!("{prefix}{}", legend_text(s)),
                spikes: spike_marks(s, &label),
                label,
                colour: style::colour(if distinct { entries.len() } else { index }),
                dash: style::dash(file),
                max_ns: s.max,
                max_text: s.max.map(|m| format_us(m, s.resolution_ns)),
                steps,
                timeline,
            });
        }
    }

    let histogram = entries
        .iter()
        .any(|e| !e.steps.is_empty())
        .then(|| histogram_axes(&entries, low, high, bin_ns, cut_ns.is_some()));
    let time = time_axes(&entries);
    if time.is_some() {
        // What the marks on the time panel are.
        for entry in entries.iter_mut() {
            match entry.spikes.len() {
                0 => {}
                1 => entry.legend.push_str(", ▲ 1 spike explained"),
                n => entry.legend.push_str(&format!(", ▲ {n} spikes explained")),
            }
        }
    }
    if histogram.is_none() && time.is_none() {
        let names: Vec<&str> = inputs.iter().map(|i| i.path.as_str()).collect();
        return Err(format!(
            "{}: nothing to plot: no histogram and no time series in {} (run cyclictest with \
             -h N, or rtlat run --json)",
            names.join(", "),
            if several { "these files" } else { "the file" }
        ));
    }
    Ok(Figure {
        title: title::title(inputs, heading),
        entries,
        histogram,
        time,
        parts: parts_bars(inputs),
    })
}

fn histogram_axes(
    entries: &[Entry],
    low: i64,
    high: i64,
    bin_ns: i64,
    exact_end: bool,
) -> HistogramAxes {
    // In f64: the span of two i64 latencies may not fit an i64.
    let span = (high as f64 - low as f64) / 1000.0;
    let x_low = if low < 0 {
        low as f64 / 1000.0 - span * 0.02
    } else {
        0.0
    };
    let x_high = if exact_end {
        high as f64 / 1000.0
    } else {
        high as f64 / 1000.0 + span * 0.04 + bin_ns as f64 / 1000.0
    };
    let most = entries
        .iter()
        .flat_map(|e| e.steps.iter().map(|s| s.count))
        .max()
        .unwrap_or(1)
        .max(1);
    // A decade boundary at least twice the highest count: room for the max labels.
    let y_top = 10f64.powf(((most as f64) * 2.0).log10().ceil()).max(10.0);
    HistogramAxes {
        x_us: (x_low, x_high),
        y_top,
        bin_us: bin_ns as f64 / 1000.0,
    }
}

fn time_axes(entries: &[Entry]) -> Option<TimeAxes> {
    let timelines: Vec<&Timeline> = entries.iter().filter_map(|e| e.timeline.as_ref()).collect();
    if timelines.is_empty() {
        return None;
    }
    // Every window and every explained spike lies on the panel.
    let spikes = || entries.iter().flat_map(|e| e.spikes.iter());
    let t_end = timelines
        .iter()
        .filter_map(|t| t.points.last().map(|p| p.0 + t.period_s))
        .chain(spikes().map(|s| s.t))
        .fold(1.0, f64::max);
    let maxima = || {
        timelines
            .iter()
            .flat_map(|t| t.points.iter().filter_map(|p| p.1))
            .chain(spikes().map(|s| s.latency_ns))
    };
    let top_ns = maxima().max().unwrap_or(1000).max(1000);
    let bottom_ns = maxima().min().unwrap_or(0).min(0);
    let period_s = timelines.iter().map(|t| t.period_s).fold(1.0, f64::max);
    Some(TimeAxes {
        t_end,
        y_bottom_us: bottom_ns as f64 / 1000.0 * 1.08,
        y_top_us: top_ns as f64 / 1000.0 * 1.08,
        period_s,
    })
}

/// `T0 (CPU 0)  max 91 µs`, with the samples outside the histogram where there are some.
fn legend_text(s: &Series) -> String {
    let mut text = s.label.clone();
    if let Some(cpu) = s.cpu
        && s.label != format!("CPU{cpu}")
    {
        text.push_str(&format!(" (CPU {cpu})"));
    }
    match s.max {
        Some(max) => text.push_str(&format!("  max {}", format_us(max, s.resolution_ns))),
        None => text.push_str("  max unknown"),
    }
    match &s.histogram {
        None => text.push_str(" (no histogram)"),
        Some(h) => {
            let mut outside = Vec::new();
            if h.underflow() > 0 {
                outside.push(format!(
                    "{} below {}",
                    h.underflow(),
                    format_us(h.underflow_limit(), 1000)
                ));
            }
            if h.overflow() > 0 {
                outside.push(format!(
                    "{} over {}",
                    h.overflow(),
                    format_us(h.overflow_limit(), 1000)
                ));
            }
            if !outside.is_empty() {
                text.push_str(&format!(" ({} not in histogram)", outside.join(", ")));
            }
        }
    }
    text
}

/// A file's name without its extension, at most 16 characters.
fn short_name(name: &str) -> String {
    let stem = std::path::Path::new(name)
        .file_stem()
        .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned());
    if stem.chars().count() > 16 {
        let mut short: String = stem.chars().take(15).collect();
        short.push('…');
        short
    } else {
        stem
    }
}

/// A latency as the plot writes it: whole µs where the file has µs (or the value is over a
/// millisecond), else to a tenth of a µs.
pub fn format_us(ns: i64, resolution_ns: u64) -> String {
    if resolution_ns >= 1000 || ns.unsigned_abs() >= 1_000_000 {
        format!("{} µs", (ns as f64 / 1000.0).round() as i64)
    } else {
        format!("{:.1} µs", ns as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_microseconds() {
        assert_eq!(format_us(467_000, 1000), "467 µs");
        assert_eq!(format_us(429_258, 1), "429.3 µs");
        assert_eq!(format_us(2_623_007, 1), "2623 µs");
        assert_eq!(format_us(-1_500, 1), "-1.5 µs");
    }

    #[test]
    fn a_spike_label_is_its_first_cause_s_evidence() {
        use rtlat_formats::schema::explain::CauseRecord;
        let mut spike = SpikeRecord {
            cycle: None,
            latency: 1,
            t: 0.0,
            cpu: None,
            max: true,
            causes: Some(Vec::new()),
            unexplained: None,
        };
        assert_eq!(first_words(&spike), "no cause found");
        spike.unexplained = Some("the evidence was no longer kept".into());
        assert_eq!(first_words(&spike), "no verdict");
        let cause = |text: &str| CauseRecord {
            text: text.into(),
            audit: None,
            score: None,
        };
        spike.causes = Some(vec![cause("IRQ 24 fired 3× on CPU 2: move it"), cause("b")]);
        assert_eq!(first_words(&spike), "IRQ 24 fired 3× on CPU 2…");
        spike.causes = Some(vec![cause("a CPU frequency change")]);
        assert_eq!(first_words(&spike), "a CPU frequency change");
        spike.causes = Some(vec![cause("1 2 3 4 5 6 7 8 9")]);
        assert_eq!(first_words(&spike), "1 2 3 4 5 6 7 8…");
    }

    #[test]
    fn short_file_names() {
        assert_eq!(short_name("before.json"), "before");
        assert_eq!(short_name("cyclictest-h400-2thr.txt"), "cyclictest-h400…");
    }
}
