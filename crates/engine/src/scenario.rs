//! The validated inputs of one HPA sync: what the controller would see.
//!
//! Parsers (`input::*`) build a `Scenario`; the calculation (`calc`) trusts it. Every quantity is
//! already an integer in milli-units (`Quantity.MilliValue()`), every time an instant in
//! milliseconds since the Unix epoch, every default applied.

pub mod fleet;
pub mod karpenter;
pub mod keda;
pub mod node_groups;
pub mod simulation;

use std::collections::BTreeMap;

use crate::time::{Duration, Timestamp};

/// The HPA spec after API defaulting and validation (`autoscaling/v2`).
#[derive(Debug, Clone, PartialEq)]
pub struct HpaSpec {
    pub name: String,
    pub namespace: String,
    pub target: ObjectReference,
    /// Always set: the controller reads a nil `minReplicas` as 1.
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub metrics: Vec<MetricSpec>,
    /// `None` selects the legacy normalization path, exactly as a nil `spec.behavior` does.
    pub behavior: Option<Behavior>,
}

/// `scaleTargetRef` or an Object metric's `describedObject`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ObjectReference {
    pub api_version: String,
    pub kind: String,
    pub name: String,
}

/// One entry of `spec.metrics`, in the manifest's order.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricSpec {
    /// `Resource` (container `None`) or `ContainerResource` (container `Some`).
    Resource {
        resource: String,
        container: Option<String>,
        target: MetricTarget,
    },
    Pods {
        metric: MetricIdentifier,
        target: MetricTarget,
    },
    Object {
        described_object: ObjectReference,
        metric: MetricIdentifier,
        target: MetricTarget,
    },
    External {
        metric: MetricIdentifier,
        target: MetricTarget,
    },
}

impl MetricSpec {
    pub fn type_name(&self) -> &'static str {
        match self {
            MetricSpec::Resource {
                container: None, ..
            } => "Resource",
            MetricSpec::Resource { .. } => "ContainerResource",
            MetricSpec::Pods { .. } => "Pods",
            MetricSpec::Object { .. } => "Object",
            MetricSpec::External { .. } => "External",
        }
    }

    /// The resource name or the custom metric name.
    pub fn metric_name(&self) -> &str {
        match self {
            MetricSpec::Resource { resource, .. } => resource,
            MetricSpec::Pods { metric, .. }
            | MetricSpec::Object { metric, .. }
            | MetricSpec::External { metric, .. } => &metric.name,
        }
    }

    pub fn target(&self) -> &MetricTarget {
        match self {
            MetricSpec::Resource { target, .. }
            | MetricSpec::Pods { target, .. }
            | MetricSpec::Object { target, .. }
            | MetricSpec::External { target, .. } => target,
        }
    }

    pub fn is_object_or_external(&self) -> bool {
        matches!(
            self,
            MetricSpec::Object { .. } | MetricSpec::External { .. }
        )
    }
}

/// `metric: {name, selector}`. The selector is kept as the text the controller would print.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetricIdentifier {
    pub name: String,
    /// `matchLabels` of the metric selector (used only in names and messages).
    pub selector: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetType {
    Utilization,
    AverageValue,
    Value,
}

/// `MetricTarget`, with quantities as milli-units. Kept field-for-field like the API type because
/// the controller branches on which fields are set, not only on `type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricTarget {
    pub target_type: TargetType,
    pub average_utilization: Option<i32>,
    pub average_value_milli: Option<i64>,
    pub value_milli: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Behavior {
    pub scale_up: ScalingRules,
    pub scale_down: ScalingRules,
}

impl Behavior {
    // Port of SetDefaults_HorizontalPodAutoscalerBehavior with GenerateHPAScaleUpRules and
    // GenerateHPAScaleDownRules (pkg/apis/autoscaling/v2/defaults.go) for a nil behavior: what the
    // API server stores when a change sets one field of it.
    pub fn api_defaults() -> Behavior {
        let policy = |policy_type, value| ScalingPolicy {
            policy_type,
            value,
            period_seconds: 15,
        };
        Behavior {
            scale_up: ScalingRules {
                stabilization_window_seconds: Some(0),
                select_policy: SelectPolicy::Max,
                policies: vec![
                    policy(PolicyType::Pods, 4),
                    policy(PolicyType::Percent, 100),
                ],
                tolerance: None,
            },
            scale_down: ScalingRules {
                stabilization_window_seconds: None,
                select_policy: SelectPolicy::Max,
                policies: vec![policy(PolicyType::Percent, 100)],
                tolerance: None,
            },
        }
    }
}

