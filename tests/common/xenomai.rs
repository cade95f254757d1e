//! Xenomai 3.3.1, built from `../shared/third_party/xenomai/` for the tests: its Mercury core
//! (plain Linux threads: it runs on this kernel) gives Xenomai's own `latency` for the
//! side-by-side tests of `rtlat latency`, and the libraries `rtlat --backend xenomai` runs
//! on; its Cobalt core (the dual-kernel libraries: they link anywhere and refuse to start
//! without the Cobalt kernel) shows that rtlat links against Cobalt and refuses cleanly here.
//!
//! Xenomai is never vendored. [`installed`] builds a core once into
//! `<target dir>/xenomai/<core>-3.3.1` (the target dir of the rtlat binary under test, so
//! `CARGO_TARGET_DIR` is honoured) and reuses that build afterwards; `.ci/run` builds both the
//! same way before the tests. Several test threads and processes may ask at once: a file lock
//! lets one build while the others wait, and a marker written after a successful build tells
//! a complete build from one cut short. [`rtlat_on`] builds rtlat with its `xenomai` feature
//! against a core (a nested `cargo build` into a target dir of its own).
//!
//! # Where Xenomai comes from, and what happens without it
//!
//! Xenomai's source is not a package a user can install, so a clone on its own has none:
//!
//! - `XENO_CONFIG` (Mercury) and `XENO_CONFIG_COBALT` name an installed Xenomai 3.3.1's
//!   `xeno-config`: used as it is (its `bin/latency` beside it);
//! - else `RTLAT_XENOMAI_SRC` names a folder holding `xenomai-3.3.1.tar.gz` and
//!   `build-xenomai.sh` (the layout of `../shared/third_party/xenomai/`, its default);
//! - else, outside CI, each test that needs Xenomai says on the terminal (past the harness's
//!   capture) `NOT RUN: <group>: <why>` and returns, and the test binary names every group
//!   not run in its own summary after libtest's; with `CI=true` (as `.ci/run` sets it) a
//!   missing source fails the test instead. A build that fails always fails the test.
//!
//! A test that needs Xenomai starts with [`here`].

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The Xenomai release built.
pub const VERSION: &str = "3.3.1";

/// The marker file written into the prefix once a build has completed.
pub const MARKER: &str = ".rtlat-build-complete";

/// A Xenomai core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Core {
    /// Xenomai's APIs over plain Linux threads: runs here.
    Mercury,
    /// The dual-kernel libraries: run only on a Cobalt kernel.
    Cobalt,
}

impl Core {
    /// `mercury`, `cobalt`: `build-xenomai.sh`'s argument and `xeno-config --core`.
    pub fn name(self) -> &'static str {
        match self {
            Core::Mercury => "mercury",
            Core::Cobalt => "cobalt",
        }
    }
}

/// The folder holding Xenomai's tarballs and `build-xenomai.sh`: `RTLAT_XENOMAI_SRC`, else
/// `../shared/third_party/xenomai/` beside the repository (CI's layout).
pub fn shared_dir() -> PathBuf {
    std::env::var_os("RTLAT_XENOMAI_SRC")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/third_party/xenomai")
        })
}

/// The variable naming an installed `core`'s `xeno-config`.
fn variable(core: Core) -> &'static str {
    match core {
        Core::Mercury => "XENO_CONFIG",
        Core::Cobalt => "XENO_CONFIG_COBALT",
    }
}

/// Whether a missing Xenomai fails the tests (`CI=true` or `CI=1`, as `.ci/run` sets it).
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Why `core` cannot be had here (no install named, no source to build from), or `None` when
/// it can (installed, built, or buildable).
pub fn missing(core: Core) -> Option<String> {
    if let Some(config) = std::env::var_os(variable(core)).filter(|c| !c.is_empty()) {
        let config = PathBuf::from(config);
        return (!config.is_file())
            .then(|| format!("{}={} is not a file", variable(core), config.display()));
    }
    if prefix(core).join(MARKER).is_file() {
        return None;
    }
    let shared = shared_dir();
    [
        shared.join("build-xenomai.sh"),
        shared.join(format!("xenomai-{VERSION}.tar.gz")),
    ]
    .iter()
    .find(|needed| !needed.is_file())
    .map(|needed| {
        format!(
            "no Xenomai {VERSION} {}: {} is missing (set {} to an installed Xenomai's \
             xeno-config, or RTLAT_XENOMAI_SRC to a folder holding xenomai-{VERSION}.tar.gz and \
             build-xenomai.sh; CI has them in ../shared/third_party/xenomai/)",
            core.name(),
            needed.display(),
            variable(core)
        )
    })
}

