//! The only `unsafe` of the crate: turning the raw pointers C passes into references. Each
//! function checks what can be checked (NULL, alignment, the initialised mark) and states
//! what the C caller promises for the rest.

use crate::{ERR_ALIGN, ERR_NULL, ERR_UNINIT};

/// A monitor type C holds in its own memory: `repr(C)`, with its initialised mark, a `u64`,
/// first.
pub(crate) trait Marked: Sized {
    /// The mark's value once the monitor was initialised.
    const MARK: u64;
}

/// Writes `value` into the caller's memory, which may be uninitialised.
///
/// # Safety
/// `p` is NULL or points to `size_of::<T>()` writable bytes that nothing else uses during
/// the call.
pub(crate) unsafe fn write_new<T: Marked>(p: *mut T, value: T) -> Result<(), i32> {
    if p.is_null() {
        return Err(ERR_NULL);
    }
    if !p.is_aligned() {
        return Err(ERR_ALIGN);
    }
    // SAFETY: non-NULL, aligned, and writable by the caller's promise; `write` reads
    // nothing of the old (possibly uninitialised) contents.
    unsafe { p.write(value) };
    Ok(())
}

/// Checks that `p` is an initialised monitor.
///
/// # Safety
/// `p` is NULL or points to `size_of::<T>()` readable bytes that are either zero (a C
/// static) or were initialised by the type's init function.
unsafe fn check<T: Marked>(p: *const T) -> Result<(), i32> {
    if p.is_null() {
        return Err(ERR_NULL);
    }
    if !p.is_aligned() {
        return Err(ERR_ALIGN);
    }
    // SAFETY: aligned (a `T` is at least as aligned as its first field, the mark) and
    // readable by the caller's promise; the mark is a plain u64, valid for any bits, read
    // before any field whose bits could be invalid (a NonZero period); it is written only
    // by init, never while the monitor is in use.
    let mark = unsafe { p.cast::<u64>().read() };
    if mark != T::MARK {
        return Err(ERR_UNINIT);
    }
    Ok(())
}

/// The monitor behind `p`, checked to have been initialised.
///
/// # Safety
/// As [`check`], and no other thread uses the monitor during the call.
pub(crate) unsafe fn monitor_mut<'a, T: Marked>(p: *mut T) -> Result<&'a mut T, i32> {
    // SAFETY: the caller's promise is check's.
    unsafe { check(p) }?;
    // SAFETY: the mark says init wrote a whole valid monitor here, and the caller promises
    // no other use during the call.
    Ok(unsafe { &mut *p })
}

/// The monitor behind `p`, shared, checked to have been initialised.
///
/// # Safety
/// As [`check`], and nothing changes the monitor during the call except through shared
/// references (a shared monitor's atomics).
pub(crate) unsafe fn monitor_ref<'a, T: Marked>(p: *const T) -> Result<&'a T, i32> {
    // SAFETY: the caller's promise is check's.
    unsafe { check(p) }?;
    // SAFETY: initialised (the mark), and changed only through shared references.
    Ok(unsafe { &*p })
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