/// `HPAScalingRules` after API defaulting. The scale-down window may still be unset: the controller
/// fills it from `--horizontal-pod-autoscaler-downscale-stabilization` at each sync.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingRules {
    pub stabilization_window_seconds: Option<i32>,
    pub select_policy: SelectPolicy,
    pub policies: Vec<ScalingPolicy>,
    /// Per-direction tolerance (`behavior.*.tolerance`), already converted the way
    /// `Quantity.AsApproximateFloat64()` converts it.
    pub tolerance: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectPolicy {
    Max,
    Min,
    Disabled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyType {
    Pods,
    Percent,
}

impl PolicyType {
    /// The API's spelling (`Pods`, `Percent`).
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyType::Pods => "Pods",
            PolicyType::Percent => "Percent",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalingPolicy {
    pub policy_type: PolicyType,
    pub value: i32,
    pub period_seconds: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

/// The pod's `Ready` condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadyCondition {
    pub status: ConditionStatus,
    pub last_transition_time: Timestamp,
}

/// A pod as the controller's pod lister returns it: only the fields the controller reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Pod {
    pub name: String,
    pub phase: PodPhase,
    /// `metadata.deletionTimestamp != nil`.
    pub deleting: bool,
    pub start_time: Option<Timestamp>,
    pub ready: Option<ReadyCondition>,
    pub containers: Vec<Container>,
    /// Pod-level `spec.resources.requests` (used with the `PodLevelResources` gate).
    pub pod_requests: Option<Resources>,
    /// `spec.overhead` (set from the RuntimeClass): the pod-level path adds it.
    pub overhead: Option<Resources>,
    /// Where it runs and whether its containers do: causes of a missing sample, never read by
    /// the controller's arithmetic.
    pub placement: Placement,
}

/// What a pod capture says of a pod beyond the controller's inputs: a pod on a Windows node
/// (`spec.nodeSelector` `kubernetes.io/os: windows`), a container not running (its
/// `status.containerStatuses[].state.waiting.reason`, `CrashLoopBackOff`, or `terminated`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    pub windows: bool,
    /// The first container not running: its name and the reason kubectl shows.
    pub not_running: Option<(String, String)>,
    /// The controller owner when it is not the HPA's target (`ReplicaSet/worker-5f6d8b`): a pod
    /// of another workload that the target's selector matches.
    pub foreign_owner: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    pub kind: ContainerKind,
    pub requests: Resources,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    App,
    /// An init container with `restartPolicy: Always` (a sidecar).
    Sidecar,
    /// A plain init container: its requests are not part of the HPA's pod request.
    Init,
}

/// A small resource list: `(name, milli-units)`; pods have one to three entries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Resources(pub Vec<(String, i64)>);

impl Resources {
    pub fn get(&self, resource: &str) -> Option<i64> {
        self.0
            .iter()
            .find(|(name, _)| name == resource)
            .map(|&(_, v)| v)
    }
}

/// One `PodMetrics` item of the resource metrics API.
#[derive(Debug, Clone, PartialEq)]
pub struct PodMetrics {
    pub pod: String,
    pub timestamp: Timestamp,
    pub window: Duration,
    pub containers: Vec<ContainerMetrics>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerMetrics {
    pub name: String,
    pub usage: Resources,
}

/// One value of a `Pods` metric from the custom metrics API.
#[derive(Debug, Clone, PartialEq)]
pub struct PodMetricValue {
    pub pod: String,
    pub value_milli: i64,
    pub timestamp: Timestamp,
    pub window: Duration,
}

/// Everything the metrics APIs would answer. A name absent from a map means the API returned
/// nothing for it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricValues {
    /// `metrics.k8s.io` PodMetrics, shared between copies until one changes them.
    pub resource: crate::shared::Shared<Vec<PodMetrics>>,
    /// `custom.metrics.k8s.io`, per Pods metric, keyed by its position in `HpaSpec.metrics`:
    /// one value per pod. Keyed by the spec entry, not its name: `computeReplicasForMetrics`
    /// asks `GetRawMetric` once per entry with that entry's selector, so two entries of one
    /// name each have their own values.
    pub pods: BTreeMap<usize, Vec<PodMetricValue>>,
    /// `custom.metrics.k8s.io`, per Object metric, keyed by its position in `HpaSpec.metrics`:
    /// the object's value. Keyed by the spec entry, not its name: `computeReplicasForMetrics`
    /// asks the API once per entry, so two entries of one name each have their own value.
    pub object: BTreeMap<usize, i64>,
    /// `external.metrics.k8s.io`, per External metric, keyed by its position in
    /// `HpaSpec.metrics`: every value (the controller sums them).
    pub external: BTreeMap<usize, Vec<i64>>,
    /// `metrics.k8s.io` answered an error instead of a list (not installed, unavailable): the
    /// client's error text, e.g. `the server is currently unable to handle the request (get
    /// pods.metrics.k8s.io)`.
    pub resource_api_error: Option<String>,
    /// `custom.metrics.k8s.io` answered an error (not installed, unavailable): its metrics
    /// without a value fail with it, e.g. `the server is currently unable to handle the request
    /// (get pods.custom.metrics.k8s.io *)`.
    pub custom_api_error: Option<String>,
    /// `external.metrics.k8s.io` answered an error: its metrics without a value fail with it.
    pub external_api_error: Option<String>,
    /// `validateAndParseSelector` failed (the scale's selector is ambiguous or invalid): no
    /// metric is read at all.
    pub selector_error: Option<SelectorError>,
}

