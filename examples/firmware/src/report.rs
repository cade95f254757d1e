//! What the main loop prints over semihosting, one line at a time:
//!
//! ```text
//! T: 0 (    0) P: 0 I:1000 C:    100 Min:    160 Act:     200 Avg:     680 Max:    8040
//! J: 0 I:1000 C:    100 MinI:   993040 MaxI:  1008120 Jitter:     8120 Overruns:      0
//! H: 0 C:    100 P50:     520 P90:    1480 P99:    8040 P99.9:    8040
//! ```
//!
//! `T:` is cyclictest's line with `-N` (lateness in ns against each interrupt's deadline; thread
//! id and priority are 0 on bare metal), `J:` LinuxCNC's interval jitter (ns; `Jitter` =
//! max(MaxI − period, period − MinI)), both rtlat-core's lines built from the monitor's figures
//! with 64-bit integers only; `H:` the lateness percentiles (ns) of the `histogram` build (its
//! `C:` is the histogram's own count, read a moment after the snapshot: one interrupt more is
//! possible).

use cortex_m_semihosting::hprintln;
use rtlat_core::report::JitterLines;

/// Prints the monitor's `T:` and `J:` lines (and the `H:` line).
pub fn lines(mut lines: JitterLines) {
    lines.nanoseconds = true;
    hprintln!("{}", lines);
    #[cfg(feature = "histogram")]
    if let Some((count, percentiles)) = crate::histogram::percentiles() {
        hprintln!("{}", PercentileLine { count, percentiles });
    }
}

/// `H: 0 C:%7u P50:%8d P90:%8d P99:%8d P99.9:%8d`, written by rtlat-core's line template (the
/// `T:` and `J:` lines' writer: no format arguments, no 64-bit division, no second copy of the
/// digit code).
#[cfg(feature = "histogram")]
struct PercentileLine {
    count: u64,
    percentiles: [i64; 4],
}

#[cfg(feature = "histogram")]
impl core::fmt::Display for PercentileLine {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use rtlat_core::report::template::{self, FIGURE, SIGNED};
        // `\x87`: a figure 7 wide; `\x98`: a signed figure 8 wide.
        const LINE: &[u8] = b"H: 0 C:\x87 P50:\x98 P90:\x98 P99:\x98 P99.9:\x98";
        const _: () = assert!(FIGURE | 7 == 0x87 && FIGURE | SIGNED | 8 == 0x98);
        let p = self.percentiles.map(|p| p as u64);
        template::write(f, LINE, &[self.count, p[0], p[1], p[2], p[3]], true)
    }
}
