//! Helpers shared by the `rtlat audit` integration tests: running the binary, the data trees,
//! and reading its JSON report.

#![allow(dead_code)] // Each test file uses its own subset.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// A tree of rtlat-linux's test data (`vm-2cpu`, `hp-t630`, `dell-optiplex-755`).
pub fn linux_tree(name: &str) -> String {
    format!(
        "{}/rtlat-system/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// One of the four real command lines (`ubuntu-default`, `ubuntu-isolcpus-0-4`, `hp-t630`,
/// `dell-optiplex-755`).
pub fn fixture(name: &str) -> String {
    format!(
        "{}/rtlat-system/tests/data/cmdline/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A tree of the audit's own test data (`ubuntu-8cpu`, `malformed`).
pub fn audit_tree(name: &str) -> String {
    format!("{}/tests/data/audit/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What a run of `rtlat audit ...` gave.
#[derive(Debug)]
pub struct Run {
    /// The exit status.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Standard output as JSON (panics with the output if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\nstderr: {}", self.stdout, self.stderr))
    }
}

/// Runs `rtlat audit ARGS`.
pub fn audit(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_rtlat"))
        .arg("audit")
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .expect("run rtlat");
    Run {
        code: output.status.code().expect("rtlat exited by a signal"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The findings of a JSON report.
pub fn findings(report: &Value) -> &Vec<Value> {
    report["findings"].as_array().expect("findings is an array")
}

/// The (id, severity) pairs of a JSON report, in order.
pub fn pairs(report: &Value) -> Vec<(String, String)> {
    findings(report)
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The findings with id `id`.
pub fn with_id<'a>(report: &'a Value, id: &str) -> Vec<&'a Value> {
    findings(report).iter().filter(|f| f["id"] == id).collect()
}

/// The one finding with id `id` (panics unless there is exactly one).
pub fn one<'a>(report: &'a Value, id: &str) -> &'a Value {
    let found = with_id(report, id);
    assert_eq!(found.len(), 1, "findings {id}: {found:#?}");
    found[0]
}

/// A finding's text: title, remedy and every evidence value, for `contains` checks.
pub fn text(finding: &Value) -> String {
    let mut text = format!(
        "{}\n{}",
        finding["title"].as_str().unwrap_or(""),
        finding["remedy"].as_str().unwrap_or("")
    );
    for evidence in finding["evidence"].as_array().into_iter().flatten() {
        text.push_str(&format!(
            "\n{} = {}",
            evidence["source"].as_str().unwrap_or(""),
            evidence["value"].as_str().unwrap_or("")
        ));
    }
    text
}

/// A temporary file holding `content`, removed on drop.
pub struct TempFile {
    pub path: PathBuf,
}

impl TempFile {
    pub fn new(tag: &str, content: &str) -> TempFile {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("rtlat-audit-{tag}-{}-{n}", std::process::id()));
        std::fs::write(&path, content).expect("write a temporary file");
        TempFile { path }
    }

    pub fn as_str(&self) -> &str {
        self.path.to_str().expect("UTF-8 temporary path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
