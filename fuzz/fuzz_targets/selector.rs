#![no_main]
//! Any text as a kubectl label selector (`-l`).
use hpacalc::input::selector::Selector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Selector::parse(text);
    }
});
