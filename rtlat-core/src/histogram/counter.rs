//! Bucket counters: `u16` for the smallest MCUs, `u32` for small memory, `u64` for runs that
//! never end.

/// A bucket counter. Increments saturate at [`Counter::MAX`] instead of wrapping, so a
/// counter never silently restarts from zero; [`crate::Histogram::is_saturated`] reports it.
/// (A `u64` counter, incremented once per value, cannot get there: see its `increment`.)
pub trait Counter: Copy + Default + PartialEq + core::fmt::Debug {
    /// The largest count the counter holds.
    const MAX: u64;
    /// The empty counter (all zero bytes), for `const` constructors.
    const ZERO: Self;
    /// The counter at [`Counter::MAX`].
    const SATURATED: Self;
    /// Adds one, saturating (where the maximum is reachable).
    fn increment(&mut self);
    /// Adds `n`, saturating.
    fn add(&mut self, n: u64);
    /// The count.
    fn get(self) -> u64;
}

/// `u16` and `u32`: saturating counters.
macro_rules! saturating_counter {
    ($t:ty) => {
        impl Counter for $t {
            const MAX: u64 = <$t>::MAX as u64;
            const ZERO: Self = 0;
            const SATURATED: Self = <$t>::MAX;
            /// Adds one unless at the maximum: the increment's own zero flag tells when it
            /// wrapped, and the rare fix-up is out of line (one instruction fewer than an add
            /// and a conditional move on x86-64).
            #[inline(always)]
            fn increment(&mut self) {
                *self = self.wrapping_add(1);
                if *self == 0 {
                    saturate(self);
                }
            }
            fn add(&mut self, n: u64) {
                *self = <$t>::try_from(n).map_or(<$t>::MAX, |n| self.saturating_add(n));
            }
            #[inline(always)]
            fn get(self) -> u64 {
                self as u64
            }
        }
    };
}

/// A counter that wrapped on its increment goes back to its maximum (the saturated state).
#[cold]
fn saturate<C: Counter>(counter: &mut C) {
    *counter = C::SATURATED;
}

saturating_counter!(u16);
saturating_counter!(u32);

impl Counter for u64 {
    const MAX: u64 = u64::MAX;
    const ZERO: Self = 0;
    const SATURATED: Self = u64::MAX;
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
