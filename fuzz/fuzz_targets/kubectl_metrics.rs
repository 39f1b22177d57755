#![no_main]
//! Any text as a PodMetricsList (JSON or YAML) or as `kubectl top pods --containers` output.
use std::collections::HashSet;

use hpacalc::input::kubectl::{Format, Scope, detect, metrics};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scope = Scope { namespace: "shop".into(), selector: None, selector_is_targets: false };
    let excluded = HashSet::new();
    let _ = metrics::parse("fuzz", text, detect(text), &scope, &excluded);
    let _ = metrics::parse("fuzz", text, Format::Text, &scope, &excluded);
});
