//! rtlat-arm64's integration tests: one test binary (DESIGN.md, "Conventions"), one module per area.

mod tick_scale;
