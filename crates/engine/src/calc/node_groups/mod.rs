//! The Cluster Autoscaler with several node groups: which group each scale-up loop grows, as the
//! expander chain (`--expander`) picks it, and what stays Pending.
//!
//! Mirrors `core/scaleup/orchestrator` (`ComputeExpansionOption`, `prepareScaleUp`), the
//! expanders of `expander/` (waste, price, priority, mostpods, leastnodes, random, the chain of
//! `factory/chain.go`) and the binpacking estimator (`calc::nodes::estimate_on`, shared with the
//! one-group model). Files, lowest first: candidate (the option the expanders read), the
//! expanders (waste, price, priority, simple), chain, fit (which pods a template node takes),
//! option (one group's option), plan (the loops).

pub mod candidate;
pub mod chain;
pub mod fit;
pub mod option;
pub mod plan;
pub mod price;
pub mod priority;
pub mod simple;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod waste;

use crate::calc::nodes::pods_per_node;
use crate::report::{NodeSummary, NodesReport};
use crate::scenario::node_groups::{NodeGroupsInput, PendingPods};

/// The nodes consequence of going from `current` to `desired` pods over several groups: the new
/// pods are Pending (the groups' nodes are taken as full), and the plan places them.
pub fn nodes_report(input: &NodeGroupsInput, current: i32, desired: i32) -> NodesReport {
    let new_pods = i64::from(desired.max(0)) - i64::from(current.max(0));
    let pending = PendingPods {
        request: input.pod_request.clone(),
        count: new_pods.max(0),
        node_selector: Vec::new(),
        tolerations: Vec::new(),
    };
    let plan = plan::plan(input, std::slice::from_ref(&pending));
    let report = plan.report;
    // podsPerNode and its limit: on the first group chosen, else the first group.
    let first = report
        .loops
        .iter()
        .find_map(|l| l.chosen.as_ref())
        .and_then(|name| input.groups.iter().find(|g| &g.name == name))
        .or(input.groups.first());
    let (k, limiting) = first.map_or((0, String::new()), |g| {
        pods_per_node(&g.allocatable, &input.daemonsets, &input.pod_request)
    });
    let existing: i64 = input.groups.iter().map(|g| g.current_size).sum();
    let limited_by = (report.unschedulable_pods > 0).then(|| report.outcome.clone());
    NodesReport {
        pod_request: crate::calc::nodes::pod_request_quantities(&input.pod_request),
        pod_request_source: input.pod_request_source.clone(),
        pods_per_node: k,
        limiting_resource: limiting,
        existing,
        needed: existing + report.nodes_added,
        to_add: report.nodes_added,
        pending_pods: report.pending_pods,
        unschedulable_pods: report.unschedulable_pods,
        limited_by,
        scale_down_utilization_threshold: 0.5,
        scale_down_unneeded_time: "10m0s".into(),
        underutilized_nodes: Vec::new(),
        nodes: plan
            .added
            .iter()
            .map(|n| NodeSummary {
                name: n.slot.name.clone(),
                workload_pods: n.slot.workload_pods,
                pods: n.slot.requested.pods,
                utilization: n.slot.utilization(),
                new: true,
            })
            .collect(),
        node_groups: Some(report),
        karpenter: None,
    }
}
