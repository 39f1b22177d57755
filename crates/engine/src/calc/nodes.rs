//! The Cluster Autoscaler's view of a decision: how many pods fit on a node of the group, which
//! new pods fit in the free room of existing nodes, how many stay Pending, and how many nodes the
//! binpacking estimator adds for them within the group's and the cluster's limits. On a
//! scale-down: which nodes fall under the scale-down utilization threshold.
//!
//! Mirrors kube-scheduler's NodeResourcesFit filter (`fitsRequest`) and the Cluster Autoscaler's
//! filter-out-schedulable step and `BinpackingNodeEstimator` (`binpacking_estimator.go`) for one
//! node group and identical pods, where next-fit equals first-fit and the estimate is
//! `ceil(pending / k)`. Placement is deterministic first-fit in node order.

use crate::report::{NodeSummary, NodesReport};
use crate::scenario::{Capacity, ContainerKind, Existing, NodeInput, Pod, Resources};

// Port of PodRequests (k8s.io/component-helpers/resource/helpers.go) for one resource: app
// containers and sidecars summed, at least the largest init container plus the sidecars declared
// before it, pod-level requests instead when set. Pod overhead is not modelled.
pub fn effective_request(pod: &Pod, resource: &str) -> i64 {
    if let Some(v) = pod.pod_requests.as_ref().and_then(|r| r.get(resource))
        && (resource == "cpu" || resource == "memory")
    {
        return v;
    }
    let mut result = 0i64;
    let mut sidecars = 0i64;
    let mut init_max = 0i64;
    for c in pod
        .containers
        .iter()
        .filter(|c| c.kind == ContainerKind::App)
    {
        result = result.saturating_add(c.requests.get(resource).unwrap_or(0));
    }
    for c in pod
        .containers
        .iter()
        .filter(|c| c.kind != ContainerKind::App)
    {
        let r = c.requests.get(resource).unwrap_or(0);
        let used = if c.kind == ContainerKind::Sidecar {
            result = result.saturating_add(r);
            sidecars = sidecars.saturating_add(r);
            sidecars
        } else {
            r.saturating_add(sidecars)
        };
        init_max = init_max.max(used);
    }
    result.max(init_max)
}

/// Every resource any container or the pod level names, in first-seen order.
pub fn effective_requests(pod: &Pod) -> Resources {
    let mut names: Vec<&str> = Vec::new();
    let all = pod
        .containers
        .iter()
        .flat_map(|c| c.requests.0.iter())
        .chain(pod.pod_requests.iter().flat_map(|r| r.0.iter()));
    for (name, _) in all {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    Resources(
        names
            .into_iter()
            .map(|n| (n.to_string(), effective_request(pod, n)))
            .collect(),
    )
}

/// The Cluster Autoscaler's `--max-nodes-per-scaleup` default: nodes one estimate may add.
pub const MAX_NODES_PER_SCALE_UP: i64 = 1000;

/// A node being filled in the estimate.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub(crate) name: String,
    pub(crate) allocatable: Capacity,
    pub(crate) requested: Capacity,
    pub(crate) workload_pods: i64,
    pub(crate) schedulable: bool,
    /// Opened by the estimator in this plan.
    pub(crate) added: bool,
}

impl Slot {
    // Port of fitsRequest (noderesources/fit.go): the pod count always; each resource only when
    // the pod requests it, and a request fits exactly into the remaining room.
    pub(crate) fn fits(&self, request: &Resources) -> bool {
        if self.requested.pods.saturating_add(1) > self.allocatable.pods {
            return false;
        }
        request.0.iter().filter(|(_, r)| *r > 0).all(|(name, r)| {
            let alloc = self.allocatable.resources.get(name).unwrap_or(0);
            let used = self.requested.resources.get(name).unwrap_or(0);
            *r <= alloc.saturating_sub(used)
        })
    }

    pub(crate) fn place(&mut self, request: &Resources) {
        self.place_n(request, 1);
    }

    /// `n` identical pods at once: what `n` calls of `place` do, in one step.
    pub(crate) fn place_n(&mut self, request: &Resources, n: i64) {
        add(&mut self.requested.resources, request, n);
        self.requested.pods = self.requested.pods.saturating_add(n);
        self.workload_pods = self.workload_pods.saturating_add(n);
    }

