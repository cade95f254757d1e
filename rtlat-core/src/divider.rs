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
    /// `⌈2^63 / divisor⌉` for a divisor up to 2^32, 0 past that: [`Divider::divide_small`].
    small: u64,
}

/// The largest divisor [`Divider::divide_small`] divides by.
const SMALL_DIVISOR_MAX: u64 = 1 << 32;

impl Divider {
    /// Dividends [`Divider::divide_small`] takes: those below this, 2^31.
    pub const SMALL_DIVIDENDS: u64 = 1 << 31;

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
            small: if divisor <= SMALL_DIVISOR_MAX {
                // Below 2^63 + 2^32: fits, and 2^63 itself for a divisor of 1.
                (1u64 << 63).div_ceil(divisor)
            } else {
                0
            },
        })
    }

    /// Whether [`Divider::divide_small`] divides by this divisor (one up to 2^32).
    pub const fn divides_small(&self) -> bool {
        self.small != 0
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

    /// `n / divisor` with one multiply and one constant shift, for `n` below
    /// [`Divider::SMALL_DIVIDENDS`] (2^31) and a divisor for which [`Divider::divides_small`]; the
    /// caller checks both (past them the result is wrong, never a panic). Exact by Lemire,
    /// Kaser and Kurz, "Faster Remainder by Direct Computation" (2019), Theorem 1: with
    /// `c = ⌈2^63 / d⌉`, `c·d - 2^63 < d ≤ 2^(63-31)`, so `⌊c·n / 2^63⌋ = ⌊n / d⌋` for
    /// every `n < 2^31`. [`Divider::divide`]'s two shifts by amounts loaded at run time cost
    /// more (on x86-64 each goes through `cl`).
    #[inline(always)]
    pub const fn divide_small(&self, n: u64) -> u64 {
        ((self.small as u128 * n as u128) >> 63) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::Divider;
    use proptest::prelude::*;

    #[test]
    fn small_division_is_exact_at_its_edges() {
        let top = Divider::SMALL_DIVIDENDS - 1;
        for d in [
            1,
            2,
            3,
            7,
            10,
            1000,
            1_000_000,
            (1 << 31) - 1,
            1 << 31,
            (1 << 32) - 1,
            1 << 32,
        ] {
            let div = Divider::new(d).unwrap();
            assert!(div.divides_small(), "{d}");
            for n in [0, 1, d - 1, d, d + 1, top - 1, top] {
                assert_eq!(div.divide_small(n), n / d, "{n} / {d}");
            }
        }
        assert!(!Divider::new((1 << 32) + 1).unwrap().divides_small());
        assert!(!Divider::new(u64::MAX).unwrap().divides_small());
    }

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
        fn small_division_matches_hardware_division(n in 0u64..Divider::SMALL_DIVIDENDS, d in 1u64..=1 << 32) {
            prop_assert_eq!(Divider::new(d).unwrap().divide_small(n), n / d);
        }

        #[test]
        fn small_division_matches_for_every_divisor_of_a_dividend(n in 0u64..Divider::SMALL_DIVIDENDS, k in 0u32..=32) {
            // Powers of two and their neighbours: where the rounding of the magic is tightest.
            for d in [(1u64 << k).saturating_sub(1).max(1), 1 << k, (1u64 << k) + 1] {
                if d <= 1 << 32 {
                    prop_assert_eq!(Divider::new(d).unwrap().divide_small(n), n / d, "{} / {}", n, d);
                }
            }
        }

        #[test]
        fn matches_for_small_divisors(n in any::<u64>(), d in 1u64..100_000) {
            prop_assert_eq!(Divider::new(d).unwrap().divide(n), n / d);
        }
    }
}
