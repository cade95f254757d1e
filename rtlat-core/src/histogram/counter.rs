//! Bucket counters: `u32` for small memory, `u64` for runs that never end.

/// A bucket counter. Increments saturate at [`Counter::MAX`] instead of wrapping, so a
/// counter never silently restarts from zero; [`crate::Histogram::is_saturated`] reports it.
/// (A `u64` counter, incremented once per value, cannot get there: see its `increment`.)
pub trait Counter: Copy + Default + PartialEq + core::fmt::Debug {
    /// The largest count the counter holds.
    const MAX: u64;
    /// Adds one, saturating (where the maximum is reachable).
    fn increment(&mut self);
    /// Adds `n`, saturating.
    fn add(&mut self, n: u64);
    /// The count.
    fn get(self) -> u64;
}

impl Counter for u32 {
    const MAX: u64 = u32::MAX as u64;
    #[inline(always)]
    fn increment(&mut self) {
        *self = self.saturating_add(1);
    }
    fn add(&mut self, n: u64) {
        *self = u32::try_from(n).map_or(u32::MAX, |n| self.saturating_add(n));
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self as u64
    }
}

impl Counter for u64 {
    const MAX: u64 = u64::MAX;
    /// Adds one. Incremented once per recorded value, a `u64` cannot reach its maximum (2^64
    /// values take 584 years at one per nanosecond), so the saturation check is left out of
    /// the hot path: one increment in memory.
    #[inline(always)]
    fn increment(&mut self) {
        *self = self.wrapping_add(1);
    }
    fn add(&mut self, n: u64) {
        *self = self.saturating_add(n);
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self
    }
}

/// Where a histogram keeps its counters: a fixed array (capacity as a const generic, for
/// `no_std`) or a borrowed slice (capacity chosen at run time, e.g. cyclictest's `-h N`).
pub trait Storage {
    /// The counter type.
    type Counter: Counter;
    /// The counters, underflow first and overflow last.
    fn counters(&self) -> &[Self::Counter];
    /// The counters, mutably.
    fn counters_mut(&mut self) -> &mut [Self::Counter];
}

impl<C: Counter, const N: usize> Storage for [C; N] {
    type Counter = C;
    #[inline(always)]
    fn counters(&self) -> &[C] {
        self
    }
    #[inline(always)]
    fn counters_mut(&mut self) -> &mut [C] {
        self
    }
}

impl<C: Counter> Storage for &mut [C] {
    type Counter = C;
    #[inline(always)]
    fn counters(&self) -> &[C] {
        self
    }
    #[inline(always)]
    fn counters_mut(&mut self) -> &mut [C] {
        self
    }
}
