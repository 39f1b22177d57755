//! The Cluster Autoscaler's scale-up over several node groups (`nodes.nodeGroups`): one loop per
//! `RunOnce`, each with the options the groups offer, how the expander chain scored them, and the
//! group it chose (or the tie `random` would break).

use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroupsReport {
    /// The expander chain, in order (`--expander`).
    pub expander: Vec<String>,
    /// Pods Pending before the first loop.
    pub pending_pods: i64,
    pub loops: Vec<ScaleUpLoop>,
    /// Nodes added over all loops.
    pub nodes_added: i64,
    /// What the added nodes cost per hour; null when a chosen group has no price.
    pub added_cost_per_hour: Option<f64>,
    /// Pods still Pending after the last loop.
    pub unschedulable_pods: i64,
    /// Why the plan ends: `allScheduled`, `tie` (random decides), `noExpansionOptions`,
    /// `expanderFilteredOutAll`, `maxNodesTotalReached` or `loopLimit`.
    pub outcome: String,
    /// Every group, its size now and after the plan.
    pub groups: Vec<NodeGroupSize>,
    /// What the inputs left the expanders to assume (missing prices, unmatched priorities).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroupSize {
    pub name: String,
    pub min_size: i64,
    pub max_size: i64,
    pub current_size: i64,
    pub new_size: i64,
    pub price_per_hour: Option<f64>,
}

/// One scale-up loop of the Cluster Autoscaler.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScaleUpLoop {
    /// 1 for the first loop.
    #[serde(rename = "loop")]
    pub number: i64,
    /// Pods Pending when the loop starts.
    pub pending_pods: i64,
    /// Of those, pods that fit the free room of nodes added by earlier loops.
    pub fit_upcoming_nodes: i64,
    /// Groups left out before the estimate, and why (`max size reached`, a taint, ...).
    pub skipped: Vec<SkippedGroup>,
    /// One option per group that could take pods, in the groups' order.
    pub options: Vec<ExpansionOption>,
    /// The chain's passes, each with the groups it kept.
    pub steps: Vec<ExpanderStep>,
    /// The group chosen; null on a tie or when no option is left.
    pub chosen: Option<String>,
    /// The groups `random` would pick among; empty unless the chain ends on a tie.
    pub tied: Vec<String>,
    /// Nodes added to the chosen group (after `--max-nodes-total` and the group's maximum).
    pub nodes_added: i64,
    /// Pods those nodes take.
    pub pods_placed: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedGroup {
    pub group: String,
    pub reason: String,
}

/// `expander.Option`: what scaling one group would do for the Pending pods.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExpansionOption {
    pub group: String,
    /// Nodes the binpacking estimator opens.
    pub node_count: i64,
    /// Pending pods those nodes take.
    pub pods: i64,
    /// Each expander's score of this option, by expander name (least-waste: wasted cpu + memory
    /// fraction; price: the option's score, lower wins; priority: the highest matched level;
    /// most-pods: pods; least-nodes: nodes); an expander that did not look at it is absent.
    pub scores: BTreeMap<String, f64>,
    /// The estimator stopped at a limit (`maxNodesPerScaleUp`, `nodeGroupMax`,
    /// `maxNodesTotal`) with pods left; null otherwise.
    pub limited_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExpanderStep {
    pub expander: String,
    /// The groups it kept, in order.
    pub kept: Vec<String>,
}
