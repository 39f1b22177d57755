#![no_main]
//! Any text as a KEDA ScaledObject: as a manifest, and as the body of one (the fuzzer need not find
//! the `kind: ScaledObject` header to reach the translation).
use libfuzzer_sys::fuzz_target;

use hpacalc::input::manifest;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = manifest::load("fuzz.yaml", text, None);
    let wrapped = format!("apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\n{text}");
    if let Ok(loaded) = manifest::load("fuzz.yaml", &wrapped, None) {
        let _ = loaded.keda.is_some();
    }
});
