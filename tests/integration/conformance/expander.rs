//! `cluster_autoscaler.json`: the cases of the Cluster Autoscaler's expander tests
//! (`pkg/expander/*/..._test.go`, `factory/chain_test.go`) and its binpacking estimator's
//! (`binpacking_estimator_test.go`, `decreasing_pod_orderer_test.go`), run through
//! `hpacalc::calc::node_groups` and `hpacalc::calc::nodes`.

use hpacalc::calc::node_groups::candidate::{Candidate, ExpanderContext};
use hpacalc::calc::node_groups::chain::{self, narrow};
use hpacalc::calc::node_groups::priority::not_found_warning;
use hpacalc::calc::nodes::{decreasing_order, estimate_counts};
use hpacalc::input::node_groups::{matched_levels, priority_config};
use hpacalc::scenario::node_groups::Expander;
use hpacalc::scenario::{Capacity, Resources};
use serde_json::Value;

use super::{Check, array, get, int, opt_text, text};

const MI: i64 = 1024 * 1024;

pub fn run(v: &Value) -> Check {
    let inputs = get(v, "inputs");
    let expected = get(v, "expected");
    match text(v, "function") {
        "random.BestOption" => random(inputs, expected),
        "chainStrategy.BestOption" => chain_vector(inputs, expected),
        "BinpackingNodeEstimator.Estimate" => estimate(inputs, expected),
        "DecreasingPodOrderer.Order" => order(inputs, expected),
        _ => filter(inputs, expected),
    }
}

/// What a vector's `options` can skip, at the value that leaves an expander indifferent.
fn number(v: &Value, key: &str, default: i64) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(default)
}