/// Why the controller could not use the scale's selector: the ScalingActive reason it sets
/// (`AmbiguousSelector`, `InvalidSelector`) and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError {
    pub reason: String,
    pub message: String,
}

/// kube-controller-manager settings and the Kubernetes version whose rules apply.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerConfig {
    pub tolerance: f64,
    pub cpu_initialization_period: Duration,
    pub delay_of_initial_readiness_status: Duration,
    pub downscale_stabilization_window: Duration,
    pub sync_period: Duration,
    /// The Kubernetes minor version whose controller rules apply (1.`kube_minor`).
    pub kube_minor: u32,
    /// `scaleUpLimitFactor` and `scaleUpLimitMinimum` of the legacy path (2 and 4 in production).
    pub scale_up_limit_factor: f64,
    pub scale_up_limit_minimum: f64,
    pub features: crate::version::FeatureGates,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            tolerance: 0.1,
            cpu_initialization_period: Duration::from_secs(300),
            delay_of_initial_readiness_status: Duration::from_secs(30),
            downscale_stabilization_window: Duration::from_secs(300),
            sync_period: Duration::from_secs(15),
            kube_minor: crate::version::NEWEST,
            scale_up_limit_factor: 2.0,
            scale_up_limit_minimum: 4.0,
            features: crate::version::default_gates(crate::version::NEWEST),
        }
    }
}

/// A recommendation the controller remembers (`timestampedRecommendation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recommendation {
    pub replicas: i32,
    pub timestamp: Timestamp,
}

/// A scale event the controller remembers (`timestampedScaleEvent`); the change is a magnitude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaleEvent {
    pub replica_change: i32,
    pub timestamp: Timestamp,
    pub outdated: bool,
}

/// The controller's in-memory state for one HPA: not in the API, lost on restart.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ControllerMemory {
    pub recommendations: Vec<Recommendation>,
    pub scale_up_events: Vec<ScaleEvent>,
    pub scale_down_events: Vec<ScaleEvent>,
}

/// Where a number came from, said in the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Flag,
    Status,
    Samples,
    /// The scale target's capture (`--target`, or a Deployment inside the pods file).
    Target,
    Default,
    /// The simulated target's spec.replicas at this sync (`hpacalc simulate`).
    Simulation,
}

/// The node group the workload runs on, for the Cluster Autoscaler's view (`--node-*` flags or
/// `--nodes`).
/// A node's capacity for pods: allocatable resources and the pod slots (`allocatable.pods`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Capacity {
    pub resources: Resources,
    pub pods: i64,
}

/// One node of the group, as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingNode {
    pub name: String,
    pub allocatable: Capacity,
    /// What the pods on it request (DaemonSets included), and how many pods run there.
    pub requested: Capacity,
    /// Pods of this HPA's target on the node.
    pub workload_pods: i64,
    /// Ready and not cordoned: the scheduler may place pods here.
    pub schedulable: bool,
}

/// Where the existing nodes come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Existing {
    /// `n` nodes like the template, or just enough for the current pods when `None`.
    Template(Option<i64>),
    /// Real nodes from `kubectl get nodes` and the cluster's pods, in a stable order.
    Nodes(Vec<ExistingNode>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct NodeInput {
    /// The node group's template node: allocatable of one node.
    pub template: Capacity,
    /// What the DaemonSets take on every node (requests and pod slots).
    pub daemonsets: Capacity,
    pub existing: Existing,
    /// The effective request of one of the workload's pods.
    pub pod_request: Resources,
    /// Where the pod request came from, said in the output.
    pub pod_request_source: String,
    pub node_group_max: Option<i64>,
    pub max_nodes_total: Option<i64>,
    pub scale_down_utilization_threshold: f64,
    pub scale_down_unneeded_time: Duration,
}

/// The HPA's `status` as the manifest carries it: what the controller computed at its last sync.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObservedStatus {
    pub current_replicas: Option<i32>,
    pub desired_replicas: Option<i32>,
    /// `status.currentMetrics`, in order.
    pub current_metrics: Vec<ObservedMetric>,
    /// `status.conditions`, in order.
    pub conditions: Vec<crate::report::Condition>,
}

