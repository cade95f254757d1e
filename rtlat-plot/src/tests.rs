//! Any per-second series in an rtlat file, from its text to the SVG: refused with the
//! block's place, or drawn; never a panic (the drawing's pixel arithmetic included).

use proptest::prelude::*;
use serde_json::{Value, json};

use super::input::Input;
use super::time_series::{self, MAX_TIME_S, MIN_PERIOD_S};
use super::{figure, svg};

const BEFORE: &str = include_str!("../../tests/data/plot/rtlat-before.json");

/// A JSON number as a file may have it: small, huge, negative, fractional or extreme.
fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u64..100).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
            .prop_map(Value::from),
        prop::sample::select(vec![0.0, -1.0, 1e-300, 1e300, 0.001, MAX_TIME_S, 4.2e9])
            .prop_map(Value::from),
        Just(Value::Null),
        Just(Value::from("1")),
    ]
}

/// One entry: mostly what a run writes (rising times, maxima with cycles), some values
/// replaced by [`number`].
fn entry() -> impl Strategy<Value = Value> {
    (
        prop::option::of(number()),
        prop::option::of(number()),
        prop::option::of(number()),
    )
        .prop_map(|(t, max, cycles)| {
            let mut e = json!({"t": 0, "cycles": 1, "max": 1000});
            for (key, value) in [("t", t), ("max", max), ("cycles", cycles)] {
                if let Some(v) = value {
                    e[key] = v;
                }
            }
            e
        })
}

/// A `seconds` block.
fn seconds() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just(Value::from(1)), number()],
        prop::collection::vec(entry(), 0..12),
        any::<bool>(),
    )
        .prop_map(|(period, mut entries, rising)| {
            if rising {
                // Keep the times a run writes where the entry's own was not replaced.
                for (i, e) in entries.iter_mut().enumerate() {
                    if e["t"] == json!(0) {
                        e["t"] = json!(i);
                    }
                }
            }
            json!({"period_s": period, "entries": entries})
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_seconds_block_is_refused_or_drawn(block in seconds()) {
        let mut doc: Value = serde_json::from_str(BEFORE).unwrap();
        doc["thread"]["1"]["rtlat"]["seconds"] = block;
        let text = serde_json::to_string(&doc).unwrap();
        let run = rtlat_formats::parse(&text).unwrap();
        let timelines = match time_series::timelines(&run, &text) {
            Ok(timelines) => timelines,
            Err(e) => {
                prop_assert!(e.starts_with("thread.1.rtlat.seconds."), "{}", e);
                prop_assert!(!e.contains('\n'), "{}", e);
                return Ok(());
            }
        };
        // What is accepted is a series a run can have.
        for t in &timelines {
            prop_assert!((MIN_PERIOD_S..=MAX_TIME_S).contains(&t.period_s));
            for w in t.points.windows(2) {
                prop_assert!(w[0].0 < w[1].0);
            }
            for p in &t.points {
                prop_assert!(p.0 >= 0.0 && p.0 + t.period_s <= MAX_TIME_S);
            }
        }
        let input = Input {
            path: "before.json".into(),
            name: "before.json".into(),
            run,
            timelines,
        };
        let figure = figure::build(std::slice::from_ref(&input), None, None).unwrap();
        let image = svg(&figure, (1200, 1150)).unwrap();
        prop_assert!(!image.is_empty());
    }
}