fn price(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn candidate(o: &Value, expressions: Option<&[(i64, regex::Regex)]>) -> Candidate {
    let group = text(o, "group").to_string();
    Candidate {
        priorities: expressions.map_or_else(Vec::new, |e| matched_levels(e, &group)),
        group,
        node_count: int(o, "nodeCount"),
        pod_count: int(o, "pods"),
        requested_cpu: number(o, "requestedCpu", 0),
        requested_memory: number(o, "requestedMemory", 0).saturating_mul(1000),
        capacity_cpu: number(o, "capacityCpu", 1000),
        capacity_memory: number(o, "capacityMemory", 1).saturating_mul(1000),
        node_price: price(o, "nodePrice"),
        pods_price: price(o, "podsPrice"),
        exists: o.get("exists").and_then(Value::as_bool).unwrap_or(true),
        has_gpu: false,
    }
}

fn names(cands: &[Candidate], indices: &[usize]) -> Vec<String> {
    indices.iter().map(|i| cands[*i].group.clone()).collect()
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    array(v, key)
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect()
}

/// One expander's `BestOptions` over the vector's options.
fn filter(inputs: &Value, expected: &Value) -> Check {
    let mut check = Check::default();
    check.only_keys(expected, &["kept", "warnings", "configError"]);
    let expander = Expander::from_name(text(inputs, "expander")).expect("a known expander");
    let config = opt_text(inputs, "priorities").map(|t| priority_config("vector", t));
    let expressions = match &config {
        Some(Ok(e)) => Some(e.as_slice()),
        _ => None,
    };
    if let Some(want) = opt_text(expected, "configError") {
        match &config {
            Some(Err(e)) => check.eq("configError", true, e.to_string().contains(want)),
            _ => check.fail("configError: expected the configuration to be refused".into()),
        }
    }
    let cands: Vec<Candidate> = array(inputs, "options")
        .iter()
        .map(|o| candidate(o, expressions))
        .collect();
    let ctx = ExpanderContext {
        stabilization_price: price(inputs, "stabilizationPrice"),
        preferred_cpu: number(inputs, "preferredCpu", 1000),
        priorities_configured: expressions.is_some(),
    };
    // A chain of one filter keeps what the filter keeps.
    let outcome = chain::choose(&[expander], &cands, &ctx);
    let kept = outcome
        .steps
        .first()
        .map(|s| names(&cands, &s.filtered.kept))
        .unwrap_or_default();
    check.eq("kept", strings(expected, "kept"), kept);
    if expected.get("warnings").is_some() {
        let warnings: Vec<String> = cands
            .iter()
            .filter(|c| c.priorities.is_empty())
            .map(|c| not_found_warning(&c.group))
            .collect();
        check.eq("warnings", strings(expected, "warnings"), warnings);
    }
    check
}

/// `random` as the chain's fallback: one option is chosen, several are a tie, none is nothing.
fn random(inputs: &Value, expected: &Value) -> Check {
    let mut check = Check::default();
    check.only_keys(expected, &["chosen", "tied"]);
    let cands: Vec<Candidate> = strings(inputs, "options")
        .iter()
        .map(|name| {
            candidate(
                &serde_json::json!({"group": name, "nodeCount": 1, "pods": 1}),
                None,
            )
        })
        .collect();
    let ctx = ExpanderContext {
        stabilization_price: None,
        preferred_cpu: 1000,
        priorities_configured: false,
    };
    let outcome = chain::choose(&[Expander::Random], &cands, &ctx);
    let chosen = outcome.chosen.map(|i| cands[i].group.clone());
    check.eq(
        "chosen",
        opt_text(expected, "chosen").map(str::to_string),
        chosen,
    );
    check.eq(
        "tied",
        strings(expected, "tied"),
        names(&cands, &outcome.tied),
    );
    check
}

/// The chain's loop with the test's substring filters, then its substring fallback.
fn chain_vector(inputs: &Value, expected: &Value) -> Check {
    let mut check = Check::default();
    check.only_keys(expected, &["chosen"]);
    let options = strings(inputs, "options");
    let containing = |substring: String| {
        let options = &options;
        move |among: &[usize]| -> Vec<usize> {
            among
                .iter()
                .copied()
                .filter(|i| options[*i].contains(&substring))
                .collect()
        }
    };
    let left = narrow(
        options.len(),
        strings(inputs, "filters").into_iter().map(containing),
    );
    let left = if left.len() == 1 {
        left
    } else {
        containing(text(inputs, "fallback").to_string())(&left)
    };
    let chosen = left.first().map(|i| options[*i].clone());
    check.eq(
        "chosen",
        opt_text(expected, "chosen").map(str::to_string),
        chosen,
    );
    check
}

fn template(v: &Value) -> Capacity {
    Capacity {
        resources: Resources(vec![
            ("cpu".into(), int(v, "cpu")),
            ("memory".into(), int(v, "memoryMi") * MI * 1000),
        ]),
        pods: int(v, "pods"),
    }
}

fn request(g: &Value) -> Resources {
    Resources(vec![
        ("cpu".into(), int(g, "cpu")),
        ("memory".into(), int(g, "memory") * 1000),
    ])
}

fn estimate(inputs: &Value, expected: &Value) -> Check {
    let mut check = Check::default();
    check.only_keys(expected, &["nodeCount", "podCount", "placed"]);
    let groups: Vec<(Resources, i64)> = array(inputs, "groups")
        .iter()
        .map(|g| (request(g), int(g, "count")))
        .collect();
    let limit = match int(inputs, "maxNodes") {
        0 => i64::MAX,
        n => n,
    };
    let (nodes, placed) = estimate_counts(
        &groups,
        &template(get(inputs, "template")),
        &Capacity::default(),
        limit,
    );
    check.eq("nodeCount", int(expected, "nodeCount"), nodes);
    check.eq("podCount", int(expected, "podCount"), placed.iter().sum());
    if expected.get("placed").is_some() {
        let want: Vec<i64> = array(expected, "placed")
            .iter()
            .filter_map(Value::as_i64)
            .collect();
        check.eq("placed", want, placed);
    }
    check
}

fn order(inputs: &Value, expected: &Value) -> Check {
    let mut check = Check::default();
    check.only_keys(expected, &["order"]);
    let pods = array(inputs, "pods");
    let requests: Vec<Resources> = pods.iter().map(request).collect();
    let refs: Vec<&Resources> = requests.iter().collect();
    let got: Vec<String> = decreasing_order(&refs, &template(get(inputs, "template")))
        .into_iter()
        .map(|i| text(&pods[i], "name").to_string())
        .collect();
    check.eq("order", strings(expected, "order"), got);
    check
}
