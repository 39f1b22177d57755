//! Karpenter's provisioning: which NodeClaims its scheduler opens for the Pending pods, what
//! each would launch, what it costs, and why pods stay Pending.
//!
//! Mirrors kubernetes-sigs/karpenter `pkg/scheduling` (requirements), `pkg/controllers/
//! provisioning/scheduling` (the scheduler, NodeClaims, topology, preferences, queue),
//! `pkg/cloudprovider` (price order, `minValues`, `Truncate`) and the AWS provider's launch
//! choice. Files, lowest first: requirements, catalog, pod, topology, nodeclaim, scheduler,
//! consolidation (`pkg/controllers/disruption`: what goes when the load drops).

pub mod catalog;
pub mod consolidation;
pub mod fake;
pub mod nodeclaim;
pub mod pod;
pub mod requirements;
pub mod scale_down;
pub mod scheduler;
pub mod topology;

use std::collections::BTreeMap;

use catalog::{Item, Res};
use scheduler::{Daemon, ExistingNode, Problem, Results};

use crate::report::karpenter::{
    KarpenterReport, Launched, NodeClaimReport, NotConsolidated, UnschedulablePods,
};
use crate::report::{NodeSummary, NodesReport};
use crate::scenario::karpenter::{ClusterNode, KarpenterInput, PendingGroup};
use crate::scenario::{Capacity, Resources};

/// Milli-unit requests of one pod, with its pod slot.
pub fn pod_requests(r: &Resources) -> Res {
    let mut out: Res = r.0.iter().cloned().collect();
    out.insert("pods".into(), 1000);
    out
}

/// The Pending pods of `groups`, named `<group>-<n>`: the pods of a group share one copy of
/// its constraints (a pod gets its own only when relaxation changes it).
pub fn pods_of(groups: &[PendingGroup]) -> Vec<pod::Pod> {
    let mut out = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let constraints = std::sync::Arc::new(group.constraints.clone());
        let requests = pod_requests(&group.request);
        for n in 1..=group.count.max(0) {
            out.push(pod::Pod {
                name: format!("{}-{n}", group.name),
                group: g,
                requests: requests.clone(),
                constraints: std::sync::Arc::clone(&constraints),
            });
        }
    }
    out
}

fn capacity_res(c: &Capacity) -> Res {
    let mut out: Res = c.resources.0.iter().cloned().collect();
    out.insert("pods".into(), c.pods.saturating_mul(1000));
    out
}

// Port of calculateExistingNodeClaims and sortExistingNodes (scheduler.go): the cluster's
// nodes, initialized ones first, then by name. The DaemonSets already run on them
// (`NewExistingNode`'s remaining daemon resources are taken as none).
pub fn existing_nodes(nodes: &[ClusterNode]) -> Vec<ExistingNode> {
    let mut sorted: Vec<&ClusterNode> = nodes.iter().collect();
    sorted.sort_by(|a, b| (b.initialized.cmp(&a.initialized)).then_with(|| a.name.cmp(&b.name)));
    (sorted.into_iter())
        .map(|n| ExistingNode {
            name: n.name.clone(),
            labels: n.labels.clone(),
            taints: n.taints.clone(),
            capacity: capacity_res(&n.capacity),
            allocatable: capacity_res(&n.allocatable),
            requested: capacity_res(&n.requested),
            host_ports: n.host_ports.clone(),
            workload_pods: n.workload_pods,
            pods: Vec::new(),
        })
        .collect()
}

/// The input's catalog as the scheduler reads it (built once for a simulation's many solves).
pub fn catalog_of(input: &KarpenterInput) -> Vec<Item> {
    input
        .instance_types
        .iter()
        .map(Item::from_instance_type)
        .collect()
}

/// The DaemonSets of the input as one overhead group (`--daemonset-requests` carries no
/// constraints); none when it names none.
pub fn daemons(input: &KarpenterInput) -> Vec<Daemon> {
    if input.daemonsets == Default::default() {
        return Vec::new();
    }
    let mut requests = pod_requests(&input.daemonsets.resources);
    requests.insert("pods".into(), input.daemonsets.pods.saturating_mul(1000));
    vec![Daemon {
        requests,
        constraints: Default::default(),
    }]
}

/// One solve of `count` Pending pods of the workload's shape over `catalog`, with `existing`
/// nodes (the NodeClaims launched before, each with what its bound pods request) tried first.
pub fn solve_on(
    input: &KarpenterInput,
    catalog: &[Item],
    existing: Vec<scheduler::ExistingNode>,
    count: i64,
) -> Results {
    let pending = PendingGroup {
        count,
        ..input.pod.clone()
    };
    scheduler::solve(Problem {
        node_pools: &input.node_pools,
        catalog,
        daemons: &daemons(input),
        existing,
        pods: pods_of(std::slice::from_ref(&pending)),
    })
}

/// One solve of the input's pods (`count` new pods of the workload's shape) over new NodeClaims.
pub fn solve(input: &KarpenterInput, count: i64) -> (Vec<Item>, Results) {
    let catalog = catalog_of(input);
    let results = solve_on(input, &catalog, existing_nodes(&input.existing), count);
    (catalog, results)
}

