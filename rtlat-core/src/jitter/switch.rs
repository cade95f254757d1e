//! The window switch of the shared monitors ([`SharedJitterMonitor`](super::SharedJitterMonitor)
//! and [`SharedJitterMonitor32`](super::SharedJitterMonitor32)): their figures live in two
//! banks, the writer records into bank `generation & 1`, and a reader that ends a window bumps
//! `generation`, fences, and waits for a tick under way (only that one) to end; the old bank
//! is then frozen until the reader is done with it (module docs of `shared`: why no tick is
//! lost or counted twice).

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering, fence};

/// A reader's turn at ending a window: while it lives, the ended window's bank is the
/// reader's; dropping it lets the next reader switch.
pub(crate) struct Switch<'a> {
    resetting: &'a AtomicBool,
    /// The index of the ended window's bank.
    pub ended: usize,
}

/// Takes the readers' turn (`resetting`), opens the next window, and waits for a tick under
/// way (odd `sequence`) that may still be recording into the ended one.
#[inline(always)]
pub(crate) fn switch_window<'a>(
    resetting: &'a AtomicBool,
    generation: &AtomicU32,
    sequence: &AtomicU32,
) -> Switch<'a> {
    while resetting
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        core::hint::spin_loop();
    }
    let old = generation.load(Ordering::Relaxed);
    generation.store(old.wrapping_add(1), Ordering::Release);
    fence(Ordering::SeqCst);
    // A tick under way may have chosen the old bank: wait for that tick (only) to end.
    let s = sequence.load(Ordering::Acquire);
    if !s.is_multiple_of(2) {
        while sequence.load(Ordering::Acquire) == s {
            core::hint::spin_loop();
        }
    }
    Switch {
        resetting,
        ended: (old & 1) as usize,
    }
}

impl Drop for Switch<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.resetting.store(false, Ordering::Release);
    }
}
