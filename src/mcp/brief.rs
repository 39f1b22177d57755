//! What a tool answers by default (`detail: "summary"`): the JSON of `-o json` cut to what fits
//! an assistant's context window (`ANSWER_BUDGET`, even for an HPA of 2,000 pods). The trace of
//! steps and the sources are left out, each list is cut to `LIST_LIMIT` items with its full
//! length beside it (`podsTotal: 2000`), and the pods that are not ready come first in a
//! metric's pod list, each with its name and class (and, when it is not ready, the reason). One
//! sync's diagnostics keep their code, severity and message: the text's WHY lines carry each
//! one's fix in full; its fields whose value is `null` are left out. An answer still over its budget
//! has its lists' strings shortened and its lists cut further. `detail: "full"` answers the whole
//! JSON instead. Reads the rendered value only, as every exporter does: nothing here computes.

use serde_json::{Map, Value};

/// The most items a list keeps in a summary.
pub const LIST_LIMIT: usize = 20;

/// Which answer a call asks for: the summary (the default) or the full report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    #[default]
    Summary,
    Full,
}

impl Detail {
    /// The `detail` argument: absent, `"summary"` or `"full"`.
    pub fn parse(given: Option<&Value>) -> Result<Detail, String> {
        match given {
            None | Some(Value::Null) => Ok(Detail::Summary),
            Some(Value::String(s)) if s == "summary" => Ok(Detail::Summary),
            Some(Value::String(s)) if s == "full" => Ok(Detail::Full),
            Some(other) => {
                let found = other
                    .as_str()
                    .map_or_else(|| other.to_string(), str::to_string);
                Err(format!(
                    "arguments: detail: found {}, expected \"summary\" or \"full\"",
                    crate::error::quoted(&found)
                ))
            }
        }
    }
}

/// The keys a summary of each answer leaves out: the trace and the inputs' provenance of one
/// sync; the per-sync rows and the load curve of a run.
const REPORT_DROPPED: [&str; 2] = ["steps", "sources"];
const SIMULATION_DROPPED: [&str; 2] = ["timeline", "loadCurve"];

/// The most bytes of a default answer, its text and its structured content together.
pub const ANSWER_BUDGET: usize = 8 * 1024;

/// The summary of an answer of `kind` within `budget` bytes where it can be: cut to
/// `LIST_LIMIT`, then, while it is larger, each long string in a list shortened and the lists
/// cut to 10, then to 5 (each list keeps its length beside it).
pub fn within(kind: &str, value: Value, budget: usize) -> Value {
    let mut brief = summary(kind, value);
    // The list of diagnostics is what was asked for: never cut.
    if kind == "diagnostics" {
        return brief;
    }
    let size = |v: &Value| v.to_string().len();
    if size(&brief) > budget {
        shorten_in_lists(&mut brief, false);
    }
    for limit in [10, 5] {
        if size(&brief) <= budget {
            break;
        }
        cut_lists(&mut brief, limit);
    }
    brief
}

/// The longest string an item of a list keeps once an answer is over its budget.
const LIST_STRING: usize = 120;

/// Every string inside a list longer than `LIST_STRING` characters, cut there with `…`.
fn shorten_in_lists(value: &mut Value, in_list: bool) {
    match value {
        Value::String(s) if in_list && s.chars().count() > LIST_STRING => {
            let cut: String = s.chars().take(LIST_STRING).collect();
            *s = format!("{cut}…");
        }
        Value::Object(map) => map.values_mut().for_each(|v| shorten_in_lists(v, in_list)),
        Value::Array(items) => items.iter_mut().for_each(|v| shorten_in_lists(v, true)),
        _ => {}
    }
}

/// The summary of an answer of `kind` (`report`, `whatIf`, `simulation`, `comparison`, `audit`,
/// `diagnostics`, or anything else: the lists cut only).
pub fn summary(kind: &str, mut value: Value) -> Value {
    match kind {
        "report" => report(&mut value),
        "whatIf" => {
            for side in ["before", "after"] {
                if let Some(r) = value.get_mut(side) {
                    report(r);
                }
            }
        }
        "simulation" => drop_keys(&mut value, &SIMULATION_DROPPED),
        "comparison" => {
            if let Some(Value::Array(configs)) = value.get_mut("configurations") {
                for c in configs {
                    if let Some(sim) = c.get_mut("simulation") {
                        drop_keys(sim, &SIMULATION_DROPPED);
                    }
                }
            }
        }
        "audit" => audit(&mut value),
        // Every code, without its example message: the list is what was asked for.
        "diagnostics" => {
            if let Some(Value::Array(entries)) = value.get_mut("diagnostics") {
                entries.iter_mut().for_each(|e| drop_field(e, "example"));
            }
        }
        _ => {}
    }
    if kind != "diagnostics" {
        cut_lists(&mut value, LIST_LIMIT);
    }
    // One sync's nulls: most of a metric's fields are null for any one metric type.
    if matches!(kind, "report" | "whatIf") {
        drop_nulls(&mut value);
    }
    if let Value::Object(map) = &mut value {
        map.insert("detail".into(), Value::String("summary".into()));
    }
    value
}

