//! `xenomai_init`, called once, and which core the crate was built against.

use std::sync::OnceLock;

use crate::{Error, call};

/// The Xenomai core the crate was built against (`xeno-config --core`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Core {
    /// Xenomai's APIs over plain Linux threads: runs on any kernel (PREEMPT_RT for real-time).
    Mercury,
    /// The dual-kernel core: needs a kernel with Cobalt.
    Cobalt,
}

/// The core this build links, `None` when built without Xenomai.
pub const CORE: Option<Core> = if cfg!(xenomai_cobalt) {
    Some(Core::Cobalt)
} else if cfg!(xenomai_mercury) {
    Some(Core::Mercury)
} else {
    None
};

/// `init`'s one outcome.
static INIT: OnceLock<Result<(), Error>> = OnceLock::new();

/// Initialises Xenomai for this process, once: on Cobalt, first checks that the kernel has a
/// running Cobalt core ([`cobalt_core`]), then calls `xenomai_init` (which locks the
/// process's memory). Later calls return the first outcome.
///
/// Call it on the main thread (Xenomai asserts that it runs there; on another thread this
/// returns [`Error::NotMainThread`] and can be called again from the right one), before any
/// task or clock is made. Xenomai sees an argument vector of the program name only: it acts
/// on none of the user's options (Xenomai's auto-init would act on `--help`).
pub fn init() -> Result<(), Error> {
    if let Some(outcome) = INIT.get() {
        return *outcome;
    }
    if cfg!(not(rtlat_xenomai)) {
        return Err(Error::NotBuilt);
    }
    if !call::is_main_thread() {
        return Err(Error::NotMainThread);
    }
    *INIT.get_or_init(|| {
        cobalt_core()?;
        call::xenomai_init(c"rtlat");
        Ok(())
    })
}

/// Whether the kernel can run this build: `Ok` on Mercury, and on Cobalt when the kernel's
/// Cobalt core is running; [`Error::CobaltCoreMissing`] or
/// [`Error::CobaltCoreNotRunning`] otherwise. Safe to call before [`init`], from any thread,
/// and changes nothing (a read-only `corectl` query).
pub fn cobalt_core() -> Result<(), Error> {
    if cfg!(not(rtlat_xenomai)) {
        return Err(Error::NotBuilt);
    }
    #[cfg(xenomai_cobalt)]
    match call::cobalt_core_state() {
        Ok(crate::sys::COBALT_STATE_RUNNING) => {}
        Ok(state) => return Err(Error::CobaltCoreNotRunning(state)),
        Err(ret) if ret == -libc::ENOSYS => return Err(Error::CobaltCoreMissing),
        Err(ret) => return Err(Error::call("cobalt_corectl", ret)),
    }
    Ok(())
}

/// `Ok` once [`init`] has succeeded.
pub(crate) fn initialized() -> Result<(), Error> {
    match INIT.get() {
        Some(outcome) => *outcome,
        None if cfg!(rtlat_xenomai) => Err(Error::NotInitialized),
        None => Err(Error::NotBuilt),
    }
}
