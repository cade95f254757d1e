//! A binary linked against Cobalt, run on a kernel without Cobalt: it refuses at start with
//! one clear line and exit status 2, no crash, nothing changed (the probe is a read-only
//! `corectl` query). Needs a Cobalt build: `XENO_CONFIG_COBALT=<cobalt prefix>/bin/xeno-config`
//! (`.ci/run` sets it); without it the case is skipped, and says so.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether the running kernel has a Cobalt core.
pub fn kernel_has_cobalt() -> bool {
    Path::new("/proc/xenomai/version").exists()
}

/// The `target` directory this test binary was built in (`target/debug/deps/tests-…`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors()
        .nth(3)
        .expect("target/<profile>/deps/<exe>")
        .to_path_buf()
}

/// The Cobalt build's `xeno-config`, from `XENO_CONFIG_COBALT`.
fn cobalt_config() -> Option<std::ffi::OsString> {
    std::env::var_os("XENO_CONFIG_COBALT").filter(|c| !c.is_empty())
}

/// Why [`linked_binary_refuses_without_the_core`] cannot run here, if it cannot.
pub fn skip_reason() -> Option<String> {
    if cobalt_config().is_none() {
        Some("no Cobalt build (set XENO_CONFIG_COBALT)".into())
    } else if kernel_has_cobalt() {
        Some("this kernel has a Cobalt core".into())
    } else {
        None
    }
}

pub fn linked_binary_refuses_without_the_core() {
    let config = cobalt_config().expect("XENO_CONFIG_COBALT");
    let target = target_dir().join("xenomai-cobalt");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let build = Command::new(cargo)
        .args([
            "build",
            "--offline",
            "--quiet",
            "-p",
            "rtlat-xenomai-ffi",
            "--example",
            "xenomai_latency",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("XENO_CONFIG", &config)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo");
    assert!(build.success(), "building the example against Cobalt");
    let exe = target.join("debug/examples/xenomai_latency");
    let linked = Command::new("readelf")
        .arg("-d")
        .arg(&exe)
        .output()
        .expect("readelf");
    let dynamic = String::from_utf8_lossy(&linked.stdout);
    assert!(
        dynamic.contains("libcobalt.so"),
        "linked against libcobalt:\n{dynamic}"
    );
    let run = Command::new(&exe)
        .args(["1", "100"])
        .output()
        .expect("the example runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "exit status; stderr: {stderr}");
    assert!(
        run.stdout.is_empty(),
        "nothing measured: {}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert_eq!(
        stderr,
        "xenomai_latency: Cobalt core not enabled in this kernel (boot a Xenomai Cobalt kernel, \
         or build with XENO_CONFIG of a Mercury install)\n"
    );
}