/// One sync: no steps and no sources; each metric's pods, those not ready first, a ready one
/// without its reason; each diagnostic without its fix (the text's WHY lines have it).
fn report(value: &mut Value) {
    drop_keys(value, &REPORT_DROPPED);
    if let Some(Value::Array(metrics)) = value.get_mut("metrics") {
        for m in metrics {
            if let Some(Value::Array(pods)) = m.get_mut("pods") {
                let ready = |p: &Value| p.get("class").and_then(Value::as_str) == Some("ready");
                // Stable: input order within each class.
                pods.sort_by_key(ready);
                pods.iter_mut()
                    .filter(|p| ready(p))
                    .for_each(|p| drop_field(p, "reason"));
            }
        }
    }
    if let Some(Value::Array(entries)) = value.get_mut("diagnostics") {
        entries.iter_mut().for_each(|d| drop_field(d, "fix"));
    }
}

/// Every field whose value is `null`, at any depth, left out: absent reads as `null`.
fn drop_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// An audit: each HPA as one row (its decision and its causes' codes), the findings as they are.
fn audit(value: &mut Value) {
    let Some(Value::Array(hpas)) = value.get_mut("hpas") else {
        return;
    };
    for h in hpas.iter_mut() {
        let pick = |key: &str| h.get(key).cloned().unwrap_or(Value::Null);
        let decision = h.get("decision");
        let codes: Vec<Value> = (h.get("diagnostics").and_then(Value::as_array))
            .into_iter()
            .flatten()
            .filter_map(|d| d.get("code").cloned())
            .collect();
        let mut row = Map::new();
        for key in ["hpa", "target", "currentReplicas", "desiredReplicas"] {
            row.insert(key.into(), pick(key));
        }
        for key in ["change", "summary"] {
            let v = decision.and_then(|d| d.get(key)).cloned();
            row.insert(key.into(), v.unwrap_or(Value::Null));
        }
        row.insert("diagnostics".into(), Value::Array(codes));
        *h = Value::Object(row);
    }
}

fn drop_field(value: &mut Value, key: &str) {
    if let Value::Object(map) = value {
        map.remove(key);
    }
}

/// Removes `keys` from an object, saying how many items each list held (`stepsTotal`).
fn drop_keys(value: &mut Value, keys: &[&str]) {
    let Value::Object(map) = value else { return };
    for key in keys {
        if let Some(Value::Array(items)) = map.remove(*key) {
            map.insert(format!("{key}Total"), Value::from(items.len()));
        }
    }
}

