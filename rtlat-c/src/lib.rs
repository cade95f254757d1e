#![doc = include_str!("../README.md")]
// Built for C (`-C panic=abort`, README "Building") the crate is `no_std` and brings its own
// panic handler; built as the workspace builds everything (`panic = "unwind"`), it links std,
// which a `no_std` staticlib cannot do without ("unwinding panics are not supported without
// std"), so that `cargo build/test/clippy --workspace` work unchanged.
#![cfg_attr(panic = "abort", no_std)]
#![deny(missing_docs)]

pub mod jitter;
mod panic;
mod ptr;
pub mod shared;

pub use jitter::{
    JITTER_MONITOR_ALIGN, JITTER_MONITOR_SIZE, RtlatJitterMonitor, RtlatJitterReport,
    RtlatJitterTickResult,
};
pub use shared::{
    RtlatSharedJitterMonitor, SHARED_JITTER_MONITOR_ALIGN, SHARED_JITTER_MONITOR_SIZE,
};

/// The version of the C API in `include/rtlat.h` (`RTLAT_C_API_VERSION`): raised when a
/// declaration changes incompatibly.
pub const C_API_VERSION: u32 = 1;

/// Success (`RTLAT_OK`).
pub const OK: i32 = 0;
/// A pointer argument was NULL (`RTLAT_ERR_NULL`).
pub const ERR_NULL: i32 = -1;
/// The monitor's memory is not aligned to `RTLAT_JITTER_MONITOR_ALIGN` (`RTLAT_ERR_ALIGN`).
pub const ERR_ALIGN: i32 = -2;
/// A period or tick rate of zero (`RTLAT_ERR_ZERO`).
pub const ERR_ZERO: i32 = -3;
/// The monitor was never initialised with `rtlat_jitter_init` (`RTLAT_ERR_UNINIT`).
pub const ERR_UNINIT: i32 = -4;
