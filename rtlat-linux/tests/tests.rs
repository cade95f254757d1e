//! rtlat-linux's integration tests: one test binary (DESIGN.md, "Conventions"), one module per area.

mod signals;
