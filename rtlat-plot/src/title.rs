//! The plot's title: a heading with the host and kernel (or the files' names), then one line
//! per file with the run's settings as the file states them.

use rtlat_formats::{Format, Run};

use super::input::Input;

/// The heading and the lines under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Title {
    /// The first line.
    pub heading: String,
    /// One line per file: its settings.
    pub details: Vec<String>,
}

/// The title for `inputs`; `heading` replaces the one made from the files.
pub fn title(inputs: &[Input], heading: Option<&str>) -> Title {
    let what = if inputs.len() > 1 {
        "Latency histograms"
    } else {
        "Latency histogram"
    };
    let machines: Vec<(Option<&str>, Option<&str>)> = inputs
        .iter()
        .map(|i| (i.run.host.as_deref(), i.run.kernel.as_deref()))
        .collect();
    let same_machine = machines.windows(2).all(|w| w[0] == w[1]);
    let machine = machines
        .first()
        .filter(|m| same_machine && (m.0.is_some() || m.1.is_some()))
        .map(|(host, kernel)| machine_text(*host, *kernel));
    let made = match &machine {
        Some(m) => format!("{what}: {m}"),
        None => format!(
            "{what}: {}",
            inputs
                .iter()
                .map(|i| i.name.as_str())
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
    };
    let name_in_heading = machine.is_none() && inputs.len() == 1 && heading.is_none();
    let details = inputs
        .iter()
        .map(|input| {
            let mut parts = vec![settings(&input.run)];
            if machine.is_none() && (input.run.host.is_some() || input.run.kernel.is_some()) {
                parts.push(machine_text(
                    input.run.host.as_deref(),
                    input.run.kernel.as_deref(),
                ));
            }
            parts.extend(samples(&input.run));
            let body = parts.join(", ");
            if name_in_heading {
                body
            } else {
                format!("{}: {body}", input.name)
            }
        })
        .collect();
    Title {
        heading: heading.map_or(made, str::to_string),
        details,
    }
}

fn machine_text(host: Option<&str>, kernel: Option<&str>) -> String {
    match (host, kernel) {
        (Some(h), Some(k)) => format!("host {h}, kernel {k}"),
        (Some(h), None) => format!("host {h}"),
        (None, Some(k)) => format!("kernel {k}"),
        (None, None) => String::new(),
    }
}

/// What ran, as the file states it: the command line, Xenomai's test line, or the format.
fn settings(run: &Run) -> String {
    if let Some(cmdline) = run.setting("cmdline") {
        return cmdline.to_string();
    }
    match run.format {
        Format::XenomaiLatency | Format::XenomaiGnuplot => {
            let mut text = String::from("Xenomai latency");
            if let Some(test) = run.setting("test") {
                text = format!("{text} ({test})");
            }
            if let Some(version) = run.setting("xenomai_version") {
                text = format!("{text}, {version}");
            }
            if let Some(duration) = run.setting("duration") {
                let duration = duration.split('/').next().unwrap_or(duration);
                text = format!("{text}, {duration}");
            }
            text
        }
        other => other.name().to_string(),
    }
}

/// `2 threads × 4000 samples` (or `2 CPUs, 7998 samples` where the counts differ).
fn samples(run: &Run) -> Option<String> {
    let n = run.series.len();
    let what = match (run.format, n) {
        (Format::Jitterdebugger, 1) => "CPU",
        (Format::Jitterdebugger, _) => "CPUs",
        (_, 1) => "thread",
        _ => "threads",
    };
    let cycles: Vec<u64> = run.series.iter().filter_map(|s| s.cycles).collect();
    if n == 0 {
        return None;
    }
    if cycles.len() < n {
        return Some(format!("{n} {what}"));
    }
    if cycles.windows(2).all(|w| w[0] == w[1]) {
        Some(format!("{n} {what} × {} samples", cycles[0]))
    } else {
        Some(format!(
            "{n} {what}, {} samples",
            cycles.iter().fold(0u64, |a, c| a.saturating_add(*c))
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_formats::Series;

    fn input(name: &str, host: Option<&str>, cycles: &[u64]) -> Input {
        let mut run = Run::new(Format::CyclictestJson);
        run.host = host.map(String::from);
        run.kernel = host.map(|_| "6.1.0-rt".to_string());
        run.settings
            .push(("cmdline".into(), "cyclictest -h 400".into()));
        for (i, c) in cycles.iter().enumerate() {
            let mut s = Series::new(format!("T{i}"));
            s.cycles = Some(*c);
            run.series.push(s);
        }
        Input {
            path: name.into(),
            name: name.into(),
            run,
            timelines: Vec::new(),
        }
    }

    #[test]
    fn one_machine_goes_into_the_heading() {
        let t = title(
            &[
                input("a.json", Some("vm"), &[5, 5]),
                input("b.json", Some("vm"), &[5, 4]),
            ],
            None,
        );
        assert_eq!(t.heading, "Latency histograms: host vm, kernel 6.1.0-rt");
        assert_eq!(
            t.details,
            [
                "a.json: cyclictest -h 400, 2 threads × 5 samples",
                "b.json: cyclictest -h 400, 2 threads, 9 samples"
            ]
        );
    }

    #[test]
    fn different_or_unknown_machines_go_into_each_line() {
        let t = title(
            &[
                input("a.json", Some("vm"), &[1]),
                input("b.txt", None, &[1]),
            ],
            None,
        );
        assert_eq!(t.heading, "Latency histograms: a.json vs b.txt");
        assert_eq!(
            t.details[0],
            "a.json: cyclictest -h 400, host vm, kernel 6.1.0-rt, 1 thread × 1 samples"
        );
        let t = title(&[input("b.txt", None, &[1])], Some("Mine"));
        assert_eq!(t.heading, "Mine");
        assert_eq!(
            t.details[0],
            "b.txt: cyclictest -h 400, 1 thread × 1 samples"
        );
        let t = title(&[input("b.txt", None, &[1])], None);
        assert_eq!(t.heading, "Latency histogram: b.txt");
        assert_eq!(t.details[0], "cyclictest -h 400, 1 thread × 1 samples");
    }
}