/// Every list longer than `limit`, at any depth, cut to its first `limit` items, with its full
/// length beside it (`pods` → `podsTotal`).
fn cut_lists(value: &mut Value, limit: usize) {
    match value {
        Value::Object(map) => {
            let mut totals = Vec::new();
            for (key, v) in map.iter_mut() {
                if let Value::Array(items) = v
                    && items.len() > limit
                {
                    totals.push((format!("{key}Total"), items.len()));
                    items.truncate(limit);
                }
                cut_lists(v, limit);
            }
            // A list cut before keeps the length it had first.
            for (key, n) in totals {
                map.entry(key).or_insert_with(|| Value::from(n));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| cut_lists(v, limit)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_cuts_each_list_to_twenty_with_its_length_not_ready_pods_first() {
        let mut pods: Vec<Value> = (0..2000)
            .map(|i| json!({"name": format!("web-{i}"), "class": "ready"}))
            .collect();
        pods[1500] = json!({"name": "web-1500", "class": "unready"});
        let full = json!({
            "hpa": "shop/web",
            "steps": [{"phase": "inputs"}],
            "sources": [],
            "metrics": [{"name": "cpu", "pods": pods}],
            "diagnostics": [{"code": "WithinTolerance"}],
        });
        let brief = summary("report", full);
        assert_eq!(brief["detail"], "summary");
        assert!(brief.get("steps").is_none() && brief.get("sources").is_none());
        assert_eq!(
            (brief["stepsTotal"].clone(), brief["sourcesTotal"].clone()),
            (json!(1), json!(0))
        );
        let m = &brief["metrics"][0];
        assert_eq!(m["pods"].as_array().unwrap().len(), LIST_LIMIT);
        assert_eq!(m["podsTotal"], 2000);
        assert_eq!(m["pods"][0]["name"], "web-1500");
        assert_eq!(m["pods"][1]["name"], "web-0");
        assert_eq!(brief["diagnostics"][0]["code"], "WithinTolerance");
    }

    #[test]
    fn a_summary_leaves_out_nulls_ready_pods_reasons_and_the_fixes_the_text_has() {
        let full = json!({
            "hpa": "shop/web",
            "nodes": null,
            "metrics": [{"name": "cpu", "error": null, "target": {"value": null, "averageUtilization": 50},
                "pods": [
                    {"name": "web-0", "class": "ready", "reason": "ready with a sample"},
                    {"name": "web-1", "class": "missing", "reason": "no metric sample"},
                ]}],
            "diagnostics": [{"code": "RateLimited", "severity": "info", "message": "m", "fix": "f"}],
        });
        let brief = summary("report", full);
        assert!(brief.get("nodes").is_none(), "{brief}");
        let m = &brief["metrics"][0];
        assert_eq!(m.as_object().unwrap().get("error"), None);
        assert_eq!(m["target"], json!({"averageUtilization": 50}));
        assert_eq!(
            m["pods"],
            json!([{"name": "web-1", "class": "missing", "reason": "no metric sample"},
                {"name": "web-0", "class": "ready"}])
        );
        assert_eq!(
            brief["diagnostics"],
            json!([{"code": "RateLimited", "severity": "info", "message": "m"}])
        );
        // Another answer keeps its fields, nulls included.
        let other = summary("simulation", json!({"events": [{"fix": "f", "at": null}]}));
        assert_eq!(other["events"], json!([{"fix": "f", "at": null}]));
    }

    #[test]
    fn an_answer_over_its_budget_shortens_the_strings_of_its_lists_then_cuts_them() {
        let pods: Vec<Value> = (0..2000)
            .map(|i| json!({"name": format!("web-{i}"), "class": "missing", "reason": "x".repeat(300)}))
            .collect();
        let full = json!({"hpa": "shop/web", "metrics": [{"pods": pods}]});
        let roomy = within("report", full.clone(), 1 << 20);
        assert_eq!(
            roomy["metrics"][0]["pods"].as_array().unwrap().len(),
            LIST_LIMIT
        );
        assert_eq!(
            roomy["metrics"][0]["pods"][0]["reason"]
                .as_str()
                .unwrap()
                .len(),
            300
        );
        let tight = within("report", full, 1200);
        let kept = tight["metrics"][0]["pods"].as_array().unwrap();
        assert_eq!(kept.len(), 5);
        assert_eq!(
            kept[0]["reason"].as_str().unwrap().chars().count(),
            LIST_STRING + 1
        );
        assert_eq!(tight["metrics"][0]["podsTotal"], 2000);
    }

    #[test]
    fn an_audit_summary_has_one_row_an_hpa() {
        let full = json!({"summary": {"hpas": 1}, "hpas": [{
            "hpa": "shop/web", "target": "Deployment/web", "currentReplicas": 2,
            "desiredReplicas": 4, "decision": {"change": "scaleUp", "summary": "up"},
            "steps": [1, 2], "diagnostics": [{"code": "ScaleUpLimit", "message": "m"}]}]});
        let brief = summary("audit", full);
        assert_eq!(
            brief["hpas"][0],
            json!({"hpa": "shop/web", "target": "Deployment/web", "currentReplicas": 2,
                "desiredReplicas": 4, "change": "scaleUp", "summary": "up",
                "diagnostics": ["ScaleUpLimit"]})
        );
    }

    #[test]
    fn detail_is_summary_by_default_full_when_asked_and_nothing_else() {
        assert_eq!(Detail::parse(None), Ok(Detail::Summary));
        assert_eq!(Detail::parse(Some(&json!("full"))), Ok(Detail::Full));
        assert_eq!(Detail::parse(Some(&json!("summary"))), Ok(Detail::Summary));
        let e = Detail::parse(Some(&json!("all"))).unwrap_err();
        assert!(e.starts_with("arguments: detail: found"), "{e}");
    }
}
