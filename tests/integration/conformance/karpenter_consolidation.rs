//! `karpenter_consolidation.json`: cases of Karpenter's disruption suite
//! (`pkg/controllers/disruption/consolidation_test.go`) on the fake cloud provider's instance
//! types, run through `hpacalc::calc::karpenter::consolidation`. The suite's named types are
//! resolved as its `BeforeEach` does: `mostExpensive`/`leastExpensive` are the last and first of
//! the types with an on-demand offering sorted by their cheapest price (`...Spot` likewise for
//! spot; a stable sort, where Go's sort.Slice leaves ties in no order), each node on the type's
//! first offering.

use hpacalc::calc::karpenter::catalog::{Item, Res};
use hpacalc::calc::karpenter::consolidation::{Cluster, ClusterNode, consolidate};
use hpacalc::calc::karpenter::pod::Pod;
use hpacalc::calc::karpenter::{fake, pod_requests};
use hpacalc::quantity::parse_milli;
use hpacalc::scenario::Resources;
use hpacalc::scenario::karpenter::{
    Budget, BudgetNodes, ConsolidationPolicy, Disruption, NodePool, PodConstraints,
    SelectorRequirement,
};
use serde_json::Value;

use super::{Check, array, get, opt_text, text};

fn pairs(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| {
            (m.iter())
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn catalog(inputs: &Value) -> Vec<Item> {
    match inputs.get("catalog") {
        Some(Value::String(s)) if s == "assorted" => fake::assorted(),
        Some(Value::Array(list)) => list
            .iter()
            .map(|t| {
                let offerings = (array(t, "offerings").iter())
                    .map(|o| {
                        let o = o
                            .as_array()
                            .expect("[zone, capacity type, price, available?]");
                        let s = |i: usize| o[i].as_str().unwrap_or_default().to_string();
                        (
                            s(0),
                            s(1),
                            o[2].as_f64(),
                            o.get(3).and_then(Value::as_bool).unwrap_or(true),
                        )
                    })
                    .collect();
                let opts = fake::Options {
                    offerings,
                    ..fake::Options::default()
                };
                fake::instance_type(text(t, "name"), &opts)
            })
            .collect(),
        _ => panic!("catalog"),
    }
}

fn node_pool(v: &Value) -> NodePool {
    let d = get(v, "disruption");
    let budgets = (array(d, "budgets").iter())
        .map(|b| {
            let n = text(b, "nodes");
            let nodes = match n.strip_suffix('%') {
                Some(p) => BudgetNodes::Percent(p.parse().expect("a percentage")),
                None => BudgetNodes::Count(n.parse().expect("a count")),
            };
            Budget {
                nodes,
                reasons: None,
                schedule: None,
            }
        })
        .collect();
    let after = text(d, "consolidateAfter");
    NodePool {
        name: text(v, "name").to_string(),
        weight: 0,
        requirements: (array(v, "requirements").iter())
            .map(|r| SelectorRequirement {
                key: text(r, "key").to_string(),
                operator: text(r, "operator").to_string(),
                values: (array(r, "values").iter())
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                min_values: None,
            })
            .collect(),
        labels: Vec::new(),
        taints: Vec::new(),
        limits: None,
        node_class: "default".into(),
        disruption: Disruption {
            consolidation_policy: match text(d, "consolidationPolicy") {
                "WhenEmpty" => ConsolidationPolicy::WhenEmpty,
                _ => ConsolidationPolicy::WhenEmptyOrUnderutilized,
            },
            consolidate_after_s: (after != "Never").then(|| seconds(after)),
            budgets,
        },
    }
}

/// `0s`, `1m`, `2h` as seconds.
fn seconds(d: &str) -> i64 {
    let (n, unit) = d.split_at(d.len() - 1);
    let n: i64 = n.parse().expect("a duration");
    match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => panic!("duration unit {unit}"),
    }
}

/// The suite's named instance types (`mostExpensiveInstance`, ...) or a type by name.
fn resolve<'a>(items: &'a [Item], alias: &str) -> &'a Item {
    let sorted = |ct: &str| {
        let mut its: Vec<&Item> = (items.iter())
            .filter(|it| {
                it.offerings
                    .iter()
                    .any(|o| o.available && o.capacity_type == ct)
            })
            .collect();
        let cheapest = |it: &Item| {
            (it.offerings.iter())
                .filter(|o| o.available)
                .map(|o| o.price)
                .fold(f64::MAX, f64::min)
        };
        its.sort_by(|a, b| cheapest(a).total_cmp(&cheapest(b)));
        its
    };
    let pick = match alias {
        "mostExpensive" => sorted("on-demand").last().copied(),
        "leastExpensive" => sorted("on-demand").first().copied(),
        "mostExpensiveSpot" => sorted("spot").last().copied(),
        "leastExpensiveSpot" => sorted("spot").first().copied(),
        name => items.iter().find(|it| it.name == name),
    };
    pick.expect("a known instance type")
}

