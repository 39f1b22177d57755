#![no_main]
//! Any text as the API server's answer to each request live mode makes: a page of a list, a
//! Status, a discovery document, a scale, a metrics answer, the HPA; then the readers the
//! answers go to (the pod pages, a cluster list page, the HPA manifest).
use hpacalc::input::cluster::Dump;
use hpacalc::input::kubectl::Scope;
use hpacalc::input::kubectl::pods::Pages;
use hpacalc::input::live::answer;
use hpacalc::input::manifest;
use hpacalc::scenario::ObjectReference;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(page) = answer::Page::parse(text) {
        let _ = (page.next(), page.items().len());
    }
    let _ = answer::status_message(text);
    let _ = answer::names(text);
    let _ = answer::resource_of(text, "Deployment");
    let _ = answer::metric_items(text);
    let target = ObjectReference {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        name: "web".into(),
    };
    let _ = answer::scope_of(text, &target, "shop");
    let scope = Scope { namespace: "shop".into(), selector: None, selector_is_targets: true };
    let _ = Pages::new("pods.json", &scope, &target).page(text);
    let mut dump = Dump::default();
    let _ = dump.read_page("/api/v1/pods", "Pod", "v1", text);
    let _ = manifest::load("HPA shop/web (live)", text, None);
});
