//! The panic handler of the `no_std` build (`panic = "abort"`: the staticlib for C, and
//! targets such as `thumbv7em-none-eabihf`). The monitor's paths are written not to panic
//! (saturating and wrapping arithmetic, no indexing); should one ever do so, the calling
//! thread halts here: it never unwinds into C, which could not catch it.

#[cfg(all(panic = "abort", not(test)))]
#[panic_handler]
fn halt(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

/// The unwinder's personality routine that core's and compiler_builtins' precompiled
/// objects name on hosted targets, where they are built with `panic = "unwind"` (the
/// i128 division `__divti3`, say, names it in its unwind tables; `-Wl,--gc-sections` does
/// not drop tables of code that is used). std would provide it; this `no_std` build does.
/// Nothing here unwinds (`panic = "abort"` leaves no landing pads), so for every frame it
/// is asked about the answer is `_URC_CONTINUE_UNWIND` (8): no cleanup, go on to the next.
/// A C program must not link a second Rust staticlib that brings std (the symbol would be
/// defined twice).
#[cfg(all(panic = "abort", not(test), not(target_os = "none")))]
#[unsafe(no_mangle)]
extern "C" fn rust_eh_personality(
    _version: i32,
    _actions: i32,
    _exception_class: u64,
    _exception: *mut core::ffi::c_void,
    _context: *mut core::ffi::c_void,
) -> i32 {
    const URC_CONTINUE_UNWIND: i32 = 8;
    URC_CONTINUE_UNWIND
}
