//! The Xenomai installs the tests run against: the one named by the environment
//! (`XENO_CONFIG`, `XENO_CONFIG_COBALT`), or Xenomai 3.3.1 built from
//! `../shared/third_party/xenomai/` beside the workspace into `<target dir>/xenomai/<core>-3.3.1`.
//!
//! That is the place and the convention of the root crate's tests (`tests/common/xenomai.rs`)
//! and of `.ci/run`, so one Mercury build serves them all: the target dir is the one this test
//! binary was built in, a marker file written after a successful build tells a complete build
//! from one cut short, and a file lock lets one process build while the others wait. The
//! source folder is `RTLAT_XENOMAI_SRC` when set. A failed build is an error with its reason;
//! no source at all is [`missing`], which the runner reports as not run (a failure under
//! `CI=true`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rtlat_xenomai_ffi::Core;

/// The Xenomai release the tests build.
pub const VERSION: &str = "3.3.1";

/// The marker file written into a prefix once its build has completed.
const MARKER: &str = ".rtlat-build-complete";

/// `mercury` or `cobalt`, as `build-xenomai.sh` and `xeno-config --core` name it.
pub fn name(core: Core) -> &'static str {
    match core {
        Core::Mercury => "mercury",
        Core::Cobalt => "cobalt",
    }
}

/// The variable that names an install of `core` (its `xeno-config`).
pub fn variable(core: Core) -> &'static str {
    match core {
        Core::Mercury => "XENO_CONFIG",
        Core::Cobalt => "XENO_CONFIG_COBALT",
    }
}

/// About how long a build takes on the 2-CPU VM (build-xenomai.sh's header).
fn build_time(core: Core) -> &'static str {
    match core {
        Core::Mercury => "about 70 s",
        Core::Cobalt => "about 2.5 min",
    }
}

/// The `target` directory this test binary was built in (`<target>/<profile>/deps/tests-…`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary sits in <target dir>/<profile>/deps/")
        .to_path_buf()
}

/// Where the build of `core` goes: `<target dir>/xenomai/<core>-3.3.1`.
pub fn prefix(core: Core) -> PathBuf {
    target_dir()
        .join("xenomai")
        .join(format!("{}-{VERSION}", name(core)))
}

/// The folder holding Xenomai's tarballs and `build-xenomai.sh`: `RTLAT_XENOMAI_SRC`, else
/// `../shared/third_party/xenomai/` beside the workspace (CI's layout).
fn shared_dir() -> PathBuf {
    std::env::var_os("RTLAT_XENOMAI_SRC")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/third_party/xenomai")
        })
}

/// Whether a missing Xenomai fails the tests (`CI=true` or `CI=1`, as `.ci/run` sets it).
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Why `core` cannot be had here: no install named by the environment and no source to build
/// it from (a complete build already in [`prefix`] counts as had). `None` when it can.
pub fn missing(core: Core) -> Option<String> {
    if configured(core).is_some() || prefix(core).join(MARKER).is_file() {
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
            name(core),
            needed.display(),
            variable(core)
        )
    })
}

/// The `xeno-config` named by the environment for `core`, if any.
pub fn configured(core: Core) -> Option<PathBuf> {
    std::env::var_os(variable(core))
        .filter(|c| !c.is_empty())
        .map(PathBuf::from)
}

/// The `xeno-config` of an install of `core`: the environment's, or that of Xenomai 3.3.1
/// built (once) into [`prefix`]. `Err` with the reason when there is none and none can be
/// built.
pub fn config(core: Core) -> Result<PathBuf, String> {
    match configured(core) {
        Some(config) if config.is_file() => Ok(config),
        Some(config) => Err(format!(
            "{}={} is not a file",
            variable(core),
            config.display()
        )),
        None => build(core),
    }
}

/// Builds Xenomai 3.3.1 with `core` into [`prefix`] unless a complete build is there; its
/// `xeno-config`.
fn build(core: Core) -> Result<PathBuf, String> {
    let shared = shared_dir();
    let script = shared.join("build-xenomai.sh");
    let tarball = shared.join(format!("xenomai-{VERSION}.tar.gz"));
    for needed in [&script, &tarball] {
        if !needed.is_file() {
            return Err(format!(
                "no Xenomai {VERSION} {}: {} is missing (set {}, or provide \
                 ../shared/third_party/xenomai/ beside the workspace, as in CI)",
                name(core),
                needed.display(),
                variable(core)
            ));
        }
    }
    let prefix = prefix(core);
    let config = prefix.join("bin/xeno-config");
    let parent = prefix.parent().expect("the prefix has a parent");
    std::fs::create_dir_all(parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let lock_path = parent.join(format!("{}-{VERSION}.lock", name(core)));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    // Held until `_lock` is dropped: one builder at a time, across threads and processes.
    let _lock = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| format!("cannot lock {}: {e}", lock_path.display()))?;
    if prefix.join(MARKER).is_file() && config.is_file() {
        return Ok(config);
    }
    // A build cut short (no marker) is started again from nothing.
    if prefix.exists() {
        std::fs::remove_dir_all(&prefix)
            .map_err(|e| format!("cannot remove the unfinished {}: {e}", prefix.display()))?;
    }
    eprintln!(
        "building Xenomai {VERSION} ({}) into {} ({}, minutes under load)",
        name(core),
        prefix.display(),
        build_time(core)
    );
    let start = Instant::now();
    // The script's progress goes to stderr: stdout stays the tests' lines.
    let status = Command::new("bash")
        .arg(&script)
        .arg(&tarball)
        .arg(&prefix)
        .arg(name(core))
        .stdout(std::io::stderr())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !status.success() || !config.is_file() {
        return Err(format!(
            "building Xenomai {VERSION} ({}) with {} failed ({status}; its output is above)",
            name(core),
            script.display()
        ));
    }
    std::fs::write(
        prefix.join(MARKER),
        format!("xenomai-{VERSION}.tar.gz {}\n", name(core)),
    )
    .map_err(|e| format!("cannot write {}: {e}", prefix.join(MARKER).display()))?;
    eprintln!(
        "built Xenomai {VERSION} ({}) in {} s",
        name(core),
        start.elapsed().as_secs()
    );
    Ok(config)
}
