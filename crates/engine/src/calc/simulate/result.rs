//! What a simulation produced: the only contract between the simulation and its renderers
//! (`render::timeline`, `render::chart`). Times are whole seconds from the start of the load
//! curve; JSON keys are camelCase like the rest of hpacalc's output.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

pub use super::actual::ActualComparison;
use crate::report::ToleranceBand;
use crate::scenario::simulation::{LoadColumn, Replay, ScenarioLabel};

/// Changes when a key changes meaning or disappears (new keys may be added).
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    pub schema_version: u32,
    /// `namespace/name` of the HPA.
    pub hpa: String,
    /// `Kind/name` of its scale target.
    pub target: String,
    pub kube_version: String,
    /// The built-in scenario, when one was run.
    pub scenario: Option<ScenarioLabel>,
    /// Where a replayed load came from (a Prometheus answer); null for a load CSV.
    pub replay: Option<Replay>,
    pub settings: Settings,
    /// The first metric of the HPA: the one `utilization` reports.
    pub metric: MetricInfo,
    /// The load columns, in file order; `load` in each row is the first one.
    pub load_columns: Vec<LoadColumn>,
    /// The first load column as a step function: its value from each time on.
    pub load_curve: Vec<LoadPoint>,
    /// One row per HPA sync.
    pub timeline: Vec<SyncRow>,
    /// What happened between the syncs (node requests, pods Ready, removals), in time order.
    pub events: Vec<Event>,
    /// With `--nodepool`: every NodeClaim Karpenter launched, in launch order (those of the
    /// start pods first); empty otherwise.
    pub node_claims: Vec<NodeClaimRun>,
    pub summary: Summary,
}

/// One NodeClaim of a run with Karpenter.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeClaimRun {
    /// The node's name: `<nodePool>-<n>`.
    pub name: String,
    pub node_pool: String,
    /// The instance type launched: the cheapest offering of the types that fit its pods.
    pub instance_type: String,
    /// `on-demand`, `spot` or `reserved`.
    pub capacity_type: String,
    pub zone: String,
    /// Dollars per hour (spot priced as on-demand with the built-in catalog: an estimate).
    pub price_per_hour: f64,
    /// Seconds from the start; null for the NodeClaims of the start pods (there before the run).
    pub launched_at: Option<i64>,
    /// When the node turned Ready (launch plus the node startup time); null for the start pods'.
    pub ready_at: Option<i64>,
    /// When consolidation deleted it (seconds from the start; its pods were evicted then); null
    /// for a NodeClaim still there at the end.
    pub deleted_at: Option<i64>,
}

