#![no_main]
use libfuzzer_sys::fuzz_target;

use hpacalc::input::paste;

// describe text, get-hpa tables and events: each parser, and the pasted HPA's validation.
fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let described = paste::describe::parse("fuzz.txt", text)
            .and_then(|all| paste::choose("fuzz.txt", all, None));
        for (form, chosen) in [
            (paste::Form::Describe, described),
            (paste::Form::Table, paste::table::parse_one("fuzz.txt", text, None, None)),
        ] {
            if let Ok(one) = chosen {
                let _ = one.into_loaded("fuzz.txt", form);
            }
        }
        if let Ok(events) = paste::events::parse("fuzz.yaml", text) {
            let _ = events.len();
        }
    }
});
