//! A histogram as the steps the plot draws: buckets gathered into bins of one width (1 µs,
//! as cyclictest's and OSADL's plots count them, wider only for very long x ranges), so that
//! the heights of curves from different formats compare. A bucket wider than a bin (rtlat's
//! log-linear buckets far out in the tail, Xenomai's with a large `-B`) keeps its own width
//! and count: a count is never spread thinner than one sample.

use rtlat_formats::Histogram;

/// One step of a curve: `count` samples in `[from_ns, to_ns)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Start, ns.
    pub from_ns: i64,
    /// End (exclusive), ns.
    pub to_ns: i64,
    /// Samples in it.
    pub count: u64,
}

/// Bin widths to choose from, ns: 1, 2, 5, 10 … µs.
const NICE_BINS_NS: [i64; 10] = [
    1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000,
];

/// The bin width that keeps an x range of `span_ns` within `max_bins` bins.
pub fn bin_width_ns(span_ns: i64, max_bins: i64) -> i64 {
    NICE_BINS_NS
        .iter()
        .copied()
        .find(|w| span_ns / w <= max_bins)
        .unwrap_or(NICE_BINS_NS[NICE_BINS_NS.len() - 1])
}

/// The histogram's in-range buckets as steps of at least `bin_ns`, in order, none empty.
pub fn steps(histogram: &Histogram, bin_ns: i64) -> Vec<Step> {
    let mut buckets: Vec<_> = histogram.buckets().iter().filter(|b| b.count > 0).collect();
    buckets.sort_by_key(|b| b.low);
    let mut steps: Vec<Step> = Vec::new();
    for b in buckets {
        let width = (b.high as i128 - b.low as i128 + 1).max(1);
        let (mut from, to) = if width <= bin_ns as i128 {
            let middle = b.low as i128 + (width - 1) / 2;
            let bin = middle.div_euclid(bin_ns as i128);
            (bin * bin_ns as i128, (bin + 1) * bin_ns as i128)
        } else {
            (b.low as i128, b.high as i128 + 1)
        };
        if let Some(last) = steps.last_mut() {
            if from as i64 == last.from_ns && to as i64 == last.to_ns {
                last.count = last.count.saturating_add(b.count);
                continue;
            }
            // A wide bucket starting inside the previous bin: start where the bin ends.
            from = from.max(last.to_ns as i128);
            if from >= to {
                last.count = last.count.saturating_add(b.count);
                continue;
            }
        }
        let clamp = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        steps.push(Step {
            from_ns: clamp(from),
            to_ns: clamp(to),
            count: b.count,
        });
    }
    steps
}

/// `steps` that start below `end_ns`, the last one cut there (the axis ends at `end_ns`).
pub fn cut(steps: Vec<Step>, end_ns: i64) -> Vec<Step> {
    steps
        .into_iter()
        .filter(|s| s.from_ns < end_ns)
        .map(|s| Step {
            to_ns: s.to_ns.min(end_ns),
            ..s
        })
        .collect()
}

