#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(d) = hpacalc::time::Duration::parse(text) {
            let _ = d.to_string();
        }
        let _ = hpacalc::time::Timestamp::parse_rfc3339(text).map(|t| t.to_rfc3339());
    }
});
