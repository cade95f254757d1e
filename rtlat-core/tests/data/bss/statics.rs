//! Compiled by `tests/static_bss.rs` for thumbv7em-none-eabihf against rtlat-core: `static`
//! histograms and statistics as firmware holds them (behind a critical-section mutex, so they
//! are writable), built with the `const` constructors; the test reads their sections.
#![no_std]

use core::cell::RefCell;
use critical_section::Mutex;
use rtlat_core::{DefaultHistogram, SmallHistogram, Stats, Summary};

#[used]
pub static DEFAULT_HISTOGRAM: Mutex<RefCell<DefaultHistogram>> =
    Mutex::new(RefCell::new(DefaultHistogram::empty()));
#[used]
pub static SMALL_HISTOGRAM: Mutex<RefCell<SmallHistogram>> =
    Mutex::new(RefCell::new(SmallHistogram::empty()));
#[used]
pub static SUMMARY: Mutex<RefCell<Summary>> = Mutex::new(RefCell::new(Summary::new()));
#[used]
pub static STATS: Mutex<RefCell<Stats>> = Mutex::new(RefCell::new(Stats::new()));