/// The test groups not run for want of Xenomai, for the binary's summary.
static NOT_RUN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Whether the test of `group` (e.g. `latency beside Xenomai's`) can have `core`: `true` when
/// it can (it is built on first use by the functions below); `false` when there is no
/// Xenomai here, said once per group on the terminal (`NOT RUN: …`) and in the binary's
/// summary, and the test returns. With `CI=true` a missing Xenomai panics instead.
pub fn here(core: Core, group: &str) -> bool {
    let Some(why) = missing(core) else {
        return true;
    };
    if required() {
        panic!("{why} (CI=true: the Xenomai tests must run)");
    }
    let mut not_run = NOT_RUN.lock().unwrap_or_else(|e| e.into_inner());
    if !not_run.iter().any(|g| g == group) {
        if not_run.is_empty() {
            // Once per binary: the summary after libtest's own.
            // SAFETY: registers a plain `extern "C" fn` with no captured state.
            unsafe { libc::atexit(summary) };
        }
        not_run.push(group.to_string());
        let _ = writeln!(std::io::stderr(), "\nNOT RUN: {group}: {why}");
    }
    false
}

/// At exit: the groups not run, after libtest's summary (which counts them as passed).
extern "C" fn summary() {
    let not_run = NOT_RUN.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(
        std::io::stderr(),
        "NOT RUN for want of Xenomai {VERSION} (counted as passed above): {}; set XENO_CONFIG \
         or RTLAT_XENOMAI_SRC to run them (README, \"Testing against Xenomai\")",
        not_run.join(", ")
    );
}

/// The target dir of the rtlat binary under test (`<target dir>/<profile>/rtlat`).
fn target_dir() -> PathBuf {
    let rtlat = super::rtlat();
    rtlat
        .parent()
        .and_then(Path::parent)
        .expect("the rtlat binary sits in <target dir>/<profile>/")
        .to_path_buf()
}

/// Where a core is built: `<target dir>/xenomai/<core>-3.3.1`.
pub fn prefix(core: Core) -> PathBuf {
    target_dir()
        .join("xenomai")
        .join(format!("{}-{VERSION}", core.name()))
}

/// Xenomai 3.3.1's `latency` (Mercury core), built on first use. Panics with the reason if
/// it cannot be had.
pub fn real_latency() -> PathBuf {
    installed(Core::Mercury).join("bin/latency")
}

/// The prefix of `core`'s install, built on first use. Panics with the reason if it cannot
/// be had.
pub fn installed(core: Core) -> PathBuf {
    static BUILT: [OnceLock<Result<PathBuf, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    match BUILT[core as usize]
        .get_or_init(|| named_install(core).unwrap_or_else(|| build_once(core)))
    {
        Ok(path) => path.clone(),
        Err(why) => panic!("{why}"),
    }
}

/// The install `XENO_CONFIG` (or `XENO_CONFIG_COBALT`) names: the prefix its `bin/xeno-config`
/// sits in; `None` when the variable is unset.
fn named_install(core: Core) -> Option<Result<PathBuf, String>> {
    let config = PathBuf::from(std::env::var_os(variable(core)).filter(|c| !c.is_empty())?);
    Some(
        config
            .canonicalize()
            .ok()
            .and_then(|c| Some(c.parent()?.parent()?.to_path_buf()))
            .ok_or_else(|| {
                format!(
                    "{}={}: not an installed xeno-config (PREFIX/bin/xeno-config)",
                    variable(core),
                    config.display()
                )
            }),
    )
}

/// Holds an exclusive lock on `path` (created if needed) until dropped: one builder at a
/// time, across threads and processes.
fn lock(path: &Path) -> Result<nix::fcntl::Flock<std::fs::File>, String> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| format!("cannot lock {}: {e}", path.display()))
}

