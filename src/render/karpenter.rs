//! The Karpenter rows of the Nodes section: the NodePools tried, each NodeClaim (pool, pods,
//! requests, what launches at what price), the cost, the cause in words, and Karpenter's reason
//! for every pod left Pending.

use crate::report::karpenter::{KarpenterReport, NodeClaimReport};

fn claim_text(c: &NodeClaimReport) -> String {
    let launched = match &c.launched {
        Some(l) => format!(
            "{} {} in {} at ${:.3}/h",
            l.instance_type,
            l.capacity_type,
            l.zone,
            c.price_per_hour.unwrap_or(0.0)
        ),
        None => "no offering left to launch".to_string(),
    };
    let requests: Vec<String> = c.requests.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let shown: Vec<&str> = c
        .instance_types
        .iter()
        .take(5)
        .map(String::as_str)
        .collect();
    let more = c.instance_type_count.saturating_sub(shown.len());
    let types = if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    };
    format!(
        "{} pod(s) on NodePool {} → {launched}\nrequests (DaemonSets included): {}\nfits: {types}",
        c.pods,
        c.node_pool,
        requests.join(", ")
    )
}

/// The rows under the Nodes section's pod request.
pub(crate) fn rows(k: &KarpenterReport) -> Vec<Vec<String>> {
    let mut rows = vec![
        vec!["catalog".to_string(), k.catalog.clone()],
        vec![
            "nodepools".to_string(),
            format!("{} (tried in this order)", k.node_pools.join(", ")),
        ],
    ];
    if !k.skipped_node_pools.is_empty() {
        rows.push(vec![
            "skipped".to_string(),
            format!(
                "{}: the NodePool's requirements leave no instance type",
                k.skipped_node_pools.join(", ")
            ),
        ]);
    }
    if k.existing_nodes > 0 {
        rows.push(vec![
            "existing".to_string(),
            format!(
                "{} pod(s) fit on the {} existing node(s), tried first",
                k.pods_on_existing_nodes, k.existing_nodes
            ),
        ]);
    }
    for (i, c) in k.node_claims.iter().enumerate() {
        rows.push(vec![format!("nodeclaim {}", i + 1), claim_text(c)]);
    }
    let pending: i64 = k.unschedulable.iter().map(|u| u.pods).sum();
    rows.push(vec![
        "karpenter".to_string(),
        format!(
            "{} Pending pod(s) → {} NodeClaim(s), ${:.3}/h; {pending} stay Pending",
            k.pending_pods,
            k.node_claims.len(),
            k.cost_per_hour
        ),
    ]);
    for line in &k.explanation {
        rows.push(vec!["why".to_string(), line.clone()]);
    }
    for u in &k.unschedulable {
        rows.push(vec![
            "why pending".to_string(),
            format!("{} pod(s): {}", u.pods, u.reason),
        ]);
    }
    rows
}
