#![no_main]
//! Any text: parse, and when it parses, every derived value must be computable without a panic,
//! and the canonical form must parse back to the same milli-value.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(q) = hpacalc::quantity::Quantity::parse(text) {
        let _ = q.as_approximate_f64();
        if let Ok(milli) = q.milli_value() {
            let printed = hpacalc::quantity::format_milli(milli, q.format);
            let again = hpacalc::quantity::parse_milli(&printed);
            assert_eq!(again, Ok(milli), "{text:?} printed as {printed:?}");
        }
    }
});
