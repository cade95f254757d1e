//! rtlat-c's tests: the header against the Rust definitions, and C programs calling the
//! staticlib built the way the README says.

mod c;
mod end_to_end;
mod header;
mod own_staticlib;
