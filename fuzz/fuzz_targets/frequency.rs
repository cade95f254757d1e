//! CPU frequencies as people write them (`rtlat_system::tune::frequency::parse_frequency`:
//! `1.6GHz`, `800 MHz`, `1600000`) on any text: kHz or an error in words, never a panic; a
//! parsed frequency is above zero and reads back the same written as `<kHz>kHz`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtlat_system::tune::frequency::parse_frequency;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(khz) = parse_frequency(text) {
        assert!(khz > 0, "{text:?} gave 0 kHz");
        assert_eq!(parse_frequency(&format!("{khz}kHz")), Ok(khz), "{text:?}");
    }
});
