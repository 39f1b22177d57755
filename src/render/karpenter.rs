//! The Karpenter rows of the Nodes section: the NodePools tried, each NodeClaim (pool, pods,
//! requests, what launches at what price), the cost, the cause in words, and Karpenter's reason
//! for every pod left Pending.

use crate::report::karpenter::{ConsolidationCommand, KarpenterReport, NodeClaimReport};

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

fn command_text(c: &ConsolidationCommand) -> String {
    let method = match c.method.as_str() {
        "empty" => "empty-node consolidation",
        "multi" => "multi-node consolidation",
        _ => "single-node consolidation",
    };
    let what = match &c.replacement {
        Some(r) => format!(
            "replace {} (${:.3}/h) with one {} {} in {} (${:.3}/h)",
            c.nodes_removed.join(", "),
            c.price_before,
            r.instance_type,
            r.capacity_type,
            r.zone,
            c.price_after
        ),
        None => format!(
            "delete {} (${:.3}/h)",
            c.nodes_removed.join(", "),
            c.price_before
        ),
    };
    format!(
        "{method} ({}): {what}; {} pod(s) move, saves ${:.3}/h",
        c.reason,
        c.pods_moved,
        c.price_before - c.price_after
    )
}

/// The scale-down rows: the NodeClaims before, each consolidation command, what stays and why.
fn consolidation_rows(k: &KarpenterReport) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for n in &k.existing_node_claims {
        rows.push(vec![
            "running".to_string(),
            format!(
                "{} ({} {}, ${:.3}/h): {} pod(s) left after the scale-down",
                n.name, n.instance_type, n.capacity_type, n.price_per_hour, n.pods
            ),
        ]);
    }
    for (i, c) in k.consolidation.iter().enumerate() {
        rows.push(vec![format!("consolidation {}", i + 1), command_text(c)]);
    }
    if let Some(after) = k.cost_per_hour_after_consolidation {
        let before: f64 = k
            .existing_node_claims
            .iter()
            .map(|n| n.price_per_hour)
            .sum();
        let what = if k.consolidation.is_empty() {
            "nothing consolidates".to_string()
        } else {
            format!("{} command(s)", k.consolidation.len())
        };
        rows.push(vec![
            "consolidated".to_string(),
            format!("{what}: ${before:.3}/h → ${after:.3}/h"),
        ]);
    }
    for n in &k.not_consolidated {
        rows.push(vec![
            "why kept".to_string(),
            format!("{}: {}", n.node, n.reason),
        ]);
    }
    rows
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
    let scale_down = !k.existing_node_claims.is_empty() && k.pending_pods == 0;
    if scale_down {
        rows.extend(consolidation_rows(k));
        return rows;
    }
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
    rows.extend(consolidation_rows(k));
    rows
}
