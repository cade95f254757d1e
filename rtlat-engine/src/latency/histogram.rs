//! Xenomai `latency`'s histograms: `-H` cells of `-B` ns over the latency's magnitude (an
//! early wake-up of 3 µs counts in the same cell as a late one of 3 µs, as in Xenomai), the
//! values beyond the last cell counted in the last cell; and the statistics of its `HSS|`
//! lines, computed over cell numbers.

use rtlat_core::{Layout, Linear, Record};

/// A Xenomai-style histogram. Recording is one multiply-shift (rtlat-core's [`Linear`]
/// layout, no division), a clamp and an increment: fit for the measurement loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XenomaiHistogram {
    layout: Linear,
    /// `[unused underflow, cell 0, …, cell H-1, beyond]` (the layout's counter order).
    counters: Vec<u64>,
}

impl XenomaiHistogram {
    /// `cells` cells of `bucket_ns` ns; `None` for zero cells or a zero width. Allocates and
    /// writes every counter, so recording touches mapped memory only.
    pub fn new(cells: usize, bucket_ns: u64) -> Option<Self> {
        if cells == 0 {
            return None;
        }
        let layout = Linear::new(0, bucket_ns).ok()?;
        let mut counters = vec![0u64; cells.checked_add(2)?];
        layout.check(counters.len()).ok()?;
        for c in counters.iter_mut() {
            *c = std::hint::black_box(0);
        }
        Some(XenomaiHistogram { layout, counters })
    }

    /// The counts per cell, cell 0 first; what lies beyond the last cell is counted in it.
    pub fn cells(&self) -> Vec<u64> {
        let n = self.counters.len();
        let mut cells = self.counters[1..n - 1].to_vec();
        if let Some(last) = cells.last_mut() {
            *last = last.saturating_add(self.counters[n - 1]);
        }
        cells
    }
}

impl Record for XenomaiHistogram {
    #[inline(always)]
    fn record(&mut self, value: i64) {
        // Xenomai counts the magnitude: |value| (i64::MIN's magnitude saturates).
        let magnitude = value.unsigned_abs().min(i64::MAX as u64) as i64;
        let index = self.layout.index(magnitude, self.counters.len());
        if let Some(counter) = self.counters.get_mut(index) {
            *counter = counter.saturating_add(1);
        }
    }
}

/// One `HSS|` line's figures: samples, mean and standard deviation of the cell numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellStats {
    /// Samples in the histogram.
    pub samples: u64,
    /// Mean cell number (`NaN` without samples, as Xenomai's 0/0).
    pub average: f64,
    /// Standard deviation of the cell numbers, unbiased (n − 1); 0 below two samples.
    pub stddev: f64,
}

/// Xenomai's `HSS|` statistics of `cells`.
pub fn cell_stats(cells: &[u64]) -> CellStats {
    let samples: u64 = cells.iter().sum();
    let weighted: f64 = cells
        .iter()
        .enumerate()
        .map(|(n, &hits)| n as f64 * hits as f64)
        .sum();
    let average = weighted / samples as f64;
    let stddev = if samples > 1 {
        let squares: f64 = cells
            .iter()
            .enumerate()
            .filter(|(_, hits)| **hits > 0)
            .map(|(n, &hits)| hits as f64 * (n as f64 - average) * (n as f64 - average))
            .sum();
        (squares / (samples - 1) as f64).sqrt()
    } else {
        0.0
    };
    CellStats {
        samples,
        average,
        stddev,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magnitudes_in_cells_beyond_in_the_last() {
        let mut h = XenomaiHistogram::new(4, 1000).unwrap();
        for v in [
            0,
            999,
            -999,
            1000,
            -1500,
            3999,
            4000,
            1_000_000,
            i64::MIN,
            i64::MAX,
        ] {
            h.record(v);
        }
        assert_eq!(h.cells(), vec![3, 2, 0, 5]);
    }

    #[test]
    fn stats_match_the_xenomai_fixture() {
        // The fixture's min histogram: cells 18, 18, 19 -> 3 samples, 18.333, 0.577.
        let mut cells = vec![0u64; 200];
        cells[18] = 2;
        cells[19] = 1;
        let s = cell_stats(&cells);
        assert_eq!(s.samples, 3);
        assert_eq!(format!("{:.3}", s.average), "18.333");
        assert_eq!(format!("{:.3}", s.stddev), "0.577");
        let empty = cell_stats(&[0, 0]);
        assert!(empty.average.is_nan());
        assert_eq!(empty.stddev, 0.0);
    }

    #[test]
    fn zero_cells_or_width_are_refused() {
        assert!(XenomaiHistogram::new(0, 1000).is_none());
        assert!(XenomaiHistogram::new(10, 0).is_none());
    }
}
