//! Builders for the tests of this module and the conformance vectors.

use super::candidate::Candidate;
use crate::scenario::node_groups::{NodeGroupSpec, NodeGroupsInput, PendingPods, PodPricing};
use crate::scenario::{Capacity, Resources};

pub const GI_MILLI: i64 = 1024 * 1024 * 1024 * 1000;

/// An option of `nodes` nodes taking `pods` pods, on a 1-core / 1Gi node, existing, unpriced.
pub fn candidate(name: &str, nodes: i64, pods: i64) -> Candidate {
    Candidate {
        group: name.into(),
        node_count: nodes,
        pod_count: pods,
        requested_cpu: 0,
        requested_memory: 0,
        capacity_cpu: 1000,
        capacity_memory: GI_MILLI,
        node_price: None,
        pods_price: None,
        exists: true,
        has_gpu: false,
        priorities: Vec::new(),
    }
}

/// A group of `cpu_milli` / `memory_gi` nodes and 110 pods, 0 to 1000 nodes, none now.
pub fn group(name: &str, cpu_milli: i64, memory_gi: i64) -> NodeGroupSpec {
    let capacity = Capacity {
        resources: Resources(vec![
            ("cpu".into(), cpu_milli),
            ("memory".into(), memory_gi * GI_MILLI),
        ]),
        pods: 110,
    };
    NodeGroupSpec {
        name: name.into(),
        allocatable: capacity.clone(),
        capacity,
        labels: Vec::new(),
        taints: Vec::new(),
        min_size: 0,
        max_size: 1000,
        current_size: 0,
        price_per_hour: None,
        priorities: Vec::new(),
        exists: true,
    }
}

/// `count` pods of `cpu_milli` / `memory_gi`, without constraints.
pub fn pods(cpu_milli: i64, memory_gi: i64, count: i64) -> PendingPods {
    PendingPods {
        request: Resources(vec![
            ("cpu".into(), cpu_milli),
            ("memory".into(), memory_gi * GI_MILLI),
        ]),
        count,
        node_selector: Vec::new(),
        tolerations: Vec::new(),
    }
}

/// The groups with least-waste, no DaemonSets and the Cluster Autoscaler's defaults.
pub fn input(groups: Vec<NodeGroupSpec>) -> NodeGroupsInput {
    NodeGroupsInput {
        groups,
        expander: vec![crate::scenario::node_groups::Expander::LeastWaste],
        priorities_configured: false,
        pod_pricing: PodPricing {
            per_core_hour: 0.033174,
            per_gib_hour: 0.004446,
        },
        daemonsets: Capacity::default(),
        max_nodes_total: None,
        max_nodes_per_scale_up: 1000,
        pod_request: Resources::default(),
        pod_request_source: "test".into(),
    }
}
