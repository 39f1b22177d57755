//! The result of one sync: the only contract between `calc` and `render`.
//!
//! Every renderer is a function of a `Report`; none of them computes. JSON keys are camelCase, as
//! in the Kubernetes API; `SCHEMA_VERSION` changes whenever a key changes meaning or disappears.

pub mod fleet;
pub mod karpenter;
pub mod node_groups;
pub mod what_if;

use schemars::JsonSchema;
use serde::Serialize;

pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub schema_version: u32,
    /// `namespace/name` of the HPA.
    pub hpa: String,
    /// `Kind/name` of the scale target.
    pub target: String,
    /// The Kubernetes release whose controller rules were applied, e.g. `1.37`.
    pub kube_version: String,
    /// The evaluation time (RFC 3339).
    pub now: String,
    pub current_replicas: i32,
    /// `flag`, `status` or `samples`.
    pub current_replicas_source: String,
    pub desired_replicas: i32,
    /// The other counts the next sync may set, when what the inputs hide (pods unready or
    /// without a sample behind the status's averages, recommendations the events only bound)
    /// leaves more than one answer: each with what decides it. `desiredReplicas` is the one
    /// consistent with the HPA's status; empty when the inputs give one answer.
    pub other_outcomes: Vec<Outcome>,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub metrics: Vec<MetricReport>,
    pub decision: Decision,
    pub conditions: Vec<Condition>,
    pub steps: Vec<Step>,
    pub assumptions: Vec<String>,
    /// The Cluster Autoscaler's view; null when no node information was given.
    pub nodes: Option<NodesReport>,
    /// True when the result comes from the HPA's status alone (no pods given): an approximation.
    pub approximation: bool,
    /// The result against the manifest's `status`; null when the manifest has none.
    pub status_comparison: Option<StatusComparison>,
    /// Named causes of the decision, most severe first (see `calc::diagnose`).
    pub diagnostics: Vec<Diagnostic>,
    /// What the inputs' readers warned about (also printed on stderr).
    pub warnings: Vec<String>,
    /// Which input form each fact came from: a pasted value, a file, a flag, or computed.
    pub sources: Vec<FactSource>,
}

/// One count the next sync may set (`otherOutcomes[]`), found by running the controller forward
/// over what the inputs hide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub replicas: i32,
    /// What decides it, e.g. `once every pod is ready and reporting`.
    pub when: String,
    /// The input that would settle it, e.g. `pass --pods and --metrics`.
    pub settle: String,
}

/// Where one fact of the report came from (`sources[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactSource {
    /// `hpa`, `status`, `currentReplicas`, `pods`, `resourceMetrics`, `customMetrics`,
    /// `externalMetrics`, `history`, `now`.
    pub fact: String,
    /// The input form (`manifest autoscaling/v2`, `kubectl describe hpa`, `kubectl get hpa`,
    /// `kubectl get pods`, `samples CSV`, ...), `live` (the API server answered it), `flag`,
    /// `computed` or `assumed`.
    pub form: String,
    /// The file (or flag) it was read from; null when computed, assumed or live.
    pub file: Option<String>,
    /// `live`: the kubeconfig context it was read through; null otherwise.
    pub context: Option<String>,
    /// `live`: the API server's URL; null otherwise.
    pub server: Option<String>,
}

impl FactSource {
    pub fn new(fact: &str, form: &str, file: Option<&str>) -> FactSource {
        FactSource {
            fact: fact.to_string(),
            form: form.to_string(),
            file: file.map(str::to_string),
            context: None,
            server: None,
        }
    }

    /// A fact the API server answered, in live mode: no file, the context and the server.
    pub fn live(fact: &str, context: &str, server: &str) -> FactSource {
        FactSource {
            context: Some(context.to_string()),
            server: Some(server.to_string()),
            ..FactSource::new(fact, "live", None)
        }
    }
}

/// A named cause: why the controller does (or does not do) what it does, and what to change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Stable code, documented in docs/diagnostics.md (`WithinTolerance`, `StabilizationHold`, ...).
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// What a person can do about it; empty when nothing needs doing.
    pub fix: String,
}

