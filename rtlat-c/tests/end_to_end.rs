//! A C program calling every function of `rtlat.h`, linked against the staticlib as a C
//! project links it, checking exact figures of a known schedule (tests/c/end_to_end.c).

use crate::c::{cc, crate_dir, run, scratch, staticlib};
use std::process::Command;

#[test]
fn c_program_calls_the_api_end_to_end() {
    let exe = scratch().join("end_to_end");
    // `--gc-sections` drops core's unwinding tables, which name `rust_eh_personality`
    // (core is precompiled with `panic = "unwind"`): README, "Linking".
    run(cc()
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c/end_to_end.c"))
        .arg(staticlib())
        .arg("-Wl,--gc-sections")
        .arg("-o")
        .arg(&exe));
    let out = run(&mut Command::new(&exe));
    assert!(out.ends_with("ok\n"), "{out}");
    assert!(
        out.contains(
            "ticks 5 min 999750 max 3000300 jitter 2000300 \
             lateness -100/62/200 (4) overruns 2"
        ),
        "{out}"
    );
}

/// The shared monitor from C threads: a writer ticking, a reader taking reports and one
/// taking windows the whole time; no torn report, every tick in exactly one window
/// (tests/c/shared.c).
#[test]
fn c_threads_share_a_monitor() {
    let exe = scratch().join("shared");
    run(cc()
        .args([
            "-std=c11", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-I",
        ])
        .arg(crate_dir().join("include"))
        .arg(crate_dir().join("tests/c/shared.c"))
        .arg(staticlib())
        .arg("-Wl,--gc-sections")
        .arg("-o")
        .arg(&exe));
    let out = run(&mut Command::new(&exe));
    assert!(out.ends_with("ok\n"), "{out}");
    assert!(out.contains("ticks 200000, in windows 200000"), "{out}");
}

/// The staticlib holds the C API and nothing of std: it is the `no_std` build.
#[test]
fn staticlib_exports_the_api_without_std() {
    let symbols = run(Command::new("nm")
        .args(["-g", "--defined-only"])
        .arg(staticlib()));
    for name in [
        "rtlat_jitter_init",
        "rtlat_jitter_tick",
        "rtlat_jitter_tick_at",
        "rtlat_jitter_report_and_reset",
        "rtlat_shared_jitter_init",
        "rtlat_shared_jitter_tick",
        "rtlat_shared_jitter_tick_at",
        "rtlat_shared_jitter_restart",
        "rtlat_shared_jitter_get_report",
        "rtlat_shared_jitter_report_and_reset",
        "rtlat_jitter_get_report",
        "rtlat_jitter_reset",
    ] {
        assert!(
            symbols.lines().any(|l| l.ends_with(&format!(" T {name}"))),
            "{name} not exported:\n{symbols}"
        );
    }
    assert!(!symbols.contains("std::"), "std linked in");
}