fn res(v: Option<&Value>) -> Option<Res> {
    let m = v?.as_object()?;
    Some(
        m.iter()
            .map(|(k, q)| {
                let q = q.as_str().unwrap_or("0");
                let milli = if k == "pods" {
                    q.parse::<i64>().expect("a count") * 1000
                } else {
                    parse_milli(q).expect("a quantity")
                };
                (k.clone(), milli)
            })
            .collect(),
    )
}

fn pods(spec: &Value, next: &mut usize) -> Vec<Pod> {
    let mut out = Vec::new();
    for p in array(spec, "pods") {
        let mut r = Resources::default();
        if let Some(cpu) = opt_text(p, "cpu") {
            r.0.push(("cpu".into(), parse_milli(cpu).expect("a quantity")));
        }
        let constraints = PodConstraints {
            node_selector: pairs(p.get("nodeSelector")),
            ..PodConstraints::default()
        };
        for _ in 0..p.get("count").and_then(Value::as_u64).unwrap_or(1) {
            out.push(Pod {
                name: format!("pod-{next}"),
                group: 0,
                requests: pod_requests(&r),
                constraints: std::sync::Arc::new(constraints.clone()),
            });
            *next += 1;
        }
    }
    out
}

fn nodes(inputs: &Value, items: &[Item]) -> Vec<ClusterNode> {
    let (mut out, mut next_pod) = (Vec::new(), 0);
    for spec in array(inputs, "nodes") {
        let it = resolve(items, text(spec, "instanceType"));
        let offer = it.offerings.first().expect("an offering");
        for _ in 0..spec.get("count").and_then(Value::as_u64).unwrap_or(1) {
            out.push(ClusterNode {
                name: format!("node-{}", out.len()),
                node_pool: opt_text(spec, "nodePool").unwrap_or("default").to_string(),
                instance_type: it.name.clone(),
                zone: offer.zone.clone(),
                capacity_type: offer.capacity_type.clone(),
                labels: pairs(spec.get("labels")),
                allocatable: res(spec.get("allocatable")),
                daemon_requests: Res::new(),
                pods: pods(spec, &mut next_pod),
                since_pod_change_s: spec
                    .get("sincePodChange")
                    .and_then(Value::as_str)
                    .map_or(0, seconds),
            });
        }
    }
    out
}

pub fn run(v: &Value) -> Check {
    let inputs = get(v, "inputs");
    let expected = get(v, "expected");
    let mut check = Check::default();
    check.only_keys(
        expected,
        &[
            "commands",
            "nodesLeft",
            "method",
            "decision",
            "nodesRemoved",
            "replacementIsNot",
            "unconsolidatable",
            "unconsolidatableContains",
        ],
    );
    let items = catalog(inputs);
    let pools: Vec<NodePool> = array(inputs, "nodePools").iter().map(node_pool).collect();
    let loops = inputs.get("loops").and_then(Value::as_u64).unwrap_or(1);
    let done = consolidate(
        Cluster {
            node_pools: &pools,
            catalog: &items,
            daemons: &[],
            nodes: nodes(inputs, &items),
            spot_to_spot: inputs
                .get("spotToSpot")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        },
        usize::try_from(loops).unwrap_or(1),
    );
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let first = done.commands.first();
    if let Some(n) = expected.get("commands").and_then(Value::as_i64) {
        check.eq("commands", n, count(done.commands.len()));
    }
    if let Some(n) = expected.get("nodesLeft").and_then(Value::as_i64) {
        check.eq("nodesLeft", n, count(done.nodes.len()));
    }
    if let Some(m) = opt_text(expected, "method") {
        check.eq("method", m, first.map_or("none", |c| c.method.name()));
    }
    if let Some(d) = opt_text(expected, "decision") {
        let got = first.map_or("none", |c| {
            if c.replacement.is_some() {
                "replace"
            } else {
                "delete"
            }
        });
        check.eq("decision", d, got);
    }
    if let Some(want) = expected.get("nodesRemoved").and_then(Value::as_array) {
        let want: Vec<String> = want
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        check.eq(
            "nodesRemoved",
            want,
            first.map(|c| c.nodes.clone()).unwrap_or_default(),
        );
    }
    if let Some(alias) = opt_text(expected, "replacementIsNot") {
        let not = resolve(&items, alias).name.clone();
        let launched = (first.and_then(|c| c.replacement.as_ref()))
            .and_then(|r| r.launched.as_ref())
            .map(|l| l.instance_type.clone());
        check.eq("replacementIsNot", true, launched.is_some_and(|l| l != not));
    }
    if let Some(n) = expected.get("unconsolidatable").and_then(Value::as_i64) {
        check.eq("unconsolidatable", n, count(done.unconsolidatable.len()));
    }
    if let Some(want) = opt_text(expected, "unconsolidatableContains") {
        let any = done.unconsolidatable.iter().any(|(_, m)| m.contains(want));
        check.eq("unconsolidatableContains", true, any);
    }
    check
}
