//! One group's expansion option (`ComputeExpansionOption`, `filterValidScaleUpNodeGroups` in
//! `core/scaleup/orchestrator/orchestrator.go`): the binpacking estimator on the group's template
//! node, within the thresholds of `estimator/threshold_based_limiter.go`.

use super::candidate::Candidate;
use super::price::pod_price;
use crate::calc::nodes::{Estimate, estimate_on};
use crate::scenario::Resources;
use crate::scenario::node_groups::{NodeGroupSpec, NodeGroupsInput};

/// `gpu.GPUVendorResourceNames`.
const GPU_RESOURCES: [&str; 5] = [
    "nvidia.com/gpu",
    "habana.ai/gaudi",
    "gpu.intel.com/xe",
    "amd.com/gpu",
    "microsoft.com/directx",
];
/// The providers' `GPULabel()`: GCE's and AWS's.
const GPU_LABELS: [&str; 2] = [
    "cloud.google.com/gke-accelerator",
    "k8s.amazonaws.com/accelerator",
];

// Port of getMinLimit (threshold_based_limiter.go): a negative limit wins, 0 is no limit.
fn min_limit(base: i64, target: i64) -> i64 {
    if base < 0 || target < 0 {
        return -1;
    }
    if (base == 0 || base > target) && target > 0 {
        return target;
    }
    base
}

/// The estimator's node limit for a group of `size` nodes in a cluster of `cluster_nodes`, and the
/// threshold that sets it: `staticThreshold` (`--max-nodes-per-scaleup`),
/// `sngCapacityThreshold` (max size minus target size) and `clusterCapacityThreshold`
/// (`--max-nodes-total` minus the nodes). -1 allows no node, 0 any number.
pub fn node_limit(
    group: &NodeGroupSpec,
    size: i64,
    input: &NodeGroupsInput,
    cluster_nodes: i64,
) -> (i64, &'static str) {
    let group_room = group.max_size - size;
    let cluster = match input.max_nodes_total {
        None | Some(0) => 0,
        Some(total) if total < 0 || total <= cluster_nodes => -1,
        Some(total) => total - cluster_nodes,
    };
    let thresholds = [
        (input.max_nodes_per_scale_up, "maxNodesPerScaleUp"),
        (if group_room > 0 { group_room } else { -1 }, "nodeGroupMax"),
        (cluster, "maxNodesTotal"),
    ];
    let mut limit = (0, "");
    for (target, name) in thresholds {
        let next = min_limit(limit.0, target);
        if next != limit.0 {
            limit = (next, name);
        }
    }
    limit
}

/// `gpu.NodeHasGpu`: the provider's GPU label or a GPU resource in allocatable.
pub fn has_gpu(group: &NodeGroupSpec) -> bool {
    group
        .labels
        .iter()
        .any(|(k, _)| GPU_LABELS.contains(&k.as_str()))
        || GPU_RESOURCES
            .iter()
            .any(|r| group.allocatable.resources.get(r).is_some_and(|v| v > 0))
}

/// An option and the nodes its estimate opened.
#[derive(Debug, Clone)]
pub struct Computed {
    pub candidate: Candidate,
    pub(crate) estimate: Estimate,
    /// The threshold that stopped the estimate with pods left.
    pub limited_by: Option<&'static str>,
}

// Port of ComputeExpansionOption: the binpacking estimator for the pods the group can take
// (`schedulable`, kinds of identical pods), and the option the expanders compare.
pub fn compute(
    group: &NodeGroupSpec,
    size: i64,
    schedulable: &[(Resources, i64)],
    input: &NodeGroupsInput,
    cluster_nodes: i64,
) -> Computed {
    let (limit, threshold) = node_limit(group, size, input, cluster_nodes);
    let max_new = match limit {
        0 => i64::MAX,
        l if l < 0 => 0,
        l => l,
    };
    let estimate = estimate_on(schedulable, &group.allocatable, &input.daemonsets, max_new);
    let mut candidate = Candidate {
        group: group.name.clone(),
        node_count: i64::try_from(estimate.nodes.len()).unwrap_or(i64::MAX),
        pod_count: 0,
        requested_cpu: 0,
        requested_memory: 0,
        capacity_cpu: group.capacity.resources.get("cpu").unwrap_or(0),
        capacity_memory: group.capacity.resources.get("memory").unwrap_or(0),
        node_price: group.price_per_hour,
        pods_price: Some(0.0),
        exists: group.exists,
        has_gpu: has_gpu(group),
        priorities: group.priorities.clone(),
    };
    let mut left = 0;
    for ((request, count), placed) in schedulable.iter().zip(&estimate.placed) {
        let cpu = request.get("cpu").unwrap_or(0);
        let memory = request.get("memory").unwrap_or(0);
        candidate.pod_count += placed;
        candidate.requested_cpu += cpu.saturating_mul(*placed);
        candidate.requested_memory += memory.saturating_mul(*placed);
        candidate.pods_price = candidate.pods_price.map(|p| {
            p + pod_price(&input.pod_pricing, cpu, memory) * super::candidate::float(*placed)
        });
        left += count - placed;
    }
    Computed {
        candidate,
        estimate,
        limited_by: (left > 0 && limit != 0).then_some(threshold),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calc::node_groups::testing::{group, input};

    #[test]
    fn the_smallest_positive_threshold_limits_and_a_full_group_allows_none() {
        let mut inp = input(vec![group("a", 4000, 16)]);
        inp.groups[0].max_size = 10;
        assert_eq!(node_limit(&inp.groups[0], 4, &inp, 4), (6, "nodeGroupMax"));
        inp.max_nodes_total = Some(7);
        assert_eq!(node_limit(&inp.groups[0], 4, &inp, 4), (3, "maxNodesTotal"));
        assert_eq!(node_limit(&inp.groups[0], 10, &inp, 4).0, -1);
        inp.max_nodes_total = None;
        inp.max_nodes_per_scale_up = 2;
        assert_eq!(
            node_limit(&inp.groups[0], 4, &inp, 4),
            (2, "maxNodesPerScaleUp")
        );
    }

    #[test]
    fn an_option_counts_the_pods_its_nodes_take_and_their_requests() {
        let inp = input(vec![group("a", 4000, 16)]);
        let cpu = |m: i64| Resources(vec![("cpu".into(), m)]);
        let c = compute(&inp.groups[0], 0, &[(cpu(1000), 10)], &inp, 0);
        assert_eq!((c.candidate.node_count, c.candidate.pod_count), (3, 10));
        assert_eq!(c.candidate.requested_cpu, 10_000);
        assert_eq!(c.limited_by, None);
    }
}