/// One entry of `status.currentMetrics`, quantities in milli-units.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObservedMetric {
    /// `Resource`, `ContainerResource`, `Pods`, `Object` or `External`.
    pub metric_type: String,
    /// Resource or metric name.
    pub name: String,
    pub value_milli: Option<i64>,
    pub average_value_milli: Option<i64>,
    pub average_utilization: Option<i32>,
}

impl ObservedStatus {
    /// The status entry of `specs[index]`: the entry with the same type and name, the n-th one
    /// when n earlier metrics share them (the controller writes one status per metric, in order).
    pub fn metric_for(&self, specs: &[MetricSpec], index: usize) -> Option<&ObservedMetric> {
        let spec = specs.get(index)?;
        let same = |s: &MetricSpec| {
            s.type_name() == spec.type_name() && s.metric_name() == spec.metric_name()
        };
        let nth = specs.iter().take(index).filter(|s| same(s)).count();
        self.current_metrics
            .iter()
            .filter(|m| m.metric_type == spec.type_name() && m.name == spec.metric_name())
            .nth(nth)
    }
}

/// Everything one sync needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub hpa: HpaSpec,
    /// `scale.spec.replicas`.
    pub current_replicas: i32,
    pub current_replicas_source: Source,
    /// `scale.status.replicas` (used only by Object/External AverageValue targets).
    pub status_replicas: i32,
    /// The scale read failed: the error it answered (`deployments/scale.apps "web" not found`).
    /// The sync stops there (AbleToScale False, FailedGetScale) and `current_replicas` is the
    /// HPA's `status.currentReplicas`, which the controller leaves as it is.
    pub scale_error: Option<String>,
    /// The HPA status has the condition `ScaledToZero=True`.
    pub scaled_to_zero: bool,
    /// The HPA's `status.conditions` before this sync, in order.
    pub status_conditions: Vec<crate::report::Condition>,
    /// Shared between copies of the scenario until one changes them (`Shared`).
    pub pods: crate::shared::Shared<Vec<Pod>>,
    pub metrics: MetricValues,
    pub config: ControllerConfig,
    /// The controller's memory from `--history`; `None` assumes steady load: every sync in the
    /// window recommended what this one recommends and no scale event happened.
    pub memory: Option<ControllerMemory>,
    pub now: Timestamp,
    /// `now` is the clock because the inputs carry no capture time: the earliest instant they
    /// allow (the newest of their times), where the decision is checked too.
    pub earliest_now: Option<Timestamp>,
    /// The `spec.metrics` positions of Resource targets whose resource the input did not name
    /// (`kubectl get hpa` before 1.30 prints `46%/50%`): each is cpu or memory, an unknown the
    /// inference tries both ways (`calc::assignment`).
    pub unnamed_resources: Vec<usize>,
    /// What the input stage assumed or substituted, said in the output's assumptions.
    pub input_notes: Vec<String>,
    /// What the input stage warned about (unknown keys, stray pods, ...): printed on stderr and
    /// carried into the report's `warnings`.
    pub warnings: Vec<String>,
    /// Named causes the input stage found (events the controller reported, a pasted table's
    /// `<unknown>`, a KEDA-managed HPA): merged into the report's `diagnostics`.
    pub input_diagnostics: Vec<crate::report::Diagnostic>,
    /// The node group, when node information was given.
    pub nodes: Option<NodeInput>,
    /// Several Cluster Autoscaler node groups (`--node-groups`), instead of `nodes`.
    pub node_groups: Option<node_groups::NodeGroupsInput>,
    /// Karpenter's NodePools and catalog (`--nodepool`), instead of `nodes`.
    pub karpenter: Option<karpenter::KarpenterInput>,
    /// The result is approximated from the HPA's status alone (no pods were given).
    pub approximation: bool,
    /// What the manifest's status says the controller computed at its last sync, to compare.
    pub observed_status: Option<ObservedStatus>,
    /// The HPA was built from a KEDA ScaledObject: what KEDA's own scale loop decides first.
    pub keda: Option<keda::KedaInput>,
    /// Which input form each fact came from, for the report's `sources`.
    pub sources: Vec<crate::report::FactSource>,
    /// The recommendations of `memory` that the events give only as bounds.
    pub bounded: Vec<BoundedRecommendation>,
}

/// A recommendation an event gives only through its rescale's new size: the window and the rate
/// limit come after it, so which recommendations set that size is found by running the sync
/// forward (`calc::infer::recommendation_ranges`). `memory` holds it at the new size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundedRecommendation {
    pub timestamp: Timestamp,
    pub new_size: i32,
}
