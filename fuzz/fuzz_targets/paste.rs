#![no_main]
use libfuzzer_sys::fuzz_target;

use hpacalc::input::paste;

// describe text, get-hpa tables and events: each parser, and the pasted HPA's validation.
fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for (form, parsed) in [
            (paste::Form::Describe, paste::describe::parse("fuzz.txt", text)),
            (paste::Form::Table, paste::table::parse("fuzz.txt", text)),
        ] {
            if let Ok(all) = parsed {
                if let Ok(one) = paste::choose("fuzz.txt", all, None) {
                    let _ = one.into_loaded("fuzz.txt", form);
                }
            }
        }
        if let Ok(events) = paste::events::parse("fuzz.yaml", text) {
            let _ = events.len();
        }
    }
});
