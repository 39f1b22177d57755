//! Karpenter's provisioning for the decision's new pods (`nodes.karpenter`): the NodeClaims its
//! scheduler opens, the instance types each could launch, what would be launched and its price,
//! and the pods left Pending with Karpenter's own reason.

use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KarpenterReport {
    /// Where the instance types came from (`--instance-types FILE` or the built-in catalog).
    pub catalog: String,
    /// The NodePools in the order the scheduler tries them (weight, then name descending).
    pub node_pools: Vec<String>,
    /// NodePools whose requirements leave no instance type of the catalog.
    pub skipped_node_pools: Vec<String>,
    /// Pods Pending before the solve (the decision's new pods).
    pub pending_pods: i64,
    /// Nodes already in the cluster (`--nodes`, or live `--nodes-from-cluster`): the scheduler
    /// tries them before any NodeClaim.
    pub existing_nodes: i64,
    /// Pending pods the existing nodes take.
    pub pods_on_existing_nodes: i64,
    pub node_claims: Vec<NodeClaimReport>,
    /// Pods no NodeClaim takes, grouped by Karpenter's error.
    pub unschedulable: Vec<UnschedulablePods>,
    /// What the launched NodeClaims cost per hour (a spot launch at its offering's price).
    pub cost_per_hour: f64,
    /// The cause in words: the packing, and what smaller nodes would have cost.
    pub explanation: Vec<String>,
    /// On a scale-down: the NodeClaims the current count runs on (what provisioning launches
    /// for it), before consolidation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub existing_node_claims: Vec<ExistingNodeClaim>,
    /// On a scale-down: what Karpenter's disruption loops do, in order (empty, multi-node,
    /// single-node consolidation; one command per loop).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub consolidation: Vec<ConsolidationCommand>,
    /// On a scale-down: the nodes consolidation leaves, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_consolidated: Vec<NotConsolidated>,
    /// On a scale-down: what the nodes cost per hour once consolidation is done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_per_hour_after_consolidation: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaimReport {
    pub node_pool: String,
    /// The instance types still fitting every pod, cheapest first (`Truncate`: at most 600).
    pub instance_types: Vec<String>,
    /// How many types survived before truncation.
    pub instance_type_count: usize,
    /// What the cloud provider would launch; null when no offering is left.
    pub launched: Option<Launched>,
    pub price_per_hour: Option<f64>,
    /// Pods on the NodeClaim.
    pub pods: i64,
    /// The NodeClaim's requests, DaemonSet overhead included (quantities).
    pub requests: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Launched {
    pub instance_type: String,
    /// `reserved`, `spot` or `on-demand`.
    pub capacity_type: String,
    pub zone: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnschedulablePods {
    pub pods: i64,
    /// Karpenter's error for these pods, as its `FailedScheduling` event says it.
    pub reason: String,
}

/// A NodeClaim running before the scale-down: what provisioning launches for the current
/// count (the one-shot answer derives the cluster from it).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExistingNodeClaim {
    pub name: String,
    pub node_pool: String,
    pub instance_type: String,
    pub capacity_type: String,
    pub price_per_hour: f64,
    /// The workload's pods on it after the ReplicaSet removed its share of the scale-down.
    pub pods: i64,
}

/// One command of Karpenter's disruption controller (`pkg/controllers/disruption`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsolidationCommand {
    /// `empty`, `multi` or `single` (the method's `ConsolidationType`).
    pub method: String,
    /// The disruption reason its budget is counted under: `Empty` or `Underutilized`.
    pub reason: String,
    /// `delete` or `replace`.
    pub decision: String,
    /// The NodeClaims removed.
    pub nodes_removed: Vec<String>,
    /// The one node launched in their place; null for a delete.
    pub replacement: Option<Launched>,
    /// The replacement's instance types after the price filter, cheapest first (at most 10).
    pub replacement_instance_types: Vec<String>,
    /// What the removed nodes cost per hour.
    pub price_before: f64,
    /// What the replacement costs per hour (0 for a delete).
    pub price_after: f64,
    /// Pods rescheduled by the command.
    pub pods_moved: i64,
}

/// A node consolidation looked at and left, with Karpenter's `Unconsolidatable` message.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotConsolidated {
    pub node: String,
    pub reason: String,
}