fn build_once(core: Core) -> Result<PathBuf, String> {
    let shared = shared_dir();
    let script = shared.join("build-xenomai.sh");
    let tarball = shared.join(format!("xenomai-{VERSION}.tar.gz"));
    for needed in [&script, &tarball] {
        if !needed.is_file() {
            return Err(format!(
                "{} is missing: the Xenomai tests build Xenomai {VERSION} from \
                 RTLAT_XENOMAI_SRC or ../shared/third_party/xenomai/ beside the repository \
                 (the CI layout), or use the install XENO_CONFIG names",
                needed.display()
            ));
        }
    }
    let prefix = prefix(core);
    let config = prefix.join("bin/xeno-config");
    let parent = prefix.parent().expect("the prefix has a parent");
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let _lock = lock(&parent.join(format!("{}-{VERSION}.lock", core.name())))?;
    if prefix.join(MARKER).is_file() && config.is_file() {
        return Ok(prefix);
    }
    // A build cut short (no marker) is started again from nothing.
    if prefix.exists() {
        std::fs::remove_dir_all(&prefix)
            .map_err(|e| format!("cannot remove the unfinished {}: {e}", prefix.display()))?;
    }
    eprintln!(
        "building Xenomai {VERSION} ({}) into {} (about 70 s for Mercury, 2.5 min for Cobalt; \
         minutes more under load)",
        core.name(),
        prefix.display()
    );
    let out = Command::new("bash")
        .arg(&script)
        .arg(&tarball)
        .arg(&prefix)
        .arg(core.name())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{text}");
    if !out.status.success() || !config.is_file() {
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "building Xenomai {VERSION} ({}) with {} failed ({}):\n{}",
            core.name(),
            script.display(),
            out.status,
            tail.join("\n")
        ));
    }
    std::fs::write(
        prefix.join(MARKER),
        format!("xenomai-{VERSION}.tar.gz {}\n", core.name()),
    )
    .map_err(|e| format!("cannot write {}: {e}", prefix.join(MARKER).display()))?;
    Ok(prefix)
}

/// rtlat built with its `xenomai` feature against `core` (`cargo build --bin rtlat
/// --no-default-features --features xenomai` with `XENO_CONFIG` set, into
/// `<target dir>/xenomai/rtlat-<core>`; the outer cargo holds its own target dir), built on
/// first use. Panics with the reason if it cannot be built.
///
/// The builds (Xenomai's, then rtlat's) run holding [`super::measuring`], as a measurement
/// does: two compilers on a small machine would starve the tests that time a run (a stop
/// signal answered within a bound), so those wait for the build, and the build for them.
/// Call it before taking that lock yourself.
pub fn rtlat_on(core: Core) -> PathBuf {
    static BUILT: [OnceLock<Result<PathBuf, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    let built = BUILT[core as usize].get_or_init(|| {
        let _measuring = super::measuring();
        let config = installed(core).join("bin/xeno-config");
        build_rtlat(core, &config)
    });
    match built {
        Ok(path) => path.clone(),
        Err(why) => panic!("{why}"),
    }
}

fn build_rtlat(core: Core, config: &Path) -> Result<PathBuf, String> {
    let target = target_dir()
        .join("xenomai")
        .join(format!("rtlat-{}", core.name()));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!(
        "building rtlat with the xenomai feature against {} into {}",
        config.display(),
        target.display()
    );
    let out = Command::new(&cargo)
        .args([
            "build",
            "--bin",
            "rtlat",
            "--no-default-features",
            "--features",
            "xenomai",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XENO_CONFIG", config)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    let binary = target.join("debug/rtlat");
    if !out.status.success() || !binary.is_file() {
        return Err(format!(
            "cargo build --features xenomai against {} failed ({}):\n{}",
            config.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(binary)
}
