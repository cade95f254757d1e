//! Format detection and the reader it picks (`rtlat_formats::parse`) on any text: a run or
//! a typed error, never a panic; the detected format is the one the run reports, and its
//! error message is printable.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("common_check.rs");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let detected = rtlat_formats::detect(text);
    match rtlat_formats::parse(text) {
        Ok(run) => {
            assert_eq!(detected, Ok(run.format));
            check_run(&run);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
