#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = hpacalc::input::history::parse("fuzz.csv", text, hpacalc::time::Timestamp(1_800_000_000_000));
    }
});
