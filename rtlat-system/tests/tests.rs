//! rtlat-system's integration tests: one test binary (DESIGN.md, "Conventions"), one module per
//! area, all reading captured or constructed machine trees under `tests/data/`.

mod capture;
mod facts;
mod noise;
mod tracer;
mod tune;