    /// How many more pods of `request` fit: `fits` asked again after each `place`, in one step.
    pub(crate) fn room_for(&self, request: &Resources) -> i64 {
        let mut room = self
            .allocatable
            .pods
            .saturating_sub(self.requested.pods)
            .max(0);
        for (name, r) in request.0.iter().filter(|(_, r)| *r > 0) {
            let alloc = self.allocatable.resources.get(name).unwrap_or(0);
            let used = self.requested.resources.get(name).unwrap_or(0);
            room = room.min((alloc.saturating_sub(used) / r).max(0));
        }
        room
    }

    pub(crate) fn remove(&mut self, request: &Resources) {
        add(&mut self.requested.resources, request, -1);
        self.requested.pods -= 1;
        self.workload_pods -= 1;
    }

    /// Cluster Autoscaler's scale-down utilization: the larger of cpu and memory requests over
    /// allocatable (`utilization.Calculate`).
    pub(crate) fn utilization(&self) -> f64 {
        ["cpu", "memory"]
            .iter()
            .filter_map(|r| {
                let alloc = self.allocatable.resources.get(r)?;
                (alloc > 0).then(|| ratio(self.requested.resources.get(r).unwrap_or(0), alloc))
            })
            .fold(0.0, f64::max)
    }
}

fn ratio(a: i64, b: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let r = a as f64 / b as f64;
    r
}

fn add(into: &mut Resources, request: &Resources, sign: i64) {
    for (name, v) in &request.0 {
        match into.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, total)) => *total = total.saturating_add(sign.saturating_mul(*v)),
            None => into.0.push((name.clone(), sign.saturating_mul(*v))),
        }
    }
}

/// Pods of `request` that fit on a fresh template node after the DaemonSets, and what limits them.
pub fn pods_per_node(
    template: &Capacity,
    daemonsets: &Capacity,
    request: &Resources,
) -> (i64, String) {
    let free_pods = template.pods.saturating_sub(daemonsets.pods).max(0);
    let mut best = (free_pods, "pods".to_string());
    for (name, r) in request.0.iter().filter(|(_, r)| *r > 0) {
        let free = template
            .resources
            .get(name)
            .unwrap_or(0)
            .saturating_sub(daemonsets.resources.get(name).unwrap_or(0))
            .max(0);
        let k = free / r;
        if k < best.0 {
            best = (k, name.clone());
        }
    }
    best
}

pub(crate) fn template_slot(name: String, input: &NodeInput) -> Slot {
    fresh_slot(name, &input.template, &input.daemonsets)
}

/// A fresh node of `template` with the DaemonSets' pods on it.
pub(crate) fn fresh_slot(name: String, template: &Capacity, daemonsets: &Capacity) -> Slot {
    Slot {
        name,
        allocatable: template.clone(),
        requested: daemonsets.clone(),
        workload_pods: 0,
        schedulable: true,
        added: false,
    }
}

/// What the estimator opened for the Pending pods.
#[derive(Debug, Clone)]
pub(crate) struct Estimate {
    pub(crate) nodes: Vec<Slot>,
    /// Pods placed, per group, in the groups' order.
    pub(crate) placed: Vec<i64>,
}

// Port of BinpackingNodeEstimator.Estimate (cluster-autoscaler estimator/binpacking_estimator.go)
// with the DecreasingPodOrderer: groups of identical pods, largest score first; each group first
// fills nodes opened earlier in this estimate (stopping at the first pod that fits none), then
// packs next-fit onto new template nodes, at most `limit` of them.
pub(crate) fn estimate(groups: &[(Resources, i64)], input: &NodeInput, limit: i64) -> Estimate {
    estimate_on(groups, &input.template, &input.daemonsets, limit)
}

// Port of DecreasingPodOrderer.Order and calculatePodScore: the groups' indices by their cpu
// and memory over the template's allocatable, summed, largest first (a stable sort: Go's
// sort.Slice leaves equal scores in no promised order).
pub fn decreasing_order(requests: &[&Resources], template: &Capacity) -> Vec<usize> {
    let score = |r: &Resources| {
        ["cpu", "memory"]
            .iter()
            .filter_map(|name| {
                let alloc = template.resources.get(name).filter(|a| *a > 0)?;
                Some(ratio(r.get(name).unwrap_or(0), alloc))
            })
            .sum::<f64>()
    };
    let scores: Vec<f64> = requests.iter().map(|r| score(r)).collect();
    let mut order: Vec<usize> = (0..requests.len()).collect();
    order.sort_by(|a, b| {
        let (sa, sb) = (scores.get(*a), scores.get(*b));
        sb.zip(sa)
            .map_or(std::cmp::Ordering::Equal, |(b, a)| b.total_cmp(a))
    });
    order
}