fn quantities(r: &Res) -> BTreeMap<String, String> {
    r.iter()
        .map(|(k, v)| {
            let q = if k == "pods" {
                (v / 1000).to_string()
            } else {
                crate::quantity::build_quantity(k, *v)
            };
            (k.clone(), q)
        })
        .collect()
}

/// One NodeClaim as the report shows it: its types truncated and in price order, the launch.
pub fn claim_report(
    catalog: &[Item],
    results: &Results,
    c: &nodeclaim::NodeClaim,
) -> NodeClaimReport {
    let its: Vec<&Item> = c
        .instance_types
        .iter()
        .filter_map(|i| catalog.get(*i))
        .collect();
    let truncated = catalog::truncate(&its, &c.requirements, catalog::MAX_INSTANCE_TYPES)
        .unwrap_or_else(|_| its.clone());
    let launch = catalog::launch(&truncated, &c.requirements);
    NodeClaimReport {
        node_pool: (results.templates.get(c.template))
            .map_or_else(String::new, |t| t.node_pool.clone()),
        instance_types: truncated.iter().map(|it| it.name.clone()).collect(),
        instance_type_count: its.len(),
        price_per_hour: launch.as_ref().map(|l| l.price),
        launched: launch.map(|l| Launched {
            instance_type: l.instance_type,
            capacity_type: l.capacity_type,
            zone: l.zone,
        }),
        pods: i64::try_from(c.pods.len()).unwrap_or(i64::MAX),
        requests: quantities(&c.requests),
    }
}

/// How many pods of `request` a fresh `it` takes after `overhead`.
fn pods_fitting(it: &Item, overhead: &Res, request: &Res) -> i64 {
    let free = catalog::subtract(&it.allocatable, overhead);
    (request.iter())
        .filter(|(_, v)| **v > 0)
        .map(|(k, v)| free.get(k).copied().unwrap_or(0) / v)
        .min()
        .unwrap_or(0)
}

/// The cause in words: per NodeClaim, whether smaller nodes of its NodePool would have cost less.
fn explain(
    catalog: &[Item],
    results: &Results,
    report: &[NodeClaimReport],
    request: &Res,
) -> Vec<String> {
    let mut out = Vec::new();
    for (c, r) in results.claims.iter().zip(report) {
        let (Some(l), Some(price)) = (&r.launched, r.price_per_hour) else {
            continue;
        };
        let Some(t) = results.templates.get(c.template) else {
            continue;
        };
        let overhead = t
            .daemon_groups
            .first()
            .map(|g| g.1.clone())
            .unwrap_or_default();
        let mut best: Option<(i64, &Item, f64)> = None;
        for it in t.instance_types.iter().filter_map(|i| catalog.get(*i)) {
            let k = pods_fitting(it, &overhead, request);
            let unit = catalog::launch(&[it], &t.requirements).map(|l| l.price);
            if k <= 0 || unit.is_none() {
                continue;
            }
            let n = (r.pods + k - 1) / k;
            #[allow(clippy::cast_precision_loss)]
            let cost = n as f64 * unit.unwrap_or(0.0);
            if best.is_none_or(|b| cost < b.2) {
                best = Some((n, it, cost));
            }
        }
        let mut line = if r.instance_type_count > 1 {
            format!(
                "{} pod(s) packed into one NodeClaim of {}: {} instance types still fit them all; the cheapest, {}, launches at ${price:.3}/h",
                r.pods, r.node_pool, r.instance_type_count, l.instance_type
            )
        } else {
            format!(
                "{} pod(s) packed into one NodeClaim of {} until only {} still fit them all, at ${price:.3}/h",
                r.pods, r.node_pool, l.instance_type
            )
        };
        if let Some((n, it, cost)) = best.filter(|b| b.2 + 0.0005 < price) {
            line.push_str(&format!(
                "; {n} × {} would cost ${:.3}/h less",
                it.name,
                price - cost
            ));
        }
        out.push(line);
    }
    out
}

/// The report of one solve.
pub fn report(input: &KarpenterInput, count: i64) -> KarpenterReport {
    report_and_nodes(input, count).0
}

/// The larger of cpu and memory requests over allocatable.
fn utilization(requested: &Res, allocatable: &Res) -> f64 {
    ["cpu", "memory"]
        .iter()
        .filter_map(|k| {
            let a = allocatable.get(*k).copied().filter(|a| *a > 0)?;
            #[allow(clippy::cast_precision_loss)]
            Some(requested.get(*k).copied().unwrap_or(0) as f64 / a as f64)
        })
        .fold(0.0, f64::max)
}

/// The existing nodes after the solve, as the Nodes section lists them.
fn existing_summaries(results: &Results) -> Vec<NodeSummary> {
    (results.existing.iter())
        .map(|n| {
            let placed = i64::try_from(n.pods.len()).unwrap_or(i64::MAX);
            NodeSummary {
                name: n.name.clone(),
                workload_pods: n.workload_pods + placed,
                pods: n.requested.get("pods").copied().unwrap_or(0) / 1000,
                utilization: utilization(&n.requested, &n.allocatable),
                new: false,
            }
        })
        .collect()
}

