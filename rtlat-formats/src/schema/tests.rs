//! The run documents written back byte for byte.

use super::cyclictest::Document;

/// The documents rtlat and cyclictest wrote, read into the shared types and written
/// back: byte for byte the same (key order, number formatting, `{      }`, `avg`).
#[test]
fn run_documents_are_written_back_byte_for_byte() {
    let mut files = vec![
        "../tests/data/peers/rtlat-2thr-h200.json".to_string(),
        "../tests/data/peers/rtlat-2thr-i1000.json".into(),
        "../tests/data/plot/rtlat-before.json".into(),
        "../tests/data/plot/rtlat-after.json".into(),
        "../tests/data/peers/cyclictest-2thr-hist.json".into(),
        "../tests/data/peers/cyclictest-2thr-ns.json".into(),
    ];
    if let Ok(more) = std::env::var("RTLAT_ROUND_TRIP") {
        files.extend(more.split(':').map(str::to_string));
    }
    for file in files {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&file);
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Document = serde_json::from_str(&text).unwrap();
        let again = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        // serde_json reads floats to within an ulp, not always back to the same
        // shortest text: a float may differ in its last digit, nothing else.
        let same = |a: &str, b: &str| {
            a == b
                || a.rsplit_once(": ").zip(b.rsplit_once(": ")).is_some_and(
                    |((ka, va), (kb, vb))| {
                        let number = |v: &str| v.trim_end_matches(',').parse::<f64>().ok();
                        ka == kb
                            && va.ends_with(',') == vb.ends_with(',')
                            && number(va)
                                .zip(number(vb))
                                .is_some_and(|(x, y)| (x - y).abs() <= x.abs() * 1e-15)
                    },
                )
        };
        if let Some((n, (a, b))) = text
            .lines()
            .zip(again.lines())
            .enumerate()
            .find(|(_, (a, b))| !same(a, b))
        {
            panic!("{file}: line {}: {a:?} written back as {b:?}", n + 1);
        }
        assert_eq!(again.lines().count(), text.lines().count(), "{file}");
        assert!(again.ends_with("}\n"), "{file}");
    }
}
