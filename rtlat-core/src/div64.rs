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
    let (mut quotient, mut remainder) = (0u64, 0u64);
    for bit in (0..64).rev() {
        // The remainder stays below `d`; a bit shifted out of it means it is past `d`.
        let out = remainder >> 63;
        remainder = (remainder << 1) | ((n >> bit) & 1);
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

    proptest! {
        #[test]
        fn as_the_hardware(n in any::<u64>(), d in 1u64.., small in 1u64..1000, s in any::<i64>()) {
            prop_assert_eq!(div_u64(n, d), n / d);
            prop_assert_eq!(div_u64(n, small), n / small);
            prop_assert_eq!(div_i64(s, small), s / small as i64);
        }
    }
}