/// What the estimator answers: nodes opened (with pods) and the pods placed per group, in the
/// groups' order, for `limit` new nodes at most.
pub fn estimate_counts(
    groups: &[(Resources, i64)],
    template: &Capacity,
    daemonsets: &Capacity,
    limit: i64,
) -> (i64, Vec<i64>) {
    let e = estimate_on(groups, template, daemonsets, limit);
    (i64::try_from(e.nodes.len()).unwrap_or(i64::MAX), e.placed)
}

/// [`estimate`] for any template node and DaemonSets: what each node group's option computes.
pub(crate) fn estimate_on(
    groups: &[(Resources, i64)],
    template: &Capacity,
    daemonsets: &Capacity,
    limit: i64,
) -> Estimate {
    // Each group with the pods placed so far, largest score first.
    let mut slots: Vec<Option<(&Resources, i64, &mut i64)>> = Vec::new();
    let mut placed = vec![0i64; groups.len()];
    for ((request, count), done) in groups.iter().zip(placed.iter_mut()) {
        slots.push(Some((request, *count, done)));
    }
    let requests: Vec<&Resources> = groups.iter().map(|(r, _)| r).collect();
    let order: Vec<(&Resources, i64, &mut i64)> = decreasing_order(&requests, template)
        .into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .collect();
    let mut opened: Vec<Slot> = Vec::new();
    let mut new_allowed = true;
    for (request, count, done) in order {
        let mut left = count;
        // Phase A: first-fit on nodes opened earlier; stop at the first pod that fits none. The
        // pods are identical and room only shrinks, so first-fit fills the nodes in order.
        for slot in opened.iter_mut() {
            let n = slot.room_for(request).min(left);
            if n > 0 {
                slot.place_n(request, n);
                left -= n;
                *done += n;
            }
        }
        // Phase B: next-fit, opening template nodes (each filled at once).
        while left > 0 && new_allowed {
            if let Some(last) = opened.last_mut() {
                let n = last.room_for(request).min(left);
                if n > 0 {
                    last.place_n(request, n);
                    left -= n;
                    *done += n;
                    continue;
                }
                if last.workload_pods == 0 {
                    break;
                }
            }
            if i64::try_from(opened.len()).unwrap_or(i64::MAX) >= limit {
                new_allowed = false;
                break;
            }
            let mut slot = fresh_slot(format!("new-{}", opened.len() + 1), template, daemonsets);
            slot.added = true;
            if !slot.fits(request) {
                break;
            }
            let n = slot.room_for(request).min(left);
            slot.place_n(request, n);
            left -= n;
            *done += n;
            opened.push(slot);
        }
    }
    opened.retain(|s| s.workload_pods > 0);
    Estimate {
        nodes: opened,
        placed,
    }
}

/// The nodes now, with the current pods on them; pods that fit nowhere count as already Pending.
fn existing_slots(input: &NodeInput, current: i64, k: i64) -> (Vec<Slot>, i64) {
    let count = match &input.existing {
        Existing::Nodes(nodes) => {
            let slots = nodes
                .iter()
                .map(|n| Slot {
                    name: n.name.clone(),
                    allocatable: n.allocatable.clone(),
                    requested: n.requested.clone(),
                    workload_pods: n.workload_pods,
                    schedulable: n.schedulable,
                    added: false,
                })
                .collect();
            let placed: i64 = nodes.iter().map(|n| n.workload_pods).sum();
            return (slots, current.saturating_sub(placed).max(0));
        }
        Existing::Template(Some(n)) => *n,
        Existing::Template(None) if k > 0 => (current + k - 1) / k,
        Existing::Template(None) => 0,
    };
    let mut slots: Vec<Slot> = (1..=count)
        .map(|i| template_slot(format!("node-{i}"), input))
        .collect();
    let pending = fill_first_fit(&mut slots, &input.pod_request, current, |_| true);
    (slots, pending)
}

/// First-fit of `count` identical pods over the slots `usable` allows, in order; returns the pods
/// that fit nowhere. Room only shrinks, so each slot is filled once, in one step.
fn fill_first_fit(
    slots: &mut [Slot],
    request: &Resources,
    count: i64,
    usable: impl Fn(&Slot) -> bool,
) -> i64 {
    let mut left = count;
    for slot in slots.iter_mut().filter(|s| usable(s)) {
        if left == 0 {
            break;
        }
        let n = slot.room_for(request).min(left);
        if n > 0 {
            slot.place_n(request, n);
            left -= n;
        }
    }
    left
}

