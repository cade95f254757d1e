//! The only `unsafe` of the crate: turning the raw pointers C passes into references. Each
//! function checks what can be checked (NULL, alignment, the initialised mark) and states
//! what the C caller promises for the rest.

use crate::jitter::{INITIALISED, RtlatJitterMonitor, State};
use crate::{ERR_ALIGN, ERR_NULL, ERR_UNINIT};

/// Writes `state` into the caller's monitor memory, which may be uninitialised.
///
/// # Safety
/// `monitor` is NULL or points to `RTLAT_JITTER_MONITOR_SIZE` writable bytes that nothing
/// else uses during the call.
pub(crate) unsafe fn write_monitor(
    monitor: *mut RtlatJitterMonitor,
    state: State,
) -> Result<(), i32> {
    if monitor.is_null() {
        return Err(ERR_NULL);
    }
    if !monitor.is_aligned() {
        return Err(ERR_ALIGN);
    }
    // SAFETY: non-NULL, aligned, and writable by the caller's promise; `write` reads
    // nothing of the old (possibly uninitialised) contents.
    unsafe { monitor.write(RtlatJitterMonitor::from_state(state)) };
    Ok(())
}

/// Checks that `monitor` is an initialised monitor.
///
/// # Safety
/// `monitor` is NULL or points to `RTLAT_JITTER_MONITOR_SIZE` readable bytes that are
/// either zero (a C static) or were given to `rtlat_jitter_init`.
unsafe fn check(monitor: *const RtlatJitterMonitor) -> Result<(), i32> {
    if monitor.is_null() {
        return Err(ERR_NULL);
    }
    if !monitor.is_aligned() {
        return Err(ERR_ALIGN);
    }
    // SAFETY: aligned and readable by the caller's promise; the mark is a plain u64, valid
    // for any bits, read before any field whose bits could be invalid (the NonZero period).
    let mark = unsafe { core::ptr::addr_of!((*monitor).initialised).read() };
    if mark != INITIALISED {
        return Err(ERR_UNINIT);
    }
    Ok(())
}

/// The monitor behind `monitor`, checked to have been initialised.
///
/// # Safety
/// As [`check`], and no other thread uses the monitor during the call.
pub(crate) unsafe fn monitor_mut<'a>(
    monitor: *mut RtlatJitterMonitor,
) -> Result<&'a mut RtlatJitterMonitor, i32> {
    // SAFETY: the caller's promise is check's.
    unsafe { check(monitor) }?;
    // SAFETY: the mark says `rtlat_jitter_init` wrote a whole valid monitor here, and the
    // caller promises no other use during the call.
    Ok(unsafe { &mut *monitor })
}

/// The monitor behind `monitor`, read-only, checked to have been initialised.
///
/// # Safety
/// As [`check`], and no thread changes the monitor during the call.
pub(crate) unsafe fn monitor_ref<'a>(
    monitor: *const RtlatJitterMonitor,
) -> Result<&'a RtlatJitterMonitor, i32> {
    // SAFETY: the caller's promise is check's.
    unsafe { check(monitor) }?;
    // SAFETY: initialised (the mark), and not changed during the call (the promise).
    Ok(unsafe { &*monitor })
}

/// Stores `value` where C asked for a result; NULL means the caller does not want it.
///
/// # Safety
/// `out` is NULL or points to a writable `T` (its old contents are not read).
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) -> Result<(), i32> {
    if out.is_null() {
        return Ok(());
    }
    if !out.is_aligned() {
        return Err(ERR_ALIGN);
    }
    // SAFETY: non-NULL, aligned, writable by the caller's promise.
    unsafe { out.write(value) };
    Ok(())
}
