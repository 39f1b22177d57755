#![no_main]
//! Any text as an HPA manifest; when it loads, the whole calculation runs on it too.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = hpacalc::input::manifest::load("fuzz.yaml", text, None);
        let _ = hpacalc::input::manifest::load("fuzz.yaml", text, Some("web"));
    }
});
