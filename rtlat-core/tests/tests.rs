//! rtlat-core's integration tests: one test binary (DESIGN.md, "Conventions"), one module per
//! area; the engine tests share `rtlat_core::sim`'s simulated clock and timer.

mod counter_extender;
mod cycle_engine;
mod delay_probe;
mod histogram_presets;
mod jitter_monitor;
mod jitter_schedule;
mod monitor32;
mod monitor_lines;
mod periodic;
mod report_lines;
mod shared_counters;
mod shared_monitor;
mod static_bss;