/// The outlines of `steps` as polylines of `(x, y)` with x in µs: each run of adjacent steps
/// rises from `floor`, follows the counts and falls back to `floor`, so that a lone sample is
/// a visible spike and empty bins draw nothing.
pub fn outlines(steps: &[Step], floor: f64) -> Vec<Vec<(f64, f64)>> {
    let us = |ns: i64| ns as f64 / 1000.0;
    let mut lines: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut previous_end: Option<i64> = None;
    for s in steps {
        let y = s.count as f64;
        if previous_end != Some(s.from_ns) {
            if let (Some(line), Some(end)) = (lines.last_mut(), previous_end) {
                line.push((us(end), floor));
            }
            lines.push(vec![(us(s.from_ns), floor)]);
        }
        let line = lines.last_mut().expect("a line was started");
        line.push((us(s.from_ns), y));
        line.push((us(s.to_ns), y));
        previous_end = Some(s.to_ns);
    }
    if let (Some(line), Some(end)) = (lines.last_mut(), previous_end) {
        line.push((us(end), floor));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtlat_formats::{Bucket, Resolution};

    fn histogram(buckets: &[(i64, i64, u64)]) -> Histogram {
        let buckets = buckets
            .iter()
            .map(|&(low, high, count)| Bucket { low, high, count })
            .collect();
        Histogram::new(
            buckets,
            (0, -1_000_000),
            (0, 1_000_000_000),
            Resolution::LogLinear { precision: 6 },
        )
        .unwrap()
    }

    #[test]
    fn narrow_buckets_gather_into_microseconds() {
        let h = histogram(&[
            (12_288, 12_415, 2),
            (12_416, 12_543, 3),
            (12_928, 13_055, 1), // middle 12 991: still the 12 µs bin
            (13_056, 13_183, 4),
            (20_000, 20_127, 1),
        ]);
        assert_eq!(
            steps(&h, 1000),
            [
                Step {
                    from_ns: 12_000,
                    to_ns: 13_000,
                    count: 6
                },
                Step {
                    from_ns: 13_000,
                    to_ns: 14_000,
                    count: 4
                },
                Step {
                    from_ns: 20_000,
                    to_ns: 21_000,
                    count: 1
                },
            ]
        );
    }

    #[test]
    fn wide_buckets_keep_their_width_and_count() {
        let h = histogram(&[
            (64_500, 64_600, 1),
            (64_601, 66_600, 2),
            (258_048, 260_095, 1),
        ]);
        assert_eq!(
            steps(&h, 1000),
            [
                Step {
                    from_ns: 64_000,
                    to_ns: 65_000,
                    count: 1
                },
                Step {
                    from_ns: 65_000,
                    to_ns: 66_601,
                    count: 2
                },
                Step {
                    from_ns: 258_048,
                    to_ns: 260_096,
                    count: 1
                },
            ]
        );
    }

    #[test]
    fn negative_latencies_bin_downwards() {
        let h = histogram(&[(-1_500, -1_001, 2), (-999, -500, 1)]);
        let s = steps(&h, 1000);
        assert_eq!((s[0].from_ns, s[0].to_ns, s[0].count), (-2_000, -1_000, 2));
        assert_eq!((s[1].from_ns, s[1].to_ns, s[1].count), (-1_000, 0, 1));
    }

    #[test]
    fn outlines_rise_from_the_floor_and_break_at_gaps() {
        let s = [
            Step {
                from_ns: 1_000,
                to_ns: 2_000,
                count: 10,
            },
            Step {
                from_ns: 2_000,
                to_ns: 3_000,
                count: 5,
            },
            Step {
                from_ns: 9_000,
                to_ns: 10_000,
                count: 1,
            },
        ];
        assert_eq!(
            outlines(&s, 0.5),
            [
                vec![
                    (1.0, 0.5),
                    (1.0, 10.0),
                    (2.0, 10.0),
                    (2.0, 5.0),
                    (3.0, 5.0),
                    (3.0, 0.5)
                ],
                vec![(9.0, 0.5), (9.0, 1.0), (10.0, 1.0), (10.0, 0.5)],
            ]
        );
        assert!(outlines(&[], 0.5).is_empty());
    }

    #[test]
    fn cutting_ends_the_steps_at_the_axis() {
        let s = vec![
            Step {
                from_ns: 1_000,
                to_ns: 2_000,
                count: 10,
            },
            Step {
                from_ns: 2_000,
                to_ns: 4_000,
                count: 5,
            },
            Step {
                from_ns: 9_000,
                to_ns: 10_000,
                count: 1,
            },
        ];
        assert_eq!(
            cut(s, 3_000),
            [
                Step {
                    from_ns: 1_000,
                    to_ns: 2_000,
                    count: 10
                },
                Step {
                    from_ns: 2_000,
                    to_ns: 3_000,
                    count: 5
                },
            ]
        );
    }

    #[test]
    fn bin_width_grows_only_for_long_ranges() {
        assert_eq!(bin_width_ns(500_000, 4000), 1000);
        assert_eq!(bin_width_ns(4_000_000, 4000), 1000);
        assert_eq!(bin_width_ns(4_001_000, 4000), 2000);
        assert_eq!(bin_width_ns(50_000_000, 4000), 20_000);
    }
}
