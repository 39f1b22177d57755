//! The one-shot answer when the HPA scales down with `--nodepool`: the cluster is what
//! provisioning launches for the current count, the ReplicaSet removes its pods, and
//! Karpenter's disruption loops consolidate what is left (`consolidation.rs`).

use super::consolidation::{self, Cluster, ClusterNode, Command, Consolidation};
use super::scheduler::{Daemon, Results};
use super::{catalog, pod::Pod};
use crate::report::karpenter::{
    ConsolidationCommand, ExistingNodeClaim, KarpenterReport, Launched, NotConsolidated,
};
use crate::scenario::karpenter::KarpenterInput;

/// How many loops the one-shot answer runs at most (each removes at least one node).
const MAX_LOOPS: usize = 100;

/// The NodeClaims of a solve as running nodes named `<nodepool>-<n>`, their DaemonSet overhead
/// the template's for the launched type; each has sat long enough for `consolidateAfter`.
pub fn nodes_of(catalog: &[catalog::Item], results: &Results) -> Vec<ClusterNode> {
    let mut out = Vec::new();
    for (i, c) in results.claims.iter().enumerate() {
        let its: Vec<&catalog::Item> = (c.instance_types.iter())
            .filter_map(|i| catalog.get(*i))
            .collect();
        let Some(l) = catalog::launch(&its, &c.requirements) else {
            continue;
        };
        let Some(t) = results.templates.get(c.template) else {
            continue;
        };
        let item = catalog.iter().position(|x| x.name == l.instance_type);
        let daemon_requests = (t.daemon_groups.iter())
            .find(|g| item.is_some_and(|i| g.0.contains(&i)))
            .map(|g| g.1.clone())
            .unwrap_or_default();
        out.push(ClusterNode {
            name: format!("{}-{}", t.node_pool, i + 1),
            node_pool: t.node_pool.clone(),
            instance_type: l.instance_type,
            zone: l.zone,
            capacity_type: l.capacity_type,
            labels: Vec::new(),
            allocatable: None,
            daemon_requests,
            pods: (c.pods.iter())
                .filter_map(|p| results.pods.get(*p).cloned())
                .collect(),
            since_pod_change_s: i64::MAX,
        });
    }
    out
}

// Port of getPodsToDelete with getPodsRankedByRelatedPodsOnSameNode (kubernetes
// pkg/controller/replicaset): pods on nodes holding more of the workload go first; among equals
// the newer (later) pod. Ranks are counted once, before the deletions.
pub fn remove_pods(nodes: &mut [ClusterNode], remove: usize) {
    let mut ranked: Vec<(usize, usize, usize)> = Vec::new();
    for (n, node) in nodes.iter().enumerate() {
        for p in 0..node.pods.len() {
            ranked.push((node.pods.len(), n, p));
        }
    }
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)));
    let mut gone: Vec<(usize, usize)> = ranked.iter().take(remove).map(|r| (r.1, r.2)).collect();
    gone.sort_by(|a, b| b.cmp(a));
    for (n, p) in gone {
        if let Some(node) = nodes.get_mut(n)
            && p < node.pods.len()
        {
            let _: Pod = node.pods.remove(p);
        }
    }
}

fn command_report(c: &Command) -> ConsolidationCommand {
    let r = c.replacement.as_ref();
    ConsolidationCommand {
        method: c.method.name().into(),
        reason: c.method.reason().into(),
        decision: if r.is_some() { "replace" } else { "delete" }.into(),
        nodes_removed: c.nodes.clone(),
        replacement: r.and_then(|r| r.launched.as_ref()).map(|l| Launched {
            instance_type: l.instance_type.clone(),
            capacity_type: l.capacity_type.clone(),
            zone: l.zone.clone(),
        }),
        replacement_instance_types: r
            .map(|r| r.instance_types.iter().take(10).cloned().collect())
            .unwrap_or_default(),
        price_before: c.price_before,
        price_after: c.price_after,
        pods_moved: i64::try_from(c.moves.len()).unwrap_or(i64::MAX),
    }
}

fn price(catalog: &[catalog::Item], n: &ClusterNode) -> f64 {
    (catalog.iter().find(|it| it.name == n.instance_type))
        .and_then(|it| {
            (it.offerings.iter()).find(|o| o.zone == n.zone && o.capacity_type == n.capacity_type)
        })
        .map_or(0.0, |o| o.price)
}

/// What consolidation does after the workload drops from `current` to `desired` pods: fills
/// the report's `existingNodeClaims`, `consolidation`, `notConsolidated` and the cost after.
pub fn consolidate(
    input: &KarpenterInput,
    daemons: &[Daemon],
    current: i64,
    desired: i64,
    report: &mut KarpenterReport,
) {
    let (catalog, results) = super::solve(input, current);
    let mut nodes = nodes_of(&catalog, &results);
    let remove = usize::try_from((current - desired).max(0)).unwrap_or(0);
    remove_pods(&mut nodes, remove);
    report.existing_node_claims = (nodes.iter())
        .map(|n| ExistingNodeClaim {
            name: n.name.clone(),
            node_pool: n.node_pool.clone(),
            instance_type: n.instance_type.clone(),
            capacity_type: n.capacity_type.clone(),
            price_per_hour: price(&catalog, n),
            pods: i64::try_from(n.pods.len()).unwrap_or(i64::MAX),
        })
        .collect();
    let done: Consolidation = consolidation::consolidate(
        Cluster {
            node_pools: &input.node_pools,
            catalog: &catalog,
            daemons,
            nodes,
            spot_to_spot: false,
        },
        MAX_LOOPS,
    );
    report.consolidation = done.commands.iter().map(command_report).collect();
    report.not_consolidated = (done.unconsolidatable.into_iter())
        .map(|(node, reason)| NotConsolidated { node, reason })
        .collect();
    report.cost_per_hour_after_consolidation =
        Some(done.nodes.iter().map(|n| price(&catalog, n)).sum::<f64>() + 0.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, pods: usize) -> ClusterNode {
        ClusterNode {
            name: name.into(),
            node_pool: "default".into(),
            instance_type: "t".into(),
            zone: "z".into(),
            capacity_type: "on-demand".into(),
            labels: Vec::new(),
            allocatable: None,
            daemon_requests: catalog::Res::new(),
            pods: (0..pods)
                .map(|i| Pod {
                    name: format!("{name}-{i}"),
                    group: 0,
                    requests: catalog::Res::new(),
                    constraints: Default::default(),
                })
                .collect(),
            since_pod_change_s: 0,
        }
    }

    #[test]
    fn the_replicaset_removes_pods_from_the_most_crowded_node_first() {
        let mut nodes = vec![node("a", 2), node("b", 5), node("c", 3)];
        remove_pods(&mut nodes, 6);
        let left: Vec<usize> = nodes.iter().map(|n| n.pods.len()).collect();
        // Ranks are counted once: b's 5 pods go first, then the newest of c's 3.
        assert_eq!(left, vec![2, 0, 2]);
        assert_eq!(nodes[2].pods[1].name, "c-1");
    }
}
