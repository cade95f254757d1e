//! The shared jitter monitor for C: one writer (an interrupt handler, a realtime thread)
//! ticks it while readers (the main loop, other threads) take reports, and the writer never
//! waits for a reader, never takes a lock and never masks interrupts (rtlat-core's
//! `SharedJitterMonitor`: a sequence lock over atomics). `rtlat_shared_jitter_init`,
//! `_tick`, `_tick_at`, `_restart` (the writer), `_get_report`, `_report_and_reset` (any
//! reader), declared in `include/rtlat.h`.

use crate::jitter::{RtlatJitterReport, RtlatJitterTickResult, status};
use crate::ptr;
use crate::{ERR_NULL, ERR_ZERO};
use core::mem::{align_of, size_of};
use core::num::NonZeroU64;
use rtlat_core::TickScale;
use rtlat_core::jitter::SharedJitterMonitor;

/// `RTLAT_SHARED_JITTER_MONITOR_SIZE`: bytes of a `rtlat_shared_jitter_monitor`.
pub const SHARED_JITTER_MONITOR_SIZE: usize = 512;
/// `RTLAT_SHARED_JITTER_MONITOR_ALIGN`: the alignment of a `rtlat_shared_jitter_monitor`.
pub const SHARED_JITTER_MONITOR_ALIGN: usize = 16;

/// Marks memory `rtlat_shared_jitter_init` has written ("rtlatJS1").
const INITIALISED: u64 = u64::from_le_bytes(*b"rtlatJS1");

/// Bytes left over after the mark and the monitor (where the monitor starts, `repr(C)`).
const RESERVED: usize = SHARED_JITTER_MONITOR_SIZE
    - size_of::<u64>().next_multiple_of(align_of::<SharedJitterMonitor>())
    - size_of::<SharedJitterMonitor>();

/// `rtlat_shared_jitter_monitor`: one shared jitter monitor, in the caller's memory. C sees
/// only its size and alignment.
#[repr(C, align(16))]
pub struct RtlatSharedJitterMonitor {
    /// [`INITIALISED`] once `rtlat_shared_jitter_init` has run (first: `ptr::Marked`).
    initialised: u64,
    monitor: SharedJitterMonitor,
    _reserved: [u8; RESERVED],
}

const _: () = assert!(size_of::<RtlatSharedJitterMonitor>() == SHARED_JITTER_MONITOR_SIZE);
const _: () = assert!(align_of::<RtlatSharedJitterMonitor>() == SHARED_JITTER_MONITOR_ALIGN);

impl ptr::Marked for RtlatSharedJitterMonitor {
    const MARK: u64 = INITIALISED;
}

/// Runs `f` on the initialised monitor behind `monitor`.
///
/// # Safety
/// `monitor` is NULL, or zeroed memory, or was given to `rtlat_shared_jitter_init` (which
/// no other thread runs at the same time).
unsafe fn with<R>(
    monitor: *const RtlatSharedJitterMonitor,
    f: impl FnOnce(&SharedJitterMonitor, TickScale) -> R,
) -> Result<R, i32> {
    // SAFETY: the caller's promise is monitor_ref's; every change after init goes through
    // the monitor's atomics (shared references).
    unsafe { ptr::monitor_ref(monitor) }.map(|m| f(&m.monitor, m.monitor.scale()))
}

/// `int rtlat_shared_jitter_init(rtlat_shared_jitter_monitor *monitor, uint64_t
/// period_ticks, uint64_t tick_rate_hz)`: as `rtlat_jitter_init`, before the monitor is
/// shared.
///
/// # Safety
/// `monitor` is NULL or points to `RTLAT_SHARED_JITTER_MONITOR_SIZE` writable bytes that no
/// other thread uses during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_shared_jitter_init(
    monitor: *mut RtlatSharedJitterMonitor,
    period_ticks: u64,
    tick_rate_hz: u64,
) -> i32 {
    let (Some(period), Some(rate)) = (NonZeroU64::new(period_ticks), NonZeroU64::new(tick_rate_hz))
    else {
        return ERR_ZERO;
    };
    let value = RtlatSharedJitterMonitor {
        initialised: INITIALISED,
        monitor: SharedJitterMonitor::with_scale(period, TickScale::from_hz(rate)),
        _reserved: [0; RESERVED],
    };
    // SAFETY: the caller's promise is write_new's.
    status(unsafe { ptr::write_new(monitor, value) })
}

