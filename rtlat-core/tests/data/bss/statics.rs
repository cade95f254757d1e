//! Compiled by `tests/static_bss.rs` against rtlat-core: `static` histograms and statistics as
//! firmware holds them (in a cell that an interrupt handler may write), built with the `const`
//! constructors; the test reads their sections.
#![no_std]

use core::cell::UnsafeCell;
use rtlat_core::{DefaultHistogram, SmallHistogram, Stats, Summary};

/// A static's interior, writable from one context (as firmware does with its own guard).
pub struct Slot<T>(pub UnsafeCell<T>);

// SAFETY: nothing here touches the contents; the test only reads the sections.
unsafe impl<T> Sync for Slot<T> {}

#[used]
pub static DEFAULT_HISTOGRAM: Slot<DefaultHistogram> = Slot(UnsafeCell::new(DefaultHistogram::empty()));
#[used]
pub static SMALL_HISTOGRAM: Slot<SmallHistogram> = Slot(UnsafeCell::new(SmallHistogram::empty()));
#[used]
pub static SUMMARY: Slot<Summary> = Slot(UnsafeCell::new(Summary::new()));
#[used]
pub static STATS: Slot<Stats> = Slot(UnsafeCell::new(Stats::new()));
