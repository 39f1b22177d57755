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