/// `NodesReport.pod_request`: one pod's requests as `buildQuantity` strings, by resource name
/// (shared by the one-group plan and the node-groups plan).
pub(crate) fn pod_request_quantities(
    request: &Resources,
) -> std::collections::BTreeMap<String, String> {
    request
        .0
        .iter()
        .map(|(n, v)| (n.clone(), crate::quantity::build_quantity(n, *v)))
        .collect()
}

/// The nodes consequence of going from `current` to `desired` pods.
pub fn plan(input: &NodeInput, current: i32, desired: i32) -> NodesReport {
    let (k, limiting) = pods_per_node(&input.template, &input.daemonsets, &input.pod_request);
    let current = i64::from(current.max(0));
    let desired = i64::from(desired.max(0));
    let (mut slots, already_pending) = existing_slots(input, current, k);
    let existing = i64::try_from(slots.len()).unwrap_or(i64::MAX);

    // A scale-down deletes the unscheduled pods first (`ActivePodsWithRanks`), then the pods on
    // the nodes with the most of the workload's replicas; among equals, the later node.
    let mut to_remove = (current - desired).max(0);
    let unscheduled_removed = already_pending.min(to_remove);
    to_remove -= unscheduled_removed;
    // The node with the most, the later among equals: the top of a heap of (pods, index).
    let mut heap: std::collections::BinaryHeap<(i64, usize)> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.workload_pods > 0)
        .map(|(i, s)| (s.workload_pods, i))
        .collect();
    for _ in 0..to_remove {
        let Some((_, i)) = heap.pop() else { break };
        if let Some(slot) = slots.get_mut(i) {
            slot.remove(&input.pod_request);
            if slot.workload_pods > 0 {
                heap.push((slot.workload_pods, i));
            }
        }
    }

    // Filter-out-schedulable: pods without a node, new ones included, first fill the free room
    // of schedulable nodes, in order.
    let unplaced = already_pending - unscheduled_removed + (desired - current).max(0);
    let pending = fill_first_fit(&mut slots, &input.pod_request, unplaced, |s| s.schedulable);

    // The binpacking estimator for the Pending pods, within the group's and the cluster's room.
    // Port of the static threshold (static_threshold.go): --max-nodes-per-scaleup, 1000.
    let mut limited_by = Some("maxNodesPerScaleUp".to_string());
    let mut limit = MAX_NODES_PER_SCALE_UP;
    for (max, name) in [
        (input.node_group_max, "nodeGroupMax"),
        (input.max_nodes_total, "maxNodesTotal"),
    ] {
        if let Some(max) = max {
            let room = max.saturating_sub(existing).max(0);
            if room < limit {
                limit = room;
                limited_by = Some(name.to_string());
            }
        }
    }
    let estimate = estimate(&[(input.pod_request.clone(), pending)], input, limit);
    let to_add = i64::try_from(estimate.nodes.len()).unwrap_or(i64::MAX);
    let unschedulable = pending - estimate.placed.first().copied().unwrap_or(0);
    if unschedulable == 0 {
        limited_by = None;
    } else if k == 0 {
        limited_by = Some("podTooLarge".to_string());
    }
    slots.extend(estimate.nodes);

    let nodes: Vec<NodeSummary> = slots
        .iter()
        .map(|s| NodeSummary {
            name: s.name.clone(),
            workload_pods: s.workload_pods,
            pods: s.requested.pods,
            utilization: s.utilization(),
            new: s.added,
        })
        .collect();
    let underutilized = if desired < current {
        slots
            .iter()
            .filter(|s| !s.added)
            .filter(|s| s.utilization() <= input.scale_down_utilization_threshold)
            .map(|s| s.name.clone())
            .collect()
    } else {
        Vec::new()
    };

    NodesReport {
        pod_request: pod_request_quantities(&input.pod_request),
        pod_request_source: input.pod_request_source.clone(),
        pods_per_node: k,
        limiting_resource: limiting,
        existing,
        needed: existing + to_add,
        to_add,
        pending_pods: pending,
        unschedulable_pods: unschedulable,
        limited_by,
        scale_down_utilization_threshold: input.scale_down_utilization_threshold,
        scale_down_unneeded_time: input.scale_down_unneeded_time.to_string(),
        underutilized_nodes: underutilized,
        nodes,
        node_groups: None,
        karpenter: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Container, ExistingNode, PodPhase};
    use crate::time::Duration;

    const MI: i64 = 1024 * 1024 * 1000;

    fn res(cpu: i64, mem_mi: i64) -> Resources {
        Resources(vec![("cpu".into(), cpu), ("memory".into(), mem_mi * MI)])
    }

    /// The reference's template G1: 3920m / 14000Mi / 110 pods, DaemonSets 250m / 392Mi / 3 pods.
    fn g1(pod_request: Resources, existing: Existing) -> NodeInput {
        NodeInput {
            template: Capacity {
                resources: res(3920, 14000),
                pods: 110,
            },
            daemonsets: Capacity {
                resources: res(250, 392),
                pods: 3,
            },
            existing,
            pod_request,
            pod_request_source: "test".into(),
            node_group_max: None,
            max_nodes_total: None,
            scale_down_utilization_threshold: 0.5,
            scale_down_unneeded_time: Duration::from_secs(600),
        }
    }

    fn node(name: &str, requested_cpu: i64, requested_mem_mi: i64, pods: i64) -> ExistingNode {
        ExistingNode {
            name: name.into(),
            allocatable: Capacity {
                resources: res(3920, 14000),
                pods: 110,
            },
            requested: Capacity {
                resources: res(requested_cpu, requested_mem_mi),
                pods,
            },
            workload_pods: 0,
            schedulable: true,
        }
    }

    #[test]
    fn the_pod_request_is_reported_in_build_quantity_form() {
        let q = pod_request_quantities(&res(600, 1152));
        assert_eq!(q.get("cpu").map(String::as_str), Some("600m"));
        assert_eq!(q.get("memory").map(String::as_str), Some("1152Mi"));
    }

    #[test]
    fn example_a_identical_pods_fill_existing_free_room_first() {
        // n1 has 1000m / 4000Mi free, n2 1300m / 2000Mi, n3 300m: 2 of 20 pods fit there.
        let existing = Existing::Nodes(vec![
            node("n1", 2920, 10000, 10),
            node("n2", 2620, 12000, 10),
            node("n3", 3620, 10000, 10),
        ]);
        let r = plan(&g1(res(600, 1152), existing), 0, 20);
        assert_eq!((r.pods_per_node, r.limiting_resource.as_str()), (6, "cpu"));
        assert_eq!((r.pending_pods, r.to_add, r.needed), (18, 3, 6));
        assert_eq!(r.unschedulable_pods, 0);
    }

    #[test]
    fn one_scale_up_adds_at_most_max_nodes_per_scaleup_nodes() {
        // 3670m free on a fresh node: one 3000m pod per node, 1,500 pods pending.
        let r = plan(&g1(res(3000, 100), Existing::Template(Some(0))), 0, 1500);
        assert_eq!((r.to_add, r.unschedulable_pods), (1000, 500));
        assert_eq!(r.limited_by.as_deref(), Some("maxNodesPerScaleUp"));
        // A smaller group maximum is the limit named.
        let mut input = g1(res(3000, 100), Existing::Template(Some(0)));
        input.node_group_max = Some(20);
        let r = plan(&input, 0, 1500);
        assert_eq!(
            (r.to_add, r.limited_by.as_deref()),
            (20, Some("nodeGroupMax"))
        );
    }

    #[test]
    fn filling_in_one_step_places_as_one_pod_at_a_time_would() {
        // 1,000,000 pods of 100m on 10,000 nodes of 3670m free: 36 a node, all placed, in no time.
        let r = plan(
            &g1(res(100, 10), Existing::Template(Some(10_000))),
            1_000_000,
            1_000_000,
        );
        assert_eq!(r.pods_per_node, 36);
        assert_eq!((r.pending_pods, r.to_add), (640_000, 1000));
        let first: Vec<i64> = r.nodes.iter().take(2).map(|n| n.workload_pods).collect();
        assert_eq!(first, vec![36, 36]);
    }

    #[test]
    fn example_b_mixed_pods_pack_into_five_nodes() {
        let input = g1(Resources::default(), Existing::Template(Some(0)));
        let groups = [
            (res(500, 4096), 10),
            (res(2000, 2048), 4),
            (res(250, 512), 12),
        ];
        let e = estimate(&groups, &input, i64::MAX);
        assert_eq!(e.nodes.len(), 5);
        assert_eq!(e.placed, [10, 4, 12]);
    }

    #[test]
    fn example_c_pods_without_requests_are_bound_by_pod_slots() {
        let r = plan(
            &g1(Resources::default(), Existing::Template(Some(0))),
            0,
            250,
        );
        assert_eq!(
            (r.pods_per_node, r.limiting_resource.as_str()),
            (107, "pods")
        );
        assert_eq!(r.to_add, 3);
        let r = plan(&g1(res(10, 32), Existing::Template(Some(0))), 0, 250);
        assert_eq!((r.pods_per_node, r.to_add), (107, 3));
    }

    #[test]
    fn example_f_the_group_and_cluster_limits_leave_pods_pending() {
        let full: Vec<ExistingNode> = (1..=8)
            .map(|i| node(&format!("n{i}"), 3920, 14000, 110))
            .collect();
        let mut input = g1(res(600, 1152), Existing::Nodes(full));
        input.node_group_max = Some(10);
        let r = plan(&input, 0, 30);
        assert_eq!((r.to_add, r.unschedulable_pods), (2, 18));
        assert_eq!(r.limited_by.as_deref(), Some("nodeGroupMax"));
        input.node_group_max = None;
        input.max_nodes_total = Some(10);
        let r = plan(&input, 0, 30);
        assert_eq!(
            (r.to_add, r.limited_by.as_deref()),
            (2, Some("maxNodesTotal"))
        );
    }

    #[test]
    fn a_pod_larger_than_a_fresh_node_is_never_schedulable() {
        let r = plan(&g1(res(4000, 1), Existing::Template(Some(1))), 0, 3);
        assert_eq!((r.pods_per_node, r.to_add, r.unschedulable_pods), (0, 0, 3));
        assert_eq!(r.limited_by.as_deref(), Some("podTooLarge"));
    }

    #[test]
    fn a_request_fits_exactly_into_the_remaining_room() {
        // 3670m free: six pods of 600m use 3600m, a pod of 70m still fits, 71m does not.
        let mut slot = template_slot("n".into(), &g1(res(600, 0), Existing::Template(None)));
        for _ in 0..6 {
            slot.place(&res(600, 0));
        }
        assert!(slot.fits(&res(70, 0)));
        assert!(!slot.fits(&res(71, 0)));
    }

    #[test]
    fn default_existing_nodes_are_just_enough_for_the_current_pods() {
        let r = plan(&g1(res(600, 1152), Existing::Template(None)), 13, 13);
        assert_eq!((r.existing, r.to_add, r.pending_pods), (3, 0, 0));
    }

    #[test]
    fn a_scale_down_names_the_nodes_under_the_threshold() {
        // 12 pods on 2 nodes (6 each, 3850m of 3920m); down to 7 removes from the fullest nodes.
        let r = plan(&g1(res(600, 1152), Existing::Template(None)), 12, 7);
        let counts: Vec<i64> = r.nodes.iter().map(|n| n.workload_pods).collect();
        assert_eq!(counts, [4, 3]);
        // 250 + 3 × 600 = 2050m of 3920m = 0.523 > 0.5; 250 + 4 × 600 is more.
        assert!(r.underutilized_nodes.is_empty());
        let r = plan(&g1(res(600, 1152), Existing::Template(None)), 12, 5);
        assert_eq!(r.underutilized_nodes, ["node-2"]);
    }

    fn container(name: &str, kind: ContainerKind, cpu: i64, mem_mi: i64) -> Container {
        Container {
            name: name.into(),
            kind,
            requests: res(cpu, mem_mi),
        }
    }

    #[test]
    fn example_d_init_containers_and_sidecars_in_declaration_order() {
        let mut pod = Pod {
            name: "p".into(),
            phase: PodPhase::Running,
            deleting: false,
            start_time: None,
            ready: None,
            containers: vec![
                container("app", ContainerKind::App, 500, 512),
                container("log", ContainerKind::App, 250, 256),
                container("migrate", ContainerKind::Init, 1000, 128),
                container("proxy", ContainerKind::Sidecar, 100, 64),
            ],
            pod_requests: None,
            overhead: None,
            placement: Default::default(),
        };
        assert_eq!(effective_requests(&pod), res(1000, 832));
        pod.containers.swap(2, 3);
        assert_eq!(effective_requests(&pod), res(1100, 832));
        pod.pod_requests = Some(res(2000, 1024));
        assert_eq!(effective_request(&pod, "cpu"), 2000);
    }
}
