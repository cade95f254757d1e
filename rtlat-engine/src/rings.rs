//! rtlat-core's rings with their storage on the heap, allocated (and written) before the
//! run: the [`SampleRing`] (`-v`, `--explain`, the monitor) and the per-second [`WindowRing`].

use rtlat_core::ring::{self, Slot};
use rtlat_core::windows::{self, WindowSlot};

/// Closed windows a [`WindowRing`] holds until the main thread drains them (the main thread
/// drains every few milliseconds; this is minutes of slack).
pub const RING_CAPACITY: usize = 128;

/// The ring of (cycle, latency, wake-up ticks) samples.
pub type SampleRing = ring::SampleRing<Box<[Slot<3>]>>;

/// The `-v` ring of a run with `--smi`: `[cycle, latency as u64, wake-up ticks, the SMIs
/// counted since the previous wake-up]`.
pub type SmiSampleRing = ring::Ring<Box<[Slot<4>]>, 4>;

/// The ring of closed per-second windows.
pub type WindowRing = windows::WindowRing<Box<[WindowSlot]>>;

/// A sample ring for `capacity` samples (at least 1).
pub fn sample_ring(capacity: usize) -> SampleRing {
    SampleRing::new((0..capacity.max(1)).map(|_| Slot::new()).collect())
}

/// An SMI sample ring for `capacity` samples (at least 1).
pub fn smi_sample_ring(capacity: usize) -> SmiSampleRing {
    SmiSampleRing::new((0..capacity.max(1)).map(|_| Slot::new()).collect())
}

/// A window ring for `capacity` windows (at least 1).
pub fn window_ring(capacity: usize) -> WindowRing {
    WindowRing::new((0..capacity.max(1)).map(|_| WindowSlot::new()).collect())
}

/// A window ring of [`RING_CAPACITY`].
pub fn default_window_ring() -> WindowRing {
    window_ring(RING_CAPACITY)
}
