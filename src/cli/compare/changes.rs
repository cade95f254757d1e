//! What changed in the machine's tuning between two runs, from the settings their files
//! state (rtlat's `provenance`, the threads' settings, the `/dev/cpu_dma_latency` value held):
//! the seeds' story in one view, the worst case's change beside `isolcpus=1 added, IRQs 24
//! 25 no longer on the measured CPU, governor ondemand → performance`.

use rtlat_formats::Run;

/// Settings that describe the tuning, besides every `provenance.` one.
const TUNING: [&str; 2] = ["config.threads", "config.cpu_dma_latency_us"];

/// Settings an empty value of which the file leaves out: not stated means none.
const EMPTY_IS_NONE: [&str; 3] = ["isolated_cpus", "nohz_full_cpus", "load"];

/// Settings whose value is a list of words compared as sets (added, removed).
const WORD_LISTS: [&str; 2] = ["kernel_cmdline", "irqs_on_measured_cpus"];

/// One setting that differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Its name as shown (`isolated_cpus`, `governors.cpu1`, `config.threads`).
    pub key: String,
    /// In the first file (`None`: not stated there).
    pub from: Option<String>,
    /// In this one.
    pub to: Option<String>,
    /// In words: `none → 1`, `+isolcpus=1 −quiet`.
    pub text: String,
}

/// The tuning settings of a run, `provenance.` taken off their names.
fn tuning(run: &Run) -> Vec<(String, String)> {
    run.settings
        .iter()
        .filter_map(|(k, v)| {
            let key = k
                .strip_prefix("provenance.")
                .or_else(|| TUNING.contains(&k.as_str()).then_some(k.as_str()))?;
            Some((key.to_owned(), v.clone()))
        })
        .collect()
}

/// The settings that differ from `first` to `run`, in `first`'s order then `run`'s new ones;
/// empty when either file states no tuning (a file of another tool, or of an older rtlat).
pub fn changes(first: &Run, run: &Run) -> Vec<Change> {
    let (a, b) = (tuning(first), tuning(run));
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let find = |list: &[(String, String)], key: &str| {
        list.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let mut keys: Vec<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
    for (k, _) in &b {
        if !keys.contains(&k.as_str()) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|key| {
            let (from, to) = (find(&a, key), find(&b, key));
            (from != to).then(|| Change {
                text: describe(key, from.as_deref(), to.as_deref()),
                key: key.to_owned(),
                from,
                to,
            })
        })
        .collect()
}

/// A change in words: lists of words as what was added and removed, else `from → to`
/// (`none` for an empty CPU list or load, `—` for a setting not read).
fn describe(key: &str, from: Option<&str>, to: Option<&str>) -> String {
    if WORD_LISTS.contains(&key) {
        let words = |v: Option<&str>| -> Vec<String> {
            v.unwrap_or("")
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        };
        let (a, b) = (words(from), words(to));
        let mut parts: Vec<String> = b
            .iter()
            .filter(|w| !a.contains(w))
            .map(|w| format!("+{w}"))
            .collect();
        parts.extend(a.iter().filter(|w| !b.contains(w)).map(|w| format!("−{w}")));
        if parts.is_empty() {
            // The same words in another order.
            return "reordered".to_owned();
        }
        return parts.join(" ");
    }
    // An empty CPU list or load is left out of the file: it means none. Any other setting
    // not stated was not read (a CPU not measured in that run, a file the kernel lacks).
    let missing = if EMPTY_IS_NONE.contains(&key) {
        "none"
    } else {
        "—"
    };
    format!("{} → {}", from.unwrap_or(missing), to.unwrap_or(missing))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_formats::Format;

    fn run(settings: &[(&str, &str)]) -> Run {
        let mut run = Run::new(Format::RtlatJson);
        run.settings = settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        run
    }

    #[test]
    fn the_tuning_that_changed_is_named_the_rest_left_out() {
        let before = run(&[
            ("rtlat_version", "0.1.0"),
            ("config.loops", "0"),
            ("config.threads", "[{\"cpu\":1,\"priority\":80}]"),
            ("provenance.kernel_cmdline", "quiet splash"),
            ("provenance.governors.cpu1", "ondemand"),
            ("provenance.irqs_on_measured_cpus", "24 25 26"),
        ]);
        let after = run(&[
            ("rtlat_version", "0.1.1"),
            ("config.loops", "1000"),
            ("config.threads", "[{\"cpu\":1,\"priority\":95}]"),
            ("provenance.kernel_cmdline", "splash isolcpus=1 nohz_full=1"),
            ("provenance.isolated_cpus", "1"),
            ("provenance.governors.cpu1", "ondemand"),
            ("provenance.irqs_on_measured_cpus", "26"),
        ]);
        let found = changes(&before, &after);
        let shown: Vec<(&str, &str)> = found
            .iter()
            .map(|c| (c.key.as_str(), c.text.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "config.threads",
                    "[{\"cpu\":1,\"priority\":80}] → [{\"cpu\":1,\"priority\":95}]"
                ),
                ("kernel_cmdline", "+isolcpus=1 +nohz_full=1 −quiet"),
                ("irqs_on_measured_cpus", "−24 −25"),
                ("isolated_cpus", "none → 1"),
            ]
        );
        // A file that states no tuning (cyclictest's, an older rtlat's): nothing to say.
        assert!(changes(&run(&[("cmdline", "x")]), &after).is_empty());
        assert!(changes(&before, &before).is_empty());
    }
}
