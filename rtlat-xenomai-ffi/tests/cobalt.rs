//! A binary linked against Cobalt: on a kernel without Cobalt it refuses at start with one
//! clear line and exit status 2, no crash, nothing changed (the probe is a read-only
//! `corectl` query); on a kernel with Cobalt it measures. The Cobalt build is
//! `XENO_CONFIG_COBALT`'s, this binary's own when it was built against Cobalt, or Xenomai
//! 3.3.1 Cobalt built into `<target dir>/xenomai/cobalt-3.3.1` (`xenomai.rs`); none to be had
//! fails the case with the reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use rtlat_xenomai_ffi::{CORE, Core};

use crate::xenomai;

/// Whether the running kernel has a Cobalt core.
pub fn kernel_has_cobalt() -> bool {
    Path::new("/proc/xenomai/version").exists()
}

/// The Cobalt build's `xeno-config`.
fn cobalt_config() -> Result<PathBuf, String> {
    match (CORE, option_env!("RTLAT_XENO_CONFIG")) {
        (Some(Core::Cobalt), Some(own)) if xenomai::configured(Core::Cobalt).is_none() => {
            Ok(own.into())
        }
        _ => xenomai::config(Core::Cobalt),
    }
}

pub fn linked_binary_runs_only_on_a_cobalt_kernel() {
    let config = cobalt_config().unwrap_or_else(|why| panic!("{why}"));
    let target = xenomai::target_dir().join("xenomai-cobalt");
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
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    if kernel_has_cobalt() {
        // The opposite of the refusal: init succeeds and the example measures a second.
        assert_eq!(run.status.code(), Some(0), "exit status; stderr: {stderr}");
        assert!(stdout.starts_with("RTT|"), "{stdout}");
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with("RTD|")).count(),
            1,
            "{stdout}"
        );
        return;
    }
    assert_eq!(run.status.code(), Some(2), "exit status; stderr: {stderr}");
    assert!(stdout.is_empty(), "nothing measured: {stdout}");
    assert_eq!(
        stderr,
        "xenomai_latency: Cobalt core not enabled in this kernel (boot a Xenomai Cobalt kernel, \
         or build with XENO_CONFIG of a Mercury install)\n"
    );
}
