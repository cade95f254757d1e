//! A 64-bit value shared between one writer and readers that check a sequence (the
//! [live figures](crate::live), the [rings](crate::ring)): one relaxed atomic store per
//! write where the target has 64-bit atomics, two 32-bit halves where it has not (Cortex-M);
//! the sequence or the ring's indices tell a reader whether the halves belong together.

#[cfg(not(target_has_atomic = "64"))]
use core::sync::atomic::AtomicU32;
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::AtomicU64;
use core::sync::atomic::Ordering::Relaxed;

/// One shared 64-bit word (relaxed loads and stores only).
#[derive(Debug, Default)]
pub struct Word {
    #[cfg(target_has_atomic = "64")]
    value: AtomicU64,
    #[cfg(not(target_has_atomic = "64"))]
    halves: [AtomicU32; 2],
}

impl Word {
    /// A word holding 0.
    pub const fn new() -> Self {
        Word {
            #[cfg(target_has_atomic = "64")]
            value: AtomicU64::new(0),
            #[cfg(not(target_has_atomic = "64"))]
            halves: [AtomicU32::new(0), AtomicU32::new(0)],
        }
    }

    /// Stores `v` (relaxed).
    #[inline(always)]
    pub fn set(&self, v: u64) {
        #[cfg(target_has_atomic = "64")]
        self.value.store(v, Relaxed);
        #[cfg(not(target_has_atomic = "64"))]
        {
            self.halves[0].store(v as u32, Relaxed);
            self.halves[1].store((v >> 32) as u32, Relaxed);
        }
    }

    /// Loads the value (relaxed).
    #[inline(always)]
    pub fn get(&self) -> u64 {
        #[cfg(target_has_atomic = "64")]
        return self.value.load(Relaxed);
        #[cfg(not(target_has_atomic = "64"))]
        return u64::from(self.halves[0].load(Relaxed))
            | (u64::from(self.halves[1].load(Relaxed)) << 32);
    }
}
