//! `karpenter.json`: cases of Karpenter's own scheduling and provisioning tests
//! (`scheduling/suite_test.go`, `instance_selection_test.go`, `provisioning/suite_test.go`) on
//! the fake cloud provider's instance types, run through `hpacalc::calc::karpenter`. What the
//! fake provider launches for a NodeClaim is `fake.CloudProvider.Create`: the cheapest type that
//! fits the NodeClaim's requests, on its first compatible offering.

use hpacalc::calc::karpenter::catalog::{self, Item, Offer, Res};
use hpacalc::calc::karpenter::fake;
use hpacalc::calc::karpenter::nodeclaim::NodeClaim;
use hpacalc::calc::karpenter::requirements::Requirements;
use hpacalc::calc::karpenter::scheduler::{Daemon, Problem, Results, solve};
use hpacalc::calc::karpenter::{existing_nodes, pod_requests, pods_of};
use hpacalc::quantity::parse_milli;
use hpacalc::scenario::karpenter::{
    ClusterNode, HostPort, NodePool, PendingGroup, PodAffinityTerm, PodConstraints,
    SelectorRequirement,
};
use hpacalc::scenario::node_groups::{Taint, Toleration};
use hpacalc::scenario::{Capacity, Resources};
use serde_json::Value;

use super::{Check, array, get, int, opt_text, text};

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn pairs(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| {
            (m.iter())
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn milli(v: &Value, key: &str) -> Option<i64> {
    opt_text(v, key).map(|q| parse_milli(q).expect("a quantity"))
}

fn selector(r: &Value) -> SelectorRequirement {
    SelectorRequirement {
        key: text(r, "key").to_string(),
        operator: text(r, "operator").to_string(),
        values: strings(r.get("values")),
        min_values: r.get("minValues").and_then(Value::as_i64),
    }
}

fn catalog(inputs: &Value) -> Vec<Item> {
    let mut items = match inputs.get("catalog") {
        Some(Value::String(s)) if s == "default" => fake::default_catalog(),
        Some(Value::String(s)) if s == "assorted" => fake::assorted(),
        Some(Value::String(s)) => {
            let n = s
                .strip_prefix("fake:")
                .and_then(|n| n.parse().ok())
                .expect("fake:N");
            fake::instance_types(n)
        }
        Some(Value::Array(list)) => list.iter().map(custom).collect(),
        _ => panic!("catalog"),
    };
    for (k, v) in pairs(inputs.get("catalogExclude")) {
        items.retain(|it| !it.requirements.get(&k).has(&v));
    }
    items
}

fn custom(t: &Value) -> Item {
    let offerings = array(t, "offerings")
        .iter()
        .map(|o| {
            let o = o.as_array().expect("[zone, capacity type, price]");
            let s = |i: usize| o[i].as_str().unwrap_or_default().to_string();
            (s(0), s(1), o[2].as_f64(), true)
        })
        .collect();
    let opts = fake::Options {
        cpu_milli: milli(t, "cpu").unwrap_or(0),
        memory: milli(t, "memory").unwrap_or(0) / 1000,
        offerings,
        operating_systems: strings(t.get("os")),
        ..fake::Options::default()
    };
    fake::instance_type(text(t, "name"), &opts)
}

fn constraints(p: &Value) -> PodConstraints {
    let terms = |v: &Value| {
        v.as_array()
            .into_iter()
            .flatten()
            .map(selector)
            .collect::<Vec<_>>()
    };
    PodConstraints {
        node_selector: pairs(p.get("nodeSelector")),
        required_terms: (p
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .map(terms)
        .collect(),
        preferred_terms: (p
            .get("preferred")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .map(|w| {
            let w = w.as_array().expect("[weight, terms]");
            (
                i32::try_from(w[0].as_i64().unwrap_or(1)).unwrap_or(1),
                terms(&w[1]),
            )
        })
        .collect(),
        tolerations: (p
            .get("tolerations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .map(|t| {
            let s = |k: &str| opt_text(t, k).unwrap_or_default().to_string();
            Toleration {
                key: s("key"),
                operator: s("operator"),
                value: s("value"),
                effect: s("effect"),
            }
        })
        .collect(),
        topology_spread: Vec::new(),
        pod_affinity: (p
            .get("podAffinity")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .map(|t| PodAffinityTerm {
            topology_key: text(t, "key").to_string(),
            anti: t.get("anti").and_then(Value::as_bool).unwrap_or(false),
            preferred_weight: (t.get("weight").and_then(Value::as_i64))
                .map(|w| i32::try_from(w).unwrap_or(1)),
        })
        .collect(),
        host_ports: (p
            .get("hostPorts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .map(|port| HostPort {
            ip: "0.0.0.0".into(),
            protocol: "TCP".into(),
            port: i32::try_from(port.as_i64().expect("a port")).expect("a port"),
        })
        .collect(),
    }
}

/// A resource list of the vector (`pods` a count) as a `Capacity`.
fn capacity(v: Option<&Value>) -> Capacity {
    let mut c = Capacity::default();
    for (k, q) in pairs(v) {
        if k == "pods" {
            c.pods = q.parse().expect("a count");
        } else {
            c.resources
                .0
                .push((k, parse_milli(&q).expect("a quantity")));
        }
    }
    c
}

/// An existing node of the vector: `test.Node` with its allocatable (capacity the same),
/// initialized unless it says otherwise.
fn cluster_node(n: &Value) -> ClusterNode {
    let allocatable = capacity(n.get("allocatable"));
    ClusterNode {
        name: text(n, "name").to_string(),
        labels: pairs(n.get("labels")),
        taints: Vec::new(),
        capacity: allocatable.clone(),
        allocatable,
        requested: capacity(n.get("requested")),
        workload_pods: n.get("workloadPods").and_then(Value::as_i64).unwrap_or(0),
        initialized: n
            .get("initialized")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        host_ports: Vec::new(),
    }
}

fn requests(p: &Value) -> Resources {
    let mut r = Resources::default();
    for k in ["cpu", "memory"] {
        if let Some(m) = milli(p, k) {
            r.0.push((k.to_string(), m));
        }
    }
    for (k, v) in pairs(p.get("extra")) {
        r.0.push((k, parse_milli(&v).expect("a quantity")));
    }
    r
}

fn node_pool(v: &Value) -> NodePool {
    let limits = v.get("limits").and_then(Value::as_object).map(|m| {
        Resources(
            m.iter()
                .map(|(k, q)| {
                    (
                        k.clone(),
                        parse_milli(q.as_str().unwrap_or("0")).expect("a quantity"),
                    )
                })
                .collect(),
        )
    });
    NodePool {
        name: text(v, "name").to_string(),
        weight: i32::try_from(v.get("weight").and_then(Value::as_i64).unwrap_or(0)).unwrap_or(0),
        requirements: array(v, "requirements").iter().map(selector).collect(),
        labels: pairs(v.get("labels")),
        taints: (v
            .get("taints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .map(|t| Taint {
            key: text(t, "key").to_string(),
            value: opt_text(t, "value").unwrap_or_default().to_string(),
            effect: text(t, "effect").to_string(),
        })
        .collect(),
        limits,
        node_class: "default".into(),
        disruption: Default::default(),
    }
}

/// `fake.CloudProvider.Create`: (type, offering) launched for a NodeClaim.
fn create<'a>(items: &'a [Item], c: &NodeClaim) -> Option<(&'a Item, &'a Offer)> {
    let reqs: &Requirements = &c.requirements;
    let mut its: Vec<&Item> = (c.instance_types.iter().filter_map(|i| items.get(*i)))
        .filter(|it| reqs.is_compatible(&it.requirements, true))
        .filter(|it| {
            it.offerings
                .iter()
                .any(|o| o.available && reqs.is_compatible(&o.requirements, true))
        })
        .filter(|it| catalog::res_fits(&c.requests, &it.allocatable))
        .collect();
    its.sort_by(|a, b| a.cheapest(reqs).total_cmp(&b.cheapest(reqs)));
    let it = its.first()?;
    let o = it
        .offerings
        .iter()
        .find(|o| o.available && reqs.is_compatible(&o.requirements, true))?;
    Some((it, o))
}

fn label(results: &Results, c: &NodeClaim, it: &Item, o: &Offer, key: &str) -> String {
    match key {
        catalog::ZONE => o.zone.clone(),
        catalog::CAPACITY_TYPE => o.capacity_type.clone(),
        _ => {
            let pool = results.templates.get(c.template).map(|t| &t.requirements);
            let from_claim = c.requirements.get(key);
            let r = if from_claim.operator() == hpacalc::calc::karpenter::requirements::Operator::In
            {
                from_claim
            } else {
                pool.map_or_else(|| it.requirements.get(key), |p| p.get(key))
            };
            let r = if r.operator() == hpacalc::calc::karpenter::requirements::Operator::In {
                r
            } else {
                it.requirements.get(key)
            };
            r.values().next().cloned().unwrap_or_default()
        }
    }
}

pub fn run(v: &Value) -> Check {
    let inputs = get(v, "inputs");
    let expected = get(v, "expected");
    let mut check = Check::default();
    check.only_keys(
        expected,
        &[
            "scheduled",
            "claims",
            "instanceType",
            "labels",
            "price",
            "allTypesHave",
            "differentInstanceTypes",
            "requests",
            "capacity",
            "nodePool",
            "reasonContains",
            "minTypes",
            "onExisting",
            "existingNode",
            "zoneNot",
        ],
    );
    let items = catalog(inputs);
    let pools: Vec<NodePool> = array(inputs, "nodePools").iter().map(node_pool).collect();
    let daemons: Vec<Daemon> = (array(inputs, "daemonSets").iter())
        .map(|d| Daemon {
            requests: pod_requests(&requests(d)),
            constraints: constraints(d),
        })
        .collect();
    let groups: Vec<PendingGroup> = (array(inputs, "pods").iter().enumerate())
        .map(|(i, p)| PendingGroup {
            name: format!("pod-{i}"),
            count: int(p, "count"),
            request: requests(p),
            constraints: constraints(p),
        })
        .collect();
    let total: i64 = groups.iter().map(|g| g.count).sum();
    let existing: Vec<ClusterNode> = array(inputs, "existing").iter().map(cluster_node).collect();
    let results = solve(Problem {
        node_pools: &pools,
        catalog: &items,
        daemons: &daemons,
        existing: existing_nodes(&existing),
        pods: pods_of(&groups),
    });
    compare(&mut check, expected, &results, &items, total);
    compare_existing(&mut check, expected, &results);
    check
}

/// What the existing nodes took, and the zone a NodeClaim may not be in.
fn compare_existing(check: &mut Check, expected: &Value, results: &Results) {
    if let Some(n) = expected.get("onExisting").and_then(Value::as_i64) {
        let got: usize = results.existing.iter().map(|e| e.pods.len()).sum();
        check.eq("onExisting", n, i64::try_from(got).unwrap_or(0));
    }
    if let Some(want) = opt_text(expected, "existingNode") {
        for e in results.existing.iter().filter(|e| !e.pods.is_empty()) {
            check.eq("existingNode", want.to_string(), e.name.clone());
        }
    }
    if let Some(zone) = opt_text(expected, "zoneNot") {
        for c in &results.claims {
            let z = c.requirements.get(catalog::ZONE);
            check.eq("zoneNot", false, z.has(zone));
        }
    }
}

/// Every field the vector's test asserts, against the solve.
fn compare(check: &mut Check, expected: &Value, results: &Results, items: &[Item], total: i64) {
    let launched: Vec<Option<(&Item, &Offer)>> =
        results.claims.iter().map(|c| create(items, c)).collect();
    let scheduled = total - i64::try_from(results.errors.len()).unwrap_or(0);
    check.eq("scheduled", int(expected, "scheduled"), scheduled);
    if let Some(n) = expected.get("claims").and_then(Value::as_i64) {
        check.eq(
            "claims",
            n,
            i64::try_from(results.claims.len()).unwrap_or(0),
        );
    }
    let names: Vec<String> = launched
        .iter()
        .map(|l| l.map_or("none".into(), |(it, _)| it.name.clone()))
        .collect();
    if let Some(want) = opt_text(expected, "instanceType") {
        for n in &names {
            check.eq("instanceType", want.to_string(), n.clone());
        }
    }
    if let Some(want) = expected
        .get("differentInstanceTypes")
        .and_then(Value::as_bool)
    {
        check.eq(
            "differentInstanceTypes",
            want,
            names.first() != names.last(),
        );
    }
    if let Some(want) = expected.get("price").and_then(Value::as_f64) {
        let got = launched
            .first()
            .and_then(|l| l.map(|(_, o)| o.price))
            .unwrap_or(f64::NAN);
        check.eq("price", format!("{want:.6}"), format!("{got:.6}"));
    }
    for (k, want) in pairs(expected.get("labels")) {
        for (c, l) in results.claims.iter().zip(&launched) {
            let got = l.map_or_else(String::new, |(it, o)| label(results, c, it, o, &k));
            check.eq(&format!("labels.{k}"), want.clone(), got);
        }
    }
    for (k, want) in pairs(expected.get("allTypesHave")) {
        for c in &results.claims {
            let its: Vec<&Item> = c
                .instance_types
                .iter()
                .filter_map(|i| items.get(*i))
                .collect();
            let all = its.iter().all(|it| it.requirements.get(&k).has(&want));
            check.eq(&format!("allTypesHave.{k}"), true, all);
        }
    }
    if let Some(n) = expected.get("minTypes").and_then(Value::as_i64) {
        let got = results.claims.first().map_or(0, |c| c.instance_types.len());
        check.eq("minTypes", true, i64::try_from(got).unwrap_or(0) >= n);
    }
    compare_resources(
        check,
        "requests",
        expected.get("requests"),
        results.claims.first().map(|c| c.requests.clone()),
    );
    compare_resources(
        check,
        "capacity",
        expected.get("capacity"),
        launched
            .first()
            .and_then(|l| l.map(|(it, _)| it.capacity.clone())),
    );
    if let Some(want) = opt_text(expected, "nodePool") {
        for c in &results.claims {
            let got = results
                .templates
                .get(c.template)
                .map_or("", |t| t.node_pool.as_str());
            check.eq("nodePool", want.to_string(), got.to_string());
        }
    }
    if let Some(want) = opt_text(expected, "reasonContains") {
        let any = results.errors.iter().any(|(_, e)| e.contains(want));
        check.eq("reasonContains", true, any);
    }
}

fn compare_resources(check: &mut Check, field: &str, want: Option<&Value>, got: Option<Res>) {
    let Some(want) = want else { return };
    let got = got.unwrap_or_default();
    for (k, q) in pairs(Some(want)) {
        let w = if k == "pods" {
            q.parse::<i64>().unwrap_or(0) * 1000
        } else {
            parse_milli(&q).expect("a quantity")
        };
        check.eq(
            &format!("{field}.{k}"),
            w,
            got.get(&k).copied().unwrap_or(0),
        );
    }
}
