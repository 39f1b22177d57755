#![no_main]
//! Any text as `kubectl get pods -o json|yaml`, and as `--nodes`/`--all-pods` captures.
use std::collections::HashSet;

use hpacalc::input::kubectl::{Scope, cluster, detect, pods};
use hpacalc::scenario::ObjectReference;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scope = Scope { namespace: "shop".into(), selector: None, selector_is_targets: false };
    let target = ObjectReference { api_version: "apps/v1".into(), kind: "Deployment".into(), name: "web".into() };
    let _ = pods::parse("fuzz.json", text, detect(text), &scope, &target);
    let workload: HashSet<&str> = HashSet::from(["web-1"]);
    let _ = cluster::parse("nodes.json", text, Some(("pods.json", text)), "shop", &workload);
});
