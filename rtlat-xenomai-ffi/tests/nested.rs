//! A test binary built without Xenomai (no `XENO_CONFIG` when it was compiled) cannot run the
//! cases that need Xenomai, and does not report them as passing either: it gets Xenomai 3.3.1
//! Mercury (built into `<target dir>/xenomai/mercury-3.3.1` when `XENO_CONFIG` names none,
//! see `xenomai.rs`), and Cobalt when a selected case needs it, then runs this test binary
//! again built against them, in a cargo of its own:
//!
//! ```text
//! XENO_CONFIG=<mercury>/bin/xeno-config XENO_CONFIG_COBALT=<cobalt>/bin/xeno-config \
//!   CARGO_TARGET_DIR=<target dir>/xenomai/tests-mercury RTLAT_XENOMAI_NESTED=1 \
//!   cargo test --offline -p rtlat-xenomai-ffi --test tests -- <the same arguments>
//! ```
//!
//! A target dir of its own: the outer cargo holds the lock on its own. Its output goes
//! through, and its exit status decides. No Xenomai to be had (no install named, no source)
//! is said case by case and passes, except under `CI=true`; a failed build is a failure.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

use rtlat_xenomai_ffi::Core;

use crate::xenomai;

/// Set in the nested run: a nested run built without Xenomai fails instead of nesting again.
const GUARD: &str = "RTLAT_XENOMAI_NESTED";

/// Runs the `cases` (their names) against Xenomai in a nested cargo, forwarding `args`; the
/// Cobalt build is had only when `cobalt` (a selected case needs it). Whether all passed.
///
/// Without a Xenomai to be had ([`xenomai::missing`]) the cases are not run: each is listed as
/// `NOT RUN` with the reason and the summary counts them, and that passes, unless `CI=true`
/// (`.ci/run`), where it fails.
pub fn run(args: &[String], cases: &[&str], cobalt: bool) -> bool {
    let missing = xenomai::missing(Core::Mercury)
        .or_else(|| cobalt.then(|| xenomai::missing(Core::Cobalt)).flatten());
    if let Some(why) = missing
        && std::env::var_os(GUARD).is_none()
    {
        let required = xenomai::required();
        println!();
        for case in cases {
            println!("test {case} ... NOT RUN");
        }
        println!("{}: {why}", if required { "error" } else { "NOT RUN" });
        println!(
            "\ntest result: {}. 0 passed; {} not run for want of Xenomai {}{}",
            if required { "FAILED" } else { "ok" },
            cases.len(),
            xenomai::VERSION,
            if required {
                " (CI=true: the Xenomai cases must run)"
            } else {
                " (README, \"Testing against Xenomai\")"
            }
        );
        return !required;
    }
    match run_nested(args, cobalt) {
        Ok(passed) => passed,
        Err(why) => {
            println!("error: {why}");
            println!("\ntest result: FAILED. 0 passed; {} failed", cases.len());
            false
        }
    }
}

/// The nested run: `Ok(its success)`, or why it could not be started.
fn run_nested(args: &[String], cobalt: bool) -> Result<bool, String> {
    if std::env::var_os(GUARD).is_some() {
        return Err(format!(
            "{GUARD} is set (a nested run) but this binary was built without Xenomai \
             (XENO_CONFIG={:?}): not nesting again",
            std::env::var("XENO_CONFIG").unwrap_or_default()
        ));
    }
    let mercury = xenomai::config(Core::Mercury)?;
    let cobalt = cobalt.then(|| xenomai::config(Core::Cobalt)).transpose()?;
    let target = xenomai::target_dir().join("xenomai").join("tests-mercury");
    let cargo = std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);

    let mut command = Command::new(&cargo);
    command
        .args([
            "test",
            "--offline",
            "-p",
            "rtlat-xenomai-ffi",
            "--test",
            "tests",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(GUARD, "1")
        .env("XENO_CONFIG", &mercury)
        .env("CARGO_TARGET_DIR", &target);
    if !args.is_empty() {
        command.arg("--").args(args);
    }
    let mut shown = format!("XENO_CONFIG={}", mercury.display());
    if let Some(config) = &cobalt {
        command.env("XENO_CONFIG_COBALT", config);
        shown += &format!(" XENO_CONFIG_COBALT={}", config.display());
    }
    println!(
        "\nrunning the cases against Xenomai {}: {shown} CARGO_TARGET_DIR={} cargo test -p \
         rtlat-xenomai-ffi --test tests{}{}",
        xenomai::VERSION,
        target.display(),
        if args.is_empty() { "" } else { " -- " },
        args.join(" ")
    );
    std::io::stdout().flush().ok();
    let status = command
        .status()
        .map_err(|e| format!("cannot run {}: {e}", cargo.display()))?;
    if !status.success() {
        println!("error: the run against Xenomai failed ({status})");
    }
    Ok(status.success())
}
