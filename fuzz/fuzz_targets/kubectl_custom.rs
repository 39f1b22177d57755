#![no_main]
//! Any text as a custom (MetricValueList) or external (ExternalMetricValueList) metrics answer.
use hpacalc::input::kubectl::{custom, detect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = custom::parse_custom("fuzz.json", text, detect(text));
    let _ = custom::parse_external("fuzz.json", text, detect(text));
});
