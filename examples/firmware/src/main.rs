//! rtlat-core's jitter monitor inside firmware: a Cortex-M4F program for QEMU's `mps2-an386`.
//!
//! SysTick interrupts every 1 ms; its handler reads the free-running time source (CMSDK TIMER0
//! at 25 MHz, extended to 64 bits), works out its own deadline (SysTick's expiry) and ticks a
//! `static` lock-free jitter monitor with both, in raw ticks. The main loop sleeps
//! (`wfi`) and every 100 interrupts prints cyclictest-style `T:` lines and the max jitter over
//! semihosting; after 10 reports it exits through semihosting, so QEMU ends with the firmware's
//! status. A time source that does not advance between two interrupts (QEMU's DWT cycle counter,
//! `--features dwt-clock`) is reported and the firmware exits with a failure.
//!
//! Without the `monitor` feature the same firmware only counts interrupts: the baseline of the
//! size and instruction figures (README.md).
//!
//! With the `delay` feature (and without the monitor) it measures a HAL delay instead: how late
//! cortex-m's SysTick `Delay` wakes from `delay_us`, timed by rtlat-core's `DelayProbe`.

#![no_std]
#![no_main]

mod board;
mod clock;
#[cfg(feature = "delay")]
mod delay;
#[cfg(feature = "histogram")]
mod histogram;
#[cfg(feature = "monitor")]
mod monitor;
#[cfg(feature = "monitor")]
mod report;

#[cfg(all(feature = "delay", feature = "monitor"))]
compile_error!(
    "the delay measurement is built without the monitor: --no-default-features --features delay"
);

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{debug, hprintln};

/// Interrupts per report line.
#[cfg(not(feature = "delay"))]
const TICKS_PER_LINE: u32 = 100;
/// Report lines before the firmware exits.
const LINES: u32 = 10;
/// The interrupt's period in core cycles (= time-source ticks: both run at the 25 MHz SYSCLK).
const PERIOD_CYCLES: u32 = clock::PERIOD;

/// Timer interrupts handled (written by the interrupt only).
static INTERRUPTS: AtomicU32 = AtomicU32::new(0);
/// Set by the interrupt when the time source did not advance since the previous interrupt.
static FROZEN: AtomicBool = AtomicBool::new(false);

#[entry]
fn main() -> ! {
    let mut core = cortex_m::Peripherals::take().expect("first and only take");
    clock::start(&mut core.DCB, &mut core.DWT);
    #[cfg(feature = "delay")]
    {
        hprintln!(
            "# rtlat firmware: mps2-an386, delay_us({}) by cortex-m's SysTick Delay, time source CMSDK TIMER0 at {} Hz",
            delay::DELAY_US,
            clock::RATE_HZ
        );
        delay::measure(core.SYST, LINES);
        hprintln!("# end: {} lines", LINES);
        exit(true);
    }
    #[cfg(not(feature = "delay"))]
    periodic(core)
}

/// The jitter monitor's run: SysTick interrupts every period, a report every
/// [`TICKS_PER_LINE`] of them.
#[cfg(not(feature = "delay"))]
fn periodic(mut core: cortex_m::Peripherals) -> ! {
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
    hprintln!("# histogram: {} bytes", histogram::BYTES);
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
#[cfg(all(feature = "monitor", not(feature = "delay")))]
fn print_line() {
    report::lines(monitor::lines());
}

/// Prints the interrupt count only (the baseline without the monitor).
#[cfg(not(any(feature = "monitor", feature = "delay")))]
fn print_line() {
    hprintln!("C: {}", INTERRUPTS.load(Ordering::Relaxed));
}

/// The periodic interrupt: reads the time source, refuses a frozen one, and ticks the monitor
/// with the time and the interrupt's deadline.
#[exception]
fn SysTick() {
    static mut PREVIOUS: Option<u32> = None;
    static mut DEADLINES: clock::Deadlines = clock::Deadlines::new();
    let now = clock::now();
    let since_expiry = board::since_periodic_expiry(PERIOD_CYCLES);
    // A hardware timer read every period always moves: one that did not is frozen.
    if PREVIOUS.replace(now) == Some(now) {
        FROZEN.store(true, Ordering::Relaxed);
        return;
    }
    let deadline = DEADLINES.deadline(now, since_expiry);
    #[cfg(feature = "monitor")]
    monitor::tick(now, deadline);
    // The baseline computes the same, so the figures' difference is the monitor alone.
    #[cfg(not(feature = "monitor"))]
    core::hint::black_box((now, deadline));
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

/// A panic prints where it happened and ends the run with a failure (never hangs CI). Its
/// message is left out: formatting it links the formatter of every value any panic message in
/// the program can show (1.7 KiB for one `i128`), which would blur the size figures.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    match info.location() {
        Some(at) => hprintln!("panic at {}:{}", at.file(), at.line()),
        None => hprintln!("panic"),
    }
    exit(false)
}
