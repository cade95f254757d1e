//! `include/rtlat.h` against the Rust definitions: a probe of static assertions, generated
//! here from `size_of`/`align_of`/`offset_of` and the Rust constants, must compile as C11
//! and as C++11 with every warning an error.

use crate::c::{cc, crate_dir, run, scratch};
use rtlat_c::{
    RtlatJitterMonitor, RtlatJitterReport, RtlatJitterTickResult, RtlatSharedJitterMonitor,
};
use std::fmt::Write as _;
use std::mem::{align_of, offset_of, size_of};
use std::process::Command;

/// `CHECK(<C expression> == <Rust value>)` lines.
struct Probe(String);

impl Probe {
    fn check(&mut self, c: &str, rust: impl std::fmt::Display) {
        writeln!(self.0, "CHECK({c} == {rust});").unwrap();
    }
}

/// `probe.check` for the size and alignment of a struct and the offset and size of each
/// named field, the names being the same in C and Rust.
macro_rules! layout {
    ($probe:expr, $rust:ty, $c:literal, [$($field:ident),* $(,)?]) => {{
        $probe.check(concat!("sizeof(", $c, ")"), size_of::<$rust>());
        $probe.check(concat!("ALIGNOF(", $c, ")"), align_of::<$rust>());
        $(
            $probe.check(
                concat!("offsetof(", $c, ", ", stringify!($field), ")"),
                offset_of!($rust, $field),
            );
            $probe.check(
                concat!("sizeof(((", $c, " *)0)->", stringify!($field), ")"),
                size_of_field(|s: &$rust| &s.$field),
            );
        )*
    }};
}

fn size_of_field<S, F>(_: impl Fn(&S) -> &F) -> usize {
    size_of::<F>()
}

fn probe() -> String {
    let mut probe = Probe(String::from(
        "#include \"rtlat.h\"\n#include <stddef.h>\n\
         #ifdef __cplusplus\n#define CHECK(e) static_assert(e, #e)\n#define ALIGNOF alignof\n\
         #else\n#define CHECK(e) _Static_assert(e, #e)\n#define ALIGNOF _Alignof\n#endif\n",
    ));
    probe.check("RTLAT_C_API_VERSION", rtlat_c::C_API_VERSION);
    probe.check("RTLAT_OK", rtlat_c::OK);
    probe.check("RTLAT_ERR_NULL", rtlat_c::ERR_NULL);
    probe.check("RTLAT_ERR_ALIGN", rtlat_c::ERR_ALIGN);
    probe.check("RTLAT_ERR_ZERO", rtlat_c::ERR_ZERO);
    probe.check("RTLAT_ERR_UNINIT", rtlat_c::ERR_UNINIT);
    probe.check("RTLAT_JITTER_MONITOR_SIZE", rtlat_c::JITTER_MONITOR_SIZE);
    probe.check("RTLAT_JITTER_MONITOR_ALIGN", rtlat_c::JITTER_MONITOR_ALIGN);
    layout!(probe, RtlatJitterMonitor, "rtlat_jitter_monitor", []);
    probe.check(
        "RTLAT_SHARED_JITTER_MONITOR_SIZE",
        rtlat_c::SHARED_JITTER_MONITOR_SIZE,
    );
    probe.check(
        "RTLAT_SHARED_JITTER_MONITOR_ALIGN",
        rtlat_c::SHARED_JITTER_MONITOR_ALIGN,
    );
    layout!(
        probe,
        RtlatSharedJitterMonitor,
        "rtlat_shared_jitter_monitor",
        []
    );
    layout!(
        probe,
        RtlatJitterTickResult,
        "rtlat_jitter_tick_result",
        [
            interval_ns,
            jitter_ns,
            lateness_ns,
            overruns,
            has_interval,
            has_lateness,
        ]
    );
    layout!(
        probe,
        RtlatJitterReport,
        "rtlat_jitter_report",
        [
            period_ns,
            ticks,
            min_interval_ns,
            max_interval_ns,
            max_jitter_ns,
            lateness_count,
            lateness_min_ns,
            lateness_max_ns,
            lateness_mean_ns,
            last_lateness_ns,
            overruns,
            has_intervals,
            has_lateness,
        ]
    );
    probe.0
}

fn compile(compiler: Command, language: &[&str], file: &str) {
    let dir = scratch();
    let path = dir.join(file);
    std::fs::write(&path, probe()).expect("write the probe");
    let mut compiler = compiler;
    run(compiler
        .args(language)
        .args([
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
            "-I",
        ])
        .arg(crate_dir().join("include"))
        .arg(&path));
}

#[test]
fn header_layout_matches_rust_in_c11() {
    compile(cc(), &["-std=c11", "-x", "c"], "probe.c");
}

#[test]
fn header_layout_matches_rust_in_cxx11() {
    let cxx = Command::new(std::env::var_os("CXX").unwrap_or_else(|| "c++".into()));
    compile(cxx, &["-std=c++11", "-x", "c++"], "probe.cc");
}

/// The probe fails when the header and Rust disagree (it is not vacuous).
#[test]
fn probe_rejects_a_wrong_value() {
    let path = scratch().join("probe-wrong.c");
    let wrong = probe().replace(
        &format!(
            "CHECK(RTLAT_JITTER_MONITOR_SIZE == {});",
            rtlat_c::JITTER_MONITOR_SIZE
        ),
        "CHECK(RTLAT_JITTER_MONITOR_SIZE == 1);",
    );
    assert_ne!(wrong, probe());
    std::fs::write(&path, wrong).unwrap();
    let status = cc()
        .args(["-std=c11", "-fsyntax-only", "-I"])
        .arg(crate_dir().join("include"))
        .arg(&path)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run cc");
    assert!(!status.success());
}
