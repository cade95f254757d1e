//! rtlat-core's jitter monitor inside firmware: a Cortex-M4F program for QEMU's `mps2-an386`.
//!
//! SysTick interrupts every 1 ms; its handler reads the free-running time source (CMSDK TIMER0
//! at 25 MHz, extended to 64 bits) and ticks a `static` jitter monitor. The main loop sleeps
//! (`wfi`) and every 100 interrupts prints cyclictest-style `T:` lines and the max jitter over
//! semihosting; after 10 reports it exits through semihosting, so QEMU ends with the firmware's
//! status. A time source that does not advance between two interrupts (QEMU's DWT cycle counter,
//! `--features dwt-clock`) is reported and the firmware exits with a failure.
//!
//! Without the `monitor` feature the same firmware only counts interrupts: the baseline of the
//! size and instruction figures (README.md).

#![no_std]
#![no_main]

mod board;
mod clock;
#[cfg(feature = "histogram")]
mod histogram;
#[cfg(feature = "monitor")]
mod monitor;
#[cfg(feature = "monitor")]
mod report;

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{debug, hprintln};

/// Interrupts per report line.
const TICKS_PER_LINE: u32 = 100;
/// Report lines before the firmware exits.
const LINES: u32 = 10;
/// The interrupt's period in core cycles (= time-source ticks: both run at the 25 MHz SYSCLK).
const PERIOD_CYCLES: u32 = clock::RATE_HZ / 1000;

/// Timer interrupts handled (written by the interrupt only).
static INTERRUPTS: AtomicU32 = AtomicU32::new(0);
/// Set by the interrupt when the time source did not advance since the previous interrupt.
static FROZEN: AtomicBool = AtomicBool::new(false);

#[entry]
fn main() -> ! {
    let mut core = cortex_m::Peripherals::take().expect("first and only take");
    clock::start(&mut core.DCB, &mut core.DWT);
    hprintln!(
        "# rtlat firmware: mps2-an386, SysTick every {} cycles, time source {} at {} Hz",
        PERIOD_CYCLES,
        if cfg!(feature = "dwt-clock") {
            "DWT CYCCNT"
        } else {
            "CMSDK TIMER0"
        },
        clock::RATE_HZ
    );
    #[cfg(feature = "histogram")]
    {
        histogram::init();
        hprintln!("# histogram: {} bytes", histogram::BYTES);
    }
    board::start_periodic_interrupt(&mut core.SYST, PERIOD_CYCLES);

    let mut lines = 0;
    loop {
        cortex_m::asm::wfi();
        if FROZEN.load(Ordering::Relaxed) {
            hprintln!(
                "error: the time source did not advance between two timer interrupts: refusing a frozen clock (QEMU does not emulate the DWT cycle counter)"
            );
            exit(false);
        }
        if INTERRUPTS.load(Ordering::Relaxed) < (lines + 1) * TICKS_PER_LINE {
            continue;
        }
        print_line();
        lines += 1;
        if lines == LINES {
            hprintln!("# end: {} lines", lines);
            exit(true);
        }
    }
}

/// Prints one report.
#[cfg(feature = "monitor")]
fn print_line() {
    let (report, act_ns) = monitor::report();
    report::lines(&report, act_ns);
}

/// Prints the interrupt count only (the baseline without the monitor).
#[cfg(not(feature = "monitor"))]
fn print_line() {
    hprintln!("C: {}", INTERRUPTS.load(Ordering::Relaxed));
}

/// The periodic interrupt: reads the time source and ticks the monitor.
#[exception]
fn SysTick() {
    static mut CLOCK: clock::Extended = clock::Extended::new();
    let Some(now) = CLOCK.advance(clock::raw()) else {
        FROZEN.store(true, Ordering::Relaxed);
        return;
    };
    #[cfg(feature = "monitor")]
    monitor::tick(now);
    #[cfg(not(feature = "monitor"))]
    let _ = now;
    // Only this interrupt writes the count: a load and a store, no read-modify-write loop.
    INTERRUPTS.store(INTERRUPTS.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
}

/// Ends the QEMU run with a status (semihosting `SYS_EXIT`).
fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    loop {
        cortex_m::asm::wfi();
    }
}

/// A panic prints its message and ends the run with a failure (never hangs CI).
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    hprintln!("panic: {}", info);
    exit(false)
}
