//! QEMU's `mps2-an386` board (ARM's MPS2 with the AN386 Cortex-M4 FPGA image): the 25 MHz system
//! clock, SysTick as the periodic interrupt and CMSDK APB TIMER0 as the free-running time source.
//!
//! The only `unsafe` of the firmware is here: the two volatile accesses to TIMER0's registers.
//! (On another board, SysTick and the time source may run at different rates: the deadline
//! arithmetic in `clock.rs` assumes one clock.)

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;

/// The system clock feeding the core (SysTick) and the APB timers, Hz.
pub const SYSCLK_HZ: u32 = 25_000_000;

/// CMSDK APB TIMER0 (its interrupt, IRQ 8, stays disabled: the timer only counts).
const TIMER0: usize = 0x4000_0000;
const CTRL: usize = 0x00;
const VALUE: usize = 0x04;
const RELOAD: usize = 0x08;
const CTRL_ENABLE: u32 = 1;

/// Starts TIMER0 counting down from 2^32 − 1 at [`SYSCLK_HZ`], wrapping every 171.8 s: the
/// free-running time source. No interrupt.
pub fn start_time_source() {
    write_timer0(RELOAD, u32::MAX);
    write_timer0(VALUE, u32::MAX);
    write_timer0(CTRL, CTRL_ENABLE);
}

/// Starts SysTick on the core clock, interrupting every `period_cycles`.
#[cfg_attr(feature = "delay", allow(dead_code))]
pub fn start_periodic_interrupt(syst: &mut SYST, period_cycles: u32) {
    syst.set_clock_source(SystClkSource::Core);
    // SysTick counts RELOAD..=0: RELOAD + 1 cycles per period.
    syst.set_reload(period_cycles - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// TIMER0's value: it counts down, wrapping from 0 to 2^32 − 1.
#[cfg_attr(feature = "dwt-clock", allow(dead_code))]
#[inline(always)]
pub fn time_source_value() -> u32 {
    read_timer0(VALUE)
}

/// Core cycles since SysTick last reached 0 (its latest expiry, when it set the interrupt
/// pending), for a period of `period_cycles`: SysTick then reloads `period_cycles − 1` and
/// counts down.
#[inline(always)]
pub fn since_periodic_expiry(period_cycles: u32) -> u32 {
    match SYST::get_current() {
        0 => 0,
        current => period_cycles - current,
    }
}

fn write_timer0(register: usize, value: u32) {
    // SAFETY: TIMER0's registers are memory-mapped at this fixed address on the mps2-an386;
    // nothing else in the firmware touches TIMER0, and a 32-bit volatile write is how the
    // CMSDK APB timer is programmed.
    unsafe { core::ptr::write_volatile((TIMER0 + register) as *mut u32, value) }
}

#[cfg_attr(feature = "dwt-clock", allow(dead_code))]
#[inline(always)]
fn read_timer0(register: usize) -> u32 {
    // SAFETY: as in `write_timer0`; reading VALUE has no side effect.
    unsafe { core::ptr::read_volatile((TIMER0 + register) as *const u32) }
}