/// `int rtlat_shared_jitter_tick(rtlat_shared_jitter_monitor *monitor, uint64_t now_ticks,
/// rtlat_jitter_tick_result *result)`: as `rtlat_jitter_tick` (the writer only).
///
/// # Safety
/// `monitor` as `with`'s, ticked by one writer at a time; `result` is NULL or points to a
/// writable `rtlat_jitter_tick_result`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_shared_jitter_tick(
    monitor: *mut RtlatSharedJitterMonitor,
    now_ticks: u64,
    result: *mut RtlatJitterTickResult,
) -> i32 {
    // SAFETY: the caller's promise is with's, then write_out's.
    status(
        unsafe {
            with(monitor, |m, scale| {
                RtlatJitterTickResult::new(m.tick(now_ticks), scale)
            })
        }
        .and_then(|tick| unsafe { ptr::write_out(result, tick) }),
    )
}

/// `int rtlat_shared_jitter_tick_at(rtlat_shared_jitter_monitor *monitor, uint64_t
/// now_ticks, uint64_t deadline_ticks, rtlat_jitter_tick_result *result)`: as
/// `rtlat_jitter_tick_at` (the writer only).
///
/// # Safety
/// As [`rtlat_shared_jitter_tick`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_shared_jitter_tick_at(
    monitor: *mut RtlatSharedJitterMonitor,
    now_ticks: u64,
    deadline_ticks: u64,
    result: *mut RtlatJitterTickResult,
) -> i32 {
    // SAFETY: the caller's promise is with's, then write_out's.
    status(
        unsafe {
            with(monitor, |m, scale| {
                RtlatJitterTickResult::new(m.tick_at(now_ticks, deadline_ticks), scale)
            })
        }
        .and_then(|tick| unsafe { ptr::write_out(result, tick) }),
    )
}

/// `int rtlat_shared_jitter_restart(rtlat_shared_jitter_monitor *monitor)`: forgets the
/// schedule (the writer only): the next tick is a first tick again. The figures stay.
///
/// # Safety
/// As [`rtlat_shared_jitter_tick`]'s `monitor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_shared_jitter_restart(
    monitor: *mut RtlatSharedJitterMonitor,
) -> i32 {
    // SAFETY: the caller's promise is with's.
    status(unsafe { with(monitor, |m, _| m.restart()) })
}

/// `int rtlat_shared_jitter_get_report(const rtlat_shared_jitter_monitor *monitor,
/// rtlat_jitter_report *report)`: a consistent report of the current window (any thread,
/// any time; it retries only while a tick is being stored).
///
/// # Safety
/// `monitor` as `with`'s; `report` is NULL or points to a writable `rtlat_jitter_report`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_shared_jitter_get_report(
    monitor: *const RtlatSharedJitterMonitor,
    report: *mut RtlatJitterReport,
) -> i32 {
    if report.is_null() {
        return ERR_NULL;
    }
    // SAFETY: the caller's promise is with's, then write_out's.
    status(
        unsafe { with(monitor, |m, _| RtlatJitterReport::from(m.report())) }
            .and_then(|figures| unsafe { ptr::write_out(report, figures) }),
    )
}

/// `int rtlat_shared_jitter_report_and_reset(rtlat_shared_jitter_monitor *monitor,
/// rtlat_jitter_report *report)`: the window that ends here, and a new one (any reader;
/// every tick lands in exactly one window).
///
/// # Safety
/// As [`rtlat_shared_jitter_get_report`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rtlat_shared_jitter_report_and_reset(
    monitor: *mut RtlatSharedJitterMonitor,
    report: *mut RtlatJitterReport,
) -> i32 {
    if report.is_null() {
        return ERR_NULL;
    }
    // SAFETY: the caller's promise is with's, then write_out's.
    status(
        unsafe {
            with(monitor, |m, _| {
                RtlatJitterReport::from(m.report_and_reset())
            })
        }
        .and_then(|figures| unsafe { ptr::write_out(report, figures) }),
    )
}
