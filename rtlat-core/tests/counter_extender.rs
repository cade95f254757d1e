//! Extending wrapping 24- and 32-bit counters to 64 bits, across their wrap boundaries.

use rtlat_core::CounterExtender;

#[test]
fn a_24_bit_counter_across_its_wrap() {
    let c = CounterExtender::<24>::new();
    assert_eq!(CounterExtender::<24>::MASK, 0xFF_FFFF);
    assert_eq!(c.extend(0xFF_FFFE), 0xFF_FFFE);
    assert_eq!(c.extend(0xFF_FFFF), 0xFF_FFFF);
    assert_eq!(c.extend(0x00_0000), 0x100_0000, "the wrap itself");
    assert_eq!(c.extend(0x00_0001), 0x100_0001);
    // Just under a whole wrap between two readings: still exact.
    assert_eq!(c.extend(0x00_0000), 0x200_0000);
    assert_eq!(c.count(), 0x200_0000);
    // Bits above the counter's width are ignored.
    assert_eq!(c.extend(0xAB00_0005), 0x200_0005);
}

#[test]
fn a_32_bit_counter_across_its_wrap() {
    let c = CounterExtender::<32>::new();
    assert_eq!(c.extend(u32::MAX - 1), u64::from(u32::MAX - 1));
    assert_eq!(c.extend(3), (1 << 32) + 3);
    assert_eq!(c.extend(u32::MAX), (2 << 32) - 1);
    assert_eq!(c.extend(u32::MAX), (2 << 32) - 1, "no time passed");
    assert_eq!(c.extend(0), 2 << 32);
}

#[test]
fn a_down_counter_counts_up() {
    // SysTick: 24 bits, counting down, reloaded at 0xFF_FFFF.
    let c = CounterExtender::<24>::new();
    let start = c.extend_down(2);
    assert_eq!(c.extend_down(1) - start, 1);
    assert_eq!(c.extend_down(0) - start, 2);
    assert_eq!(c.extend_down(0xFF_FFFF) - start, 3, "the wrap");
    assert_eq!(c.extend_down(0xFF_FFF0) - start, 0x12);
}

#[test]
fn many_wraps_read_often_enough_are_exact() {
    // A 24-bit counter read every 0x9_8765 ticks for 1000 readings (≈ 37 wraps).
    let c = CounterExtender::<24>::new();
    let mut truth = 0u64;
    for _ in 0..1000 {
        truth += 0x9_8765;
        assert_eq!(c.extend(truth as u32 & 0xFF_FFFF), truth);
    }
}
