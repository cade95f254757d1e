//! Ticks → ns for the generic-timer rates boards use, by rtlat-core's multiply-shift
//! [`TickScale`] (what `GenericTimer::scale` returns): never more than 1 ns from exact, never
//! below it, over more than a day of ticks. Runs on every host: it tests the arithmetic at
//! those rates, not the register.

use rtlat_core::TickScale;

/// 19.2 MHz (Qualcomm, many Cortex-A53 SoCs), 24 MHz (Allwinner, Rockchip, Actions S900),
/// 25 MHz, 50 MHz, 54 MHz (Raspberry Pi 4), 62.5 MHz (qemu), 1 GHz (ARMv8.6+ mandates it).
const RATES: [u64; 7] = [
    19_200_000,
    24_000_000,
    25_000_000,
    50_000_000,
    54_000_000,
    62_500_000,
    1_000_000_000,
];

const SECONDS_PER_DAY: u64 = 86_400;

/// Checks one conversion: `exact ≤ got ≤ exact + 1`, exact being ⌊ticks · 10⁹ / rate⌋.
fn check(scale: &TickScale, ticks: u64) {
    let rate = scale.rate_hz();
    let exact = ticks as u128 * 1_000_000_000 / rate as u128;
    let got = scale.to_ns(ticks) as u128;
    assert!(
        got >= exact && got <= exact + 1,
        "{rate} Hz, {ticks} ticks: {got} ns, exact {exact} ns"
    );
}

/// A deterministic xorshift, so failures reproduce.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn within_one_ns_over_more_than_a_day() {
    // Eight days: a week-long soak plus margin.
    const DAYS: u64 = 8;
    for rate in RATES {
        let scale = TickScale::new(rate).unwrap();
        let end = rate * SECONDS_PER_DAY * DAYS;
        // Every tick of the first 2^20 (where any rounding bias would show first) …
        for ticks in 0..1 << 20 {
            check(&scale, ticks);
        }
        // … every whole second, minute boundary and their neighbours for the whole span …
        for second in 0..=SECONDS_PER_DAY * DAYS {
            let t = second * rate;
            check(&scale, t);
            check(&scale, t + 1);
            if t > 0 {
                check(&scale, t - 1);
            }
        }
        // … the end, and a million pseudo-random points in between.
        for ticks in [end - 1, end, end + 1] {
            check(&scale, ticks);
        }
        let mut state = 0x9E37_79B9_7F4A_7C15 ^ rate;
        for _ in 0..1_000_000 {
            check(&scale, xorshift(&mut state) % end);
        }
    }
}

#[test]
fn exactly_one_day_is_exact_to_the_nanosecond() {
    for rate in RATES {
        let scale = TickScale::new(rate).unwrap();
        let ns = scale.to_ns(rate * SECONDS_PER_DAY);
        assert!(
            ns.abs_diff(SECONDS_PER_DAY * 1_000_000_000) <= 1,
            "{rate} Hz: a day is {ns} ns"
        );
    }
}

#[test]
fn intervals_convert_both_ways() {
    // A 1 ms cyclictest interval in ticks, and back: exact at these rates.
    for rate in RATES {
        let scale = TickScale::new(rate).unwrap();
        let ticks = scale.from_ns(1_000_000);
        assert_eq!(ticks, rate / 1000);
        assert_eq!(scale.to_ns(ticks), 1_000_000, "{rate} Hz");
        // Signed latencies (early wake-ups) are symmetric.
        assert_eq!(scale.to_ns_signed(-(ticks as i64)), -1_000_000);
    }
}
