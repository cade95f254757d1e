//! rtlat-core's integration tests: one test binary (DESIGN.md, "Conventions"), one module per
//! area; `sim` is the simulated clock and timer the engine tests share.

mod sim;

mod cycle_engine;
mod histogram_presets;
mod jitter_monitor;
mod periodic;
mod report_lines;
mod static_bss;