impl Diagnostic {
    pub fn new(
        code: &str,
        severity: Severity,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code: code.to_string(),
            severity,
            message: message.into(),
            fix: fix.into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// What the controller wrote at its last sync against what hpacalc computes now.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusComparison {
    /// Every compared value agrees.
    pub matches: bool,
    /// `status.desiredReplicas` against `desiredReplicas`; null when the status has none.
    pub desired_replicas: Option<ReplicaComparison>,
    /// `status.currentMetrics` against each metric's current values (empty for an approximation,
    /// which reproduces them by construction).
    pub metrics: Vec<MetricComparison>,
    /// When something differs: the usual reasons, most likely first.
    pub likely_causes: Vec<String>,
    /// How `status.desiredReplicas` (the last sync's answer) reconciles with this computation:
    /// `reproduced` (the same count), `explained` (it answered another count, other values or a
    /// failed sync, or a hidden memory held it) or `contradicted` (the same count and values gave
    /// another answer); null when the status has no desiredReplicas.
    pub reconciled: Option<String>,
    /// The sentence that says how, naming the facts.
    pub explanation: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaComparison {
    pub status: i32,
    pub computed: i32,
    pub matches: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricComparison {
    #[serde(rename = "type")]
    pub metric_type: String,
    pub name: String,
    /// `averageUtilization`, `averageValue` or `value`.
    pub field: String,
    /// As the status has it (`72%`, `361m`).
    pub status: String,
    /// As computed; null when the metric could not be computed.
    pub computed: Option<String>,
    pub matches: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricReport {
    /// `Resource`, `ContainerResource`, `Pods`, `Object` or `External`.
    #[serde(rename = "type")]
    pub metric_type: String,
    /// The resource or metric name (`cpu`, `requests_per_second`).
    pub name: String,
    /// The name the controller uses in conditions and events.
    pub description: String,
    pub container: Option<String>,
    pub target: TargetReport,
    pub current_utilization: Option<i32>,
    pub current_average_value: Option<String>,
    pub current_value: Option<String>,
    /// First-pass usage ratio (current / target).
    pub ratio: Option<f64>,
    pub tolerance: ToleranceBand,
    pub ready_pods: usize,
    pub unready_pods: usize,
    pub missing_pods: usize,
    pub ignored_pods: usize,
    /// Each pod's class, in input order (empty for Object/External metrics).
    pub pods: Vec<PodClass>,
    /// Sum of the usage that entered the first pass (milli-units).
    pub usage_total_milli: Option<i64>,
    /// Sum of the requests that entered the first pass (milli-units, Utilization only).
    pub request_total_milli: Option<i64>,
    pub recount: Option<Recount>,
    /// `null` when the metric is invalid.
    pub proposed_replicas: Option<i32>,
    /// Which return statement of the controller produced the proposal.
    pub branch: Option<String>,
    /// The controller's error for an invalid metric.
    pub error: Option<String>,
    /// The condition reason the controller would use for that error (`FailedGetResourceMetric`).
    pub error_reason: Option<String>,
    /// The values of this metric that keep the current count; null when the metric is invalid,
    /// when the metrics were not consulted, or when no value of this metric alone keeps it.
    pub hold_band: Option<HoldBand>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TargetReport {
    #[serde(rename = "type")]
    pub target_type: String,
    pub average_utilization: Option<i32>,
    pub average_value: Option<String>,
    pub value: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToleranceBand {
    /// `1 - scaleDown tolerance`.
    pub lower: f64,
    /// `1 + scaleUp tolerance`.
    pub upper: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodClass {
    pub name: String,
    /// `ready`, `unready`, `missing` or `ignored`.
    pub class: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recount {
    /// The value each missing pod was counted at (milli-units), or null when they were not added.
    pub missing_pods_value_milli: Option<i64>,
    /// Whether unready pods were counted at zero (only on a scale-up).
    pub unready_pods_at_zero: bool,
    /// `len(metrics)` after the substitution: the count the ratio is multiplied by.
    pub metrics_count: usize,
    pub new_ratio: f64,
    /// For Utilization targets: the recomputed utilization (integer percent).
    pub new_utilization: Option<i32>,
}

/// The values of one metric that keep the current count, everything else held fixed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HoldBand {
    /// `percent` (Utilization targets: integer percents, as the controller truncates them) or
    /// `quantity` (the metric's canonical unit).
    pub unit: String,
    /// Lowest value that keeps the count (inclusive).
    pub low: BandValue,
    /// Highest value that keeps the count (inclusive); null when every higher value keeps it.
    pub high: Option<BandValue>,
    /// The first value below `low` and the count the sync ends with there; null when nothing
    /// lower changes the count (`lowHeldBy` says why).
    pub below: Option<BandEdge>,
    /// The first value above `high` and the count there; null when nothing higher changes it.
    pub above: Option<BandEdge>,
    /// `minReplicas`, `maxReplicas`, `stabilizationWindow`, `rateLimit`, `otherMetric`,
    /// `invalidMetric` or `recount`: what keeps the count at every lower value; else null.
    pub low_held_by: Option<String>,
    /// The same for every higher value.
    pub high_held_by: Option<String>,
    /// When `low` is read from usage totals on both sides of the edge (an integer percent or
    /// average cannot say where the count flips): the lowest usage total that keeps the count, in
    /// the metric's unit (the sum over the pods with samples, or the metric's total); else null.
    pub low_total: Option<String>,
    /// The same for `high`: the highest usage total that keeps the count.
    pub high_total: Option<String>,
}

/// A band value: an integer percent (a JSON number) or a quantity (a string).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BandValue {
    Percent(i64),
    Quantity(String),
}

impl std::fmt::Display for BandValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BandValue::Percent(p) => write!(f, "{p}%"),
            BandValue::Quantity(q) => f.write_str(q),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BandEdge {
    pub value: BandValue,
    pub replicas: i32,
    /// The first usage total past the edge, when `value` is also read from totals that keep the
    /// count (then `value` equals `low` or `high`); else null.
    pub total: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The largest valid metric proposal, before normalization; null when metrics were not used.
    pub metric_proposal: Option<i32>,
    /// The controller's name of the metric that gave it.
    pub metric_name: Option<String>,
    /// The rescale reason the controller would log (`cpu resource utilization ... above target`).
    pub rescale_reason: Option<String>,
    /// After the stabilization window(s).
    pub stabilized_replicas: Option<i32>,
    /// After the rate limits and min/max clamping.
    pub limited_replicas: Option<i32>,
    /// `scaleUp`, `scaleDown` or `none`.
    pub change: String,
    /// One sentence: what happens and why.
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub condition_type: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    /// RFC 3339: the evaluation time when the status changed at this sync, else the time the
    /// manifest's status gave; null when neither is known.
    pub last_transition_time: Option<String>,
}

/// One line of the trace, in the controller's order.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// `inputs`, `metric`, `combine`, `stabilize`, `limit`, `conditions` or `decision`.
    pub phase: String,
    pub title: String,
    pub detail: String,
    /// The numbers the detail writes out, as fields (camelCase keys; empty when none).
    pub values: std::collections::BTreeMap<String, serde_json::Value>,
}

/// What the decision means in nodes.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodesReport {
    /// The effective request of one pod, per resource (quantities).
    pub pod_request: std::collections::BTreeMap<String, String>,
    /// Where the pod request came from.
    pub pod_request_source: String,
    /// Pods that fit on a fresh node of the group after its DaemonSets.
    pub pods_per_node: i64,
    /// The resource that limits `podsPerNode` (`cpu`, `memory`, `pods`, ...).
    pub limiting_resource: String,
    /// Nodes now.
    pub existing: i64,
    /// Nodes once the Cluster Autoscaler has added what it will add.
    pub needed: i64,
    pub to_add: i64,
    /// Pods that fit in no existing node's free room.
    pub pending_pods: i64,
    /// Pending pods that no node the Cluster Autoscaler may add would take.
    pub unschedulable_pods: i64,
    /// `nodeGroupMax`, `maxNodesTotal` or `podTooLarge` when a limit keeps pods Pending.
    pub limited_by: Option<String>,
    pub scale_down_utilization_threshold: f64,
    pub scale_down_unneeded_time: String,
    /// After a scale-down: nodes at or under the threshold, removable once unneeded that long.
    pub underutilized_nodes: Vec<String>,
    pub nodes: Vec<NodeSummary>,
    /// With `--node-groups`: the Cluster Autoscaler's loops over several groups; null otherwise.
    pub node_groups: Option<node_groups::NodeGroupsReport>,
    /// With `--nodepool`: Karpenter's NodeClaims for the new pods; null otherwise.
    pub karpenter: Option<karpenter::KarpenterReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeSummary {
    pub name: String,
    /// Pods of this workload on the node after the decision.
    pub workload_pods: i64,
    /// All pods on the node, DaemonSets included.
    pub pods: i64,
    /// The larger of cpu and memory requests over allocatable.
    pub utilization: f64,
    /// Added by the Cluster Autoscaler for this decision.
    pub new: bool,
}
