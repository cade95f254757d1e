//! `--textfile PATH`: the exposition for node_exporter's textfile collector, in the
//! Prometheus text format it reads, written every window and at the end through rtlat's
//! atomic writer (an exclusive temporary file in the same folder, renamed over the old one:
//! the collector never reads half a file; see README, "Running as root").

use std::path::Path;

use super::metrics::Metrics;

/// Writes the metrics to `path`; an error is one line naming the file.
pub fn write(path: &Path, metrics: &Metrics) -> Result<(), String> {
    rtlat::atomic_file::write_atomically(path, metrics.prometheus_text().as_bytes())
        .map_err(|e| format!("cannot write the --textfile file '{}': {e}", path.display()))
}