/// The report of one solve, and the existing nodes after it.
fn report_and_nodes(input: &KarpenterInput, count: i64) -> (KarpenterReport, Vec<NodeSummary>) {
    let (catalog, results) = solve(input, count);
    let claims: Vec<NodeClaimReport> = (results.claims.iter())
        .map(|c| claim_report(&catalog, &results, c))
        .collect();
    let mut unschedulable: Vec<UnschedulablePods> = Vec::new();
    for (_, reason) in &results.errors {
        match unschedulable.iter_mut().find(|u| &u.reason == reason) {
            Some(u) => u.pods += 1,
            None => unschedulable.push(UnschedulablePods {
                pods: 1,
                reason: reason.clone(),
            }),
        }
    }
    let explanation = explain(
        &catalog,
        &results,
        &claims,
        &pod_requests(&input.pod.request),
    );
    let nodes = existing_summaries(&results);
    let report = KarpenterReport {
        catalog: input.catalog_source.clone(),
        node_pools: results
            .templates
            .iter()
            .map(|t| t.node_pool.clone())
            .collect(),
        skipped_node_pools: results.skipped_pools.clone(),
        pending_pods: count,
        existing_nodes: i64::try_from(results.existing.len()).unwrap_or(i64::MAX),
        pods_on_existing_nodes: (results.existing.iter())
            .map(|n| i64::try_from(n.pods.len()).unwrap_or(i64::MAX))
            .sum(),
        cost_per_hour: claims.iter().filter_map(|c| c.price_per_hour).sum::<f64>() + 0.0,
        node_claims: claims,
        unschedulable,
        explanation,
        existing_node_claims: Vec::new(),
        consolidation: Vec::new(),
        not_consolidated: Vec::new(),
        cost_per_hour_after_consolidation: None,
    };
    (report, nodes)
}

/// The nodes consequence of going from `current` to `desired` pods with Karpenter: the new pods
/// are Pending; the cluster's nodes (when given) take what they can first, and the scheduler
/// opens NodeClaims for the rest. On a scale-down without the cluster's nodes, the NodeClaims of
/// the current count lose the removed pods and Karpenter's consolidation runs over them.
pub fn nodes_report(input: &KarpenterInput, current: i32, desired: i32) -> NodesReport {
    let (current, desired) = (i64::from(current.max(0)), i64::from(desired.max(0)));
    let new_pods = (desired - current).max(0);
    let (mut k, existing_nodes) = report_and_nodes(input, new_pods);
    if desired < current && input.existing.is_empty() {
        scale_down::consolidate(input, &daemons(input), current, desired, &mut k);
    } else if desired < current {
        // Which of the cluster's pods go is the ReplicaSet's choice over real nodes; it is not
        // modelled, so consolidation is not run over them, and the answer says so.
        k.not_consolidated.push(NotConsolidated {
            node: "the cluster's nodes".into(),
            reason: "consolidation over the cluster's own nodes is not modelled; without --nodes \
                     and --all-pods it runs over the NodeClaims of the current count"
                .into(),
        });
    }
    let claimed = i64::try_from(k.existing_node_claims.len()).unwrap_or(i64::MAX);
    let existing = k.existing_nodes.saturating_add(claimed);
    let removed: i64 = (k.consolidation.iter())
        .map(|c| {
            i64::try_from(c.nodes_removed.len()).unwrap_or(0) - i64::from(c.replacement.is_some())
        })
        .sum();
    let unschedulable: i64 = k.unschedulable.iter().map(|u| u.pods).sum();
    let to_add = i64::try_from(k.node_claims.len()).unwrap_or(i64::MAX);
    let first = k.node_claims.first();
    NodesReport {
        pod_request: input
            .pod
            .request
            .0
            .iter()
            .map(|(n, v)| (n.clone(), crate::quantity::build_quantity(n, *v)))
            .collect(),
        pod_request_source: input.pod_request_source.clone(),
        pods_per_node: first.map_or(0, |c| c.pods),
        limiting_resource: "the NodeClaim's instance types".into(),
        existing,
        needed: existing - removed + to_add,
        to_add,
        pending_pods: new_pods,
        unschedulable_pods: unschedulable,
        limited_by: k.unschedulable.first().map(|u| u.reason.clone()),
        scale_down_utilization_threshold: 0.5,
        scale_down_unneeded_time: "10m0s".into(),
        underutilized_nodes: Vec::new(),
        nodes: (existing_nodes.into_iter())
            .chain(
                (k.node_claims.iter().enumerate()).map(|(i, c)| NodeSummary {
                    name: format!(
                        "{}-{} ({})",
                        c.node_pool,
                        i + 1,
                        c.launched
                            .as_ref()
                            .map_or("none", |l| l.instance_type.as_str())
                    ),
                    workload_pods: c.pods,
                    pods: c.pods,
                    utilization: 0.0,
                    new: true,
                }),
            )
            .collect(),
        node_groups: None,
        karpenter: Some(k),
    }
}
