//! 64-bit division for report paths on 32-bit microcontrollers, without the compiler's
//! 64-bit division routine (`__aeabi_uldivmod` and the code it pulls in, about 1 KiB on a
//! Cortex-M): one hardware 32-bit division when both operands fit in 32 bits, binary long
//! division otherwise. Report-time only: never on a measuring path.

/// `n / d`, truncated; 0 when `d` is 0.
pub(crate) fn div_u64(n: u64, d: u64) -> u64 {
    if d == 0 {
        return 0;
    }
    if let (Ok(n), Ok(d)) = (u32::try_from(n), u32::try_from(d)) {
        return u64::from(n / d);
    }
    long_division(0, n, d)
}

/// `(high·2^64 + low) / d` by binary long division, for `high < d` (the quotient then fits
/// in 64 bits) and `d > 0`.
const fn long_division(high: u64, low: u64, d: u64) -> u64 {
    let (mut quotient, mut remainder) = (0u64, high);
    let mut bit = 64;
    while bit > 0 {
        bit -= 1;
        // The remainder stays below `d`; a bit shifted out of it means it is past `d`.
        let out = remainder >> 63;
        remainder = (remainder << 1) | ((low >> bit) & 1);
        quotient <<= 1;
        if out != 0 || remainder >= d {
            remainder = remainder.wrapping_sub(d);
            quotient |= 1;
        }
    }
    quotient
}

/// `n / d` truncated toward zero, as Rust's `/` on `i64` (`d` is a count); 0 when `d` is 0.
pub(crate) fn div_i64(n: i64, d: u64) -> i64 {
    let q = div_u64(n.unsigned_abs(), d);
    // |q| ≤ |n| ≤ 2^63, and 2^63 only for `n == i64::MIN, d == 1`: wrapping gives it back.
    if n < 0 {
        (q as i64).wrapping_neg()
    } else {
        q as i64
    }
}

/// `n / d` truncated toward zero, for a quotient that fits in an `i64` plus the one edge
/// `-2^63`, without the compiler's 128-bit division routine (`__divti3`: on hosted targets
/// compiler_builtins ships it with unwind tables that name `rust_eh_personality`, which a
/// `no_std` staticlib does not have). `d` is a count; 0 when `d` is 0. The quotient is
/// clamped to `i64` (a caller's mean never needs it).
pub(crate) const fn div_i128_by_u64(n: i128, d: u64) -> i64 {
    if d == 0 {
        return 0;
    }
    let magnitude = n.unsigned_abs();
    let high = (magnitude >> 64) as u64;
    let low = magnitude as u64;
    // A quotient of 2^64 or more (high ≥ d) is past any i64: clamp.
    if high >= d {
        return if n < 0 { i64::MIN } else { i64::MAX };
    }
    let quotient = long_division(high, low, d);
    if n < 0 {
        if quotient > 1 << 63 {
            i64::MIN
        } else {
            (quotient as i64).wrapping_neg()
        }
    } else if quotient > i64::MAX as u64 {
        i64::MAX
    } else {
        quotient as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges() {
        assert_eq!(div_u64(u64::MAX, 1), u64::MAX);
        assert_eq!(div_u64(u64::MAX, u64::MAX), 1);
        assert_eq!(div_u64(u64::MAX - 1, u64::MAX), 0);
        assert_eq!(div_u64(1 << 63, 3), (1u64 << 63) / 3);
        assert_eq!(div_u64(7, 0), 0);
        assert_eq!(div_i64(i64::MIN, 1), i64::MIN);
        assert_eq!(div_i64(-7, 2), -3);
        assert_eq!(div_i64(i64::MIN, u64::MAX), 0);
    }

    #[test]
    fn i128_edges() {
        assert_eq!(div_i128_by_u64(0, 5), 0);
        assert_eq!(div_i128_by_u64(7, 0), 0);
        assert_eq!(div_i128_by_u64(-7, 2), -3);
        assert_eq!(div_i128_by_u64(i64::MIN as i128, 1), i64::MIN);
        assert_eq!(div_i128_by_u64(i64::MIN as i128 * 3, 3), i64::MIN);
        assert_eq!(div_i128_by_u64(i64::MAX as i128 * 5, 5), i64::MAX);
        assert_eq!(div_i128_by_u64(i128::MAX, u64::MAX), i64::MAX);
        assert_eq!(div_i128_by_u64(i128::MIN + 1, 2), i64::MIN);
    }

    proptest! {
        #[test]
        fn i128_as_the_hardware(n in any::<i128>(), d in 1u64..) {
            let exact = (n / d as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            prop_assert_eq!(div_i128_by_u64(n, d), exact);
        }

        #[test]
        fn as_the_hardware(n in any::<u64>(), d in 1u64.., small in 1u64..1000, s in any::<i64>()) {
            prop_assert_eq!(div_u64(n, d), n / d);
            prop_assert_eq!(div_u64(n, small), n / small);
            prop_assert_eq!(div_i64(s, small), s / small as i64);
        }
    }
}
