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
mod cyclictest_clients;
mod cyclictest_compat;
mod cyclictest_runtime;
mod formats;
mod formats_never_panic;
mod idle_states;
mod irq;
mod latency;
mod measurement_thread;
mod outputs;
mod plot;
mod plot_bad_input;
mod privileges;
mod profile;
mod run_control;
mod servo;
mod stop_signals;
mod threads;
mod time_series;
