//! Xenomai's own `latency`, built with its Mercury core (plain Linux threads: it runs on this
//! kernel), for the side-by-side tests of `rtlat latency`.
//!
//! Xenomai is never vendored: its source tarball and build script live in
//! `../shared/third_party/xenomai/`, beside the repository. [`real_latency`] builds it once
//! into `<target dir>/xenomai/mercury-3.3.1` (the target dir of the rtlat binary under test,
//! so `CARGO_TARGET_DIR` is honoured) and reuses that build afterwards; `.ci/run` builds it
//! the same way before the tests. Several test threads and binaries may ask at once: a file
//! lock lets one build while the others wait, and a marker written after a successful build
//! tells a complete build from one cut short. A missing `../shared` or a failed build fails
//! the test that asked, with the reason: the comparison never passes silently.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The Xenomai release compared with.
pub const VERSION: &str = "3.3.1";

/// The marker file written into the prefix once a build has completed.
pub const MARKER: &str = ".rtlat-build-complete";

/// The folder holding Xenomai's tarballs and `build-xenomai.sh`.
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/third_party/xenomai")
}

/// Where the build goes: `<target dir>/xenomai/mercury-3.3.1`, the target dir being the one
/// the rtlat binary under test was built in (`<target dir>/<profile>/rtlat`).
pub fn prefix() -> PathBuf {
    let rtlat = super::rtlat();
    let target = rtlat
        .parent()
        .and_then(Path::parent)
        .expect("the rtlat binary sits in <target dir>/<profile>/");
    target.join("xenomai").join(format!("mercury-{VERSION}"))
}

/// Xenomai 3.3.1's `latency` (Mercury core), built on first use. Panics with the reason if
/// it cannot be had.
pub fn real_latency() -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BUILT.get_or_init(build_once) {
        Ok(path) => path.clone(),
        Err(why) => panic!("{why}"),
    }
}

fn build_once() -> Result<PathBuf, String> {
    let shared = shared_dir();
    let script = shared.join("build-xenomai.sh");
    let tarball = shared.join(format!("xenomai-{VERSION}.tar.gz"));
    for needed in [&script, &tarball] {
        if !needed.is_file() {
            return Err(format!(
                "{} is missing: the latency tests compare rtlat with Xenomai {VERSION}'s own \
                 `latency`, built from ../shared/third_party/xenomai/ beside the repository \
                 (the CI layout: shared/ next to the checkout); provide it and run the tests again",
                needed.display()
            ));
        }
    }
    let prefix = prefix();
    let latency = prefix.join("bin/latency");
    let parent = prefix.parent().expect("the prefix has a parent");
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let lock_path = parent.join(format!("mercury-{VERSION}.lock"));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    // Held until `lock` is dropped: one builder at a time, across threads and processes.
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if prefix.join(MARKER).is_file() && latency.is_file() {
        return Ok(latency);
    }
    // A build cut short (no marker) is started again from nothing.
    if prefix.exists() {
        std::fs::remove_dir_all(&prefix)
            .map_err(|e| format!("cannot remove the unfinished {}: {e}", prefix.display()))?;
    }
    eprintln!(
        "building Xenomai {VERSION} (Mercury) into {} for the latency comparisons (about 70 s, \
         minutes under load)",
        prefix.display()
    );
    let out = Command::new("bash")
        .arg(&script)
        .arg(&tarball)
        .arg(&prefix)
        .arg("mercury")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{text}");
    if !out.status.success() || !latency.is_file() {
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "building Xenomai {VERSION} (Mercury) with {} failed ({}), so rtlat latency cannot \
             be compared with it:\n{}",
            script.display(),
            out.status,
            tail.join("\n")
        ));
    }
    std::fs::write(
        prefix.join(MARKER),
        format!("xenomai-{VERSION}.tar.gz mercury\n"),
    )
    .map_err(|e| format!("cannot write {}: {e}", prefix.join(MARKER).display()))?;
    Ok(latency)
}
