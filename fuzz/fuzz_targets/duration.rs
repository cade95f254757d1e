//! Option values (`rtlat::values::duration` for `-D 10s|5m|2h|1d`, `whole_number` for every
//! numeric option) on any text: a value or `None`/an error, never a panic; a parsed duration
//! is at most the limit and prints back (as whole seconds) to the same duration.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtlat::values::{duration, whole_number};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = whole_number(text);
    for limit in [0, 59, 86_400, u64::from(u32::MAX), u64::MAX] {
        if let Some(d) = duration(text, limit) {
            assert!(d.as_secs() <= limit, "{text:?} gave {d:?} over {limit}");
            let back = duration(&d.as_secs().to_string(), limit);
            assert_eq!(back, Some(d), "{text:?}");
        }
    }
});
