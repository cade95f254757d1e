//! The reader's side of a sequence lock, shared by the [live figures](crate::live) and the
//! shared jitter monitors: the one writer makes the sequence odd, stores with relaxed atomic
//! stores, and makes it even again (a release store); a reader keeps what it read only if it
//! saw the same even sequence before and after, or reads again.

use core::sync::atomic::{AtomicU32, Ordering, fence};

/// Runs `read` until it ran between two loads of `sequence` that saw the same even value
/// (no write under way or in between), and returns that run's result. `read` returns `None`
/// to ask for another run (it saw something else change, e.g. a window reset). Spins only
/// while a write is under way or one came in between.
#[inline]
pub(crate) fn read<T>(sequence: &AtomicU32, mut read: impl FnMut() -> Option<T>) -> T {
    loop {
        let before = sequence.load(Ordering::Acquire);
        if before.is_multiple_of(2) {
            let value = read();
            // The relaxed loads in `read` come before the sequence is read again.
            fence(Ordering::Acquire);
            if let Some(value) = value
                && sequence.load(Ordering::Relaxed) == before
            {
                return value;
            }
        }
        core::hint::spin_loop();
    }
}
