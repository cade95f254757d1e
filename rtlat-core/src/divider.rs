//! Exact division of a `u64` by a divisor fixed at set-up time, without a division instruction.
//!
//! Cortex-M has no 64-bit divide (it is a slow library call) and even x86-64 pays tens of
//! cycles for one, so the hot paths (linear histogram buckets) use this instead:
//! Granlund and Montgomery's round-up method, "Division by Invariant Integers using
//! Multiplication" (PLDI 1994), which is exact for every dividend.

/// Divides `u64` values by a constant chosen at construction, exactly, using one
/// 64×64→128 multiply, a subtraction and two shifts.
///
/// ```
/// use rtlat_core::Divider;
/// let by_1000 = Divider::new(1000).unwrap();
/// assert_eq!(by_1000.divide(123_456_789), 123_456);
/// assert_eq!(by_1000.divide(u64::MAX), u64::MAX / 1000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divider {
    divisor: u64,
    magic: u64,
    shift1: u32,
    shift2: u32,
}

impl Divider {
    /// Prepares division by `divisor`; `None` for zero.
    pub const fn new(divisor: u64) -> Option<Self> {
        if divisor == 0 {
            return None;
        }
        // l = ceil(log2(divisor)), 0 for divisor 1.
        let l = 64 - (divisor - 1).leading_zeros();
        // magic = floor(2^64 * (2^l - d) / d) + 1; (2^l - d) < d, so the product fits in u128.
        let magic = (((1u128 << 64) * ((1u128 << l) - divisor as u128)) / divisor as u128) + 1;
        Some(Divider {
            divisor,
            magic: magic as u64,
            shift1: if l > 0 { 1 } else { 0 },
            shift2: if l > 0 { l - 1 } else { 0 },
        })
    }

    /// The divisor this was built for.
    pub const fn divisor(&self) -> u64 {
        self.divisor
    }

    /// `n / divisor`, rounded toward zero, exactly, for every `n`.
    #[inline(always)]
    pub const fn divide(&self, n: u64) -> u64 {
        let t = ((self.magic as u128 * n as u128) >> 64) as u64;
        (t + ((n - t) >> self.shift1)) >> self.shift2
    }
}

#[cfg(test)]
mod tests {
    use super::Divider;
    use proptest::prelude::*;

    #[test]
    fn zero_is_refused() {
        assert_eq!(Divider::new(0), None);
    }

    #[test]
    fn edges_are_exact() {
        let divisors = [
            1,
            2,
            3,
            7,
            10,
            1000,
            1_000_000,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX,
        ];
        let dividends = [0, 1, 2, 999, 1000, 1001, u64::MAX - 1, u64::MAX, 1 << 63];
        for d in divisors {
            let div = Divider::new(d).unwrap();
            for n in dividends {
                assert_eq!(div.divide(n), n / d, "{n} / {d}");
            }
        }
    }

    proptest! {
        #[test]
        fn matches_hardware_division(n in any::<u64>(), d in 1u64..) {
            prop_assert_eq!(Divider::new(d).unwrap().divide(n), n / d);
        }

        #[test]
        fn matches_for_small_divisors(n in any::<u64>(), d in 1u64..100_000) {
            prop_assert_eq!(Divider::new(d).unwrap().divide(n), n / d);
        }
    }
}
