//! The reader of rtlat --json files (`rtlat_formats::rtlat_json::parse`) on any text: a run or a typed
//! error, never a panic; a parsed run answers every question (percentiles inside their
//! bucket, histogram counts conserved, buckets in order).
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("common_check.rs");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(run) = rtlat_formats::rtlat_json::parse(text) {
        check_run(&run);
    }
});