/// The timing and limits the run used, in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub duration_seconds: i64,
    pub start_replicas: i32,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub sync_period_seconds: i64,
    pub pod_startup_seconds: i64,
    pub pod_termination_seconds: i64,
    pub metrics_window_seconds: i64,
    /// The scale-down stabilization window the controller applies (the flag on the legacy path,
    /// `behavior.scaleDown.stabilizationWindowSeconds` otherwise).
    pub scale_down_window_seconds: i64,
    /// `behavior.scaleUp.stabilizationWindowSeconds` (0 on the legacy path).
    pub scale_up_window_seconds: i64,
    /// The pod's effective request, quantities per resource.
    pub pod_request: BTreeMap<String, String>,
    /// Null without node information.
    pub nodes: Option<NodeSettings>,
    /// `--pod-limit` (or the target's pod template beside the HPA): each pod's limits,
    /// quantities per resource (empty without).
    pub pod_limit: BTreeMap<String, String>,
    /// `--rollout`; null without.
    pub rollout: Option<RolloutSettings>,
    /// `--startup-cpu`; null without.
    pub startup_cpu: Option<StartupCpuSettings>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutSettings {
    pub at_seconds: i64,
    /// As given: a count or a percent (`25%`).
    pub max_surge: String,
    pub max_unavailable: String,
    pub min_ready_seconds: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartupCpuSettings {
    /// The multiple of its share of the load a new pod uses.
    pub factor: f64,
    /// For this long after its containers start.
    pub seconds: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeSettings {
    pub pods_per_node: i64,
    pub existing_nodes: i64,
    pub node_group_min: i64,
    pub node_group_max: Option<i64>,
    pub max_nodes_total: Option<i64>,
    pub node_startup_seconds: i64,
    pub ca_scan_interval_seconds: i64,
    pub scale_down_utilization_threshold: f64,
    pub scale_down_unneeded_time_seconds: i64,
    pub scale_down_delay_after_add_seconds: i64,
    /// With `--nodepool`: Karpenter's settings (the Cluster Autoscaler's fields above are then
    /// not used); null otherwise.
    pub karpenter: Option<KarpenterSettings>,
}

/// Karpenter's part of a run's settings.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KarpenterSettings {
    /// The NodePools, by name, heaviest first as given.
    pub node_pools: Vec<String>,
    /// Where the instance types came from.
    pub catalog: String,
    /// `BATCH_IDLE_DURATION`: a batch window closes after this long without a new Pending pod.
    pub batch_idle_seconds: i64,
    /// `BATCH_MAX_DURATION`: a batch window closes this long after it opened.
    pub batch_max_seconds: i64,
    /// Consolidation (removing or replacing NodeClaims when the load drops) is simulated: the
    /// disruption controller polls every `disruptionPollSeconds`.
    pub consolidation: bool,
    /// The disruption controller's `pollingPeriod` (10 s).
    pub disruption_poll_seconds: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricInfo {
    /// The controller's name for it (as in conditions and events).
    pub description: String,
    /// The target as Kubernetes prints it: `50%`, `100m`, `2k`.
    pub target: String,
    /// `utilization` is a percent of request (a Utilization target).
    pub percent: bool,
    /// The target as a number in `utilization`'s unit (percent, or the metric's value); null
    /// when the HPA has no metric.
    pub target_value: Option<f64>,
    /// The controller's tolerance as ratios of current to target: between `lower` and `upper`
    /// the first metric keeps the replica count.
    pub tolerance: ToleranceBand,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadPoint {
    pub time: i64,
    pub load: f64,
}

/// One HPA sync: the cluster as the sync saw it, and what the sync decided.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncRow {
    /// Seconds from the start.
    pub time: i64,
    /// The first load column's total demand, in the metric's unit (cores for cpu).
    pub load: f64,
    /// Every load column by name.
    pub loads: BTreeMap<String, f64>,
    /// Pods with Ready=True.
    pub ready_replicas: i64,
    /// Pods bound to a node and not yet Ready.
    pub starting_pods: i64,
    /// Pods no node has room for.
    pub pending_pods: i64,
    /// The target's `spec.replicas` the sync read (its currentReplicas).
    pub replicas: i32,
    /// The first metric's current value: percent of request for a Utilization target, else the
    /// metric's current (average) value; null when the controller could not compute it.
    pub utilization: Option<f64>,
    /// The metrics' proposal before stabilization and rate limits; null when they failed.
    pub recommendation: Option<i32>,
    /// After the stabilization window(s); null when the controller did not normalize.
    pub stabilized: Option<i32>,
    pub desired_replicas: i32,
    /// The controller's reason when something held or limited the change (`ScaleDownStabilized`,
    /// `ScaleUpLimit`, `TooManyReplicas`, `FailedGetResourceMetric`, ...); null otherwise.
    pub reason: Option<String>,
    /// Ready nodes; null without node information.
    pub nodes: Option<i64>,
    /// Nodes requested and not yet Ready; null without node information.
    pub nodes_booting: Option<i64>,
    /// The replicas the cluster really had at this sync (`--actual`); null without it.
    pub actual_replicas: Option<i32>,
    /// The first load column's demand the Ready pods could not serve, each capped at its
    /// `--pod-limit` (in `load`'s unit; all of it with no Ready pod); null without a limit for
    /// that column's resource.
    pub unserved_load: Option<f64>,
    /// During a rollout with more pods than the target's replicas (its surge pods, Ready or
    /// not): the `RolloutSurge` diagnostic's sentence when this sync multiplied its ratio by more
    /// ready pods than replicas, else how many pods there are and in which state; null
    /// otherwise.
    pub rollout_surge: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub time: i64,
    /// `hpa`, `keda`, `deployment`, `scheduler`, `kubelet`, `clusterAutoscaler` or `karpenter`.
    pub source: &'static str,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub syncs: usize,
    /// Syncs that raised or lowered the replica count.
    pub scale_ups: usize,
    pub scale_downs: usize,
    /// The highest desired replica count.
    pub peak_replicas: i32,
    pub final_replicas: i32,
    /// Seconds from the last load change to the first sync whose first-metric ratio lies in the
    /// tolerance band; null when that never happens.
    pub time_to_target_seconds: Option<i64>,
    /// The time of the last load change (0 when the load never changes).
    pub last_load_change_seconds: i64,
    /// Pod-seconds of pods bound to a node (starting, ready or terminating): what they cost.
    pub pod_seconds: i64,
    pub ready_pod_seconds: i64,
    /// Pod-seconds spent Pending with no node to run on.
    pub pending_pod_seconds: i64,
    pub max_pending_pods: i64,
    /// Node-seconds from request to removal; null without node information.
    pub node_seconds: Option<i64>,
    pub peak_nodes: Option<i64>,
    pub final_nodes: Option<i64>,
    /// With `--nodepool`: what the NodeClaims cost over the run, in dollars (each one's price per
    /// hour over the time it existed); null otherwise.
    pub node_cost: Option<f64>,
    /// The most demand left unserved at a sync (`unservedLoad`); null without a limit.
    pub peak_unserved_load: Option<f64>,
    /// Syncs that left some demand unserved; null without a limit.
    pub unserved_syncs: Option<usize>,
    /// Syncs marked `rolloutSurge` (surge pods during a rollout).
    pub rollout_surge_syncs: usize,
    /// The simulation against the replicas the cluster really had (`--actual`); null without it.
    pub actual: Option<ActualComparison>,
}
