//! rtlat's integration tests: one test binary (DESIGN.md, "Conventions"), one module per
//! area. Each module runs the built binaries (`rtlat`, its `cyclictest` and `latency` names,
//! `rtlat-plot`) or the library the way a user or a third-party tool would; the helpers they
//! share live in `common` (running binaries, users, captured machines), `audit_support` and
//! `plot_support`.

mod audit_support;
mod common;
mod plot_support;

mod audit;
mod audit_bad_input;
mod audit_suggest;
mod bad_input;
mod compare;
mod cpufreq;
mod cpus;
mod cyclictest_clients;
mod cyclictest_compat;
mod cyclictest_runtime;
mod explain;
mod formats;
mod formats_never_panic;
mod hwnoise;
mod idle_states;
mod irq;
mod latency;
mod measurement_thread;
mod monitor;
mod noise;
mod outputs;
mod plot;
mod plot_bad_input;
mod privileges;
mod profile;
mod rt_guest;
mod run_control;
mod servo;
mod stop_signals;
mod threads;
mod time_series;
mod tune;
mod verify;
mod xenomai_backend;

/// With `autotests = false` a file in tests/ that no `mod` line names would never build or run:
/// every one must be a module of this binary.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("tests.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let is_module = (path.extension().is_some_and(|e| e == "rs") && name != "tests")
            || path.join("mod.rs").is_file();
        if is_module && !this.contains(&format!("\nmod {name};\n")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/tests.rs names no `mod` for {missing:?}"
    );
}
