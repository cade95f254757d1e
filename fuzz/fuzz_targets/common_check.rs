// Shared by the format targets (included with `include!`): every question a parsed run can
// answer must be answered without panicking, and a percentile in a bucket lies in it.

#[allow(dead_code)]
fn check_run(run: &rtlat_formats::Run) {
    use rtlat_formats::Percentile;
    let _ = run.worst_case();
    for s in &run.series {
        let mut previous: Option<i64> = None;
        for p in [0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0] {
            match s.percentile(p) {
                Some(Percentile::Within { value, low, high }) => {
                    assert!(
                        low <= value && value <= high,
                        "{value} outside [{low}, {high}]"
                    );
                    previous = Some(value);
                }
                Some(Percentile::AtLeast(limit)) => {
                    if let Some(v) = previous {
                        assert!(v < limit, "bound {limit} not above an earlier value {v}");
                    }
                }
                Some(Percentile::Below(_)) | None => {}
            }
        }
        if let Some(h) = &s.histogram {
            assert_eq!(
                h.count(),
                h.in_range()
                    .saturating_add(h.underflow())
                    .saturating_add(h.overflow())
            );
            for pair in h.buckets().windows(2) {
                assert!(pair[0].high < pair[1].low, "buckets out of order");
            }
            let _ = h.resolution().to_string();
        }
    }
}
