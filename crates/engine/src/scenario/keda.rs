//! What KEDA's own scale loop needs for one decision, validated: the ScaledObject's replica
//! settings, each trigger with its activation threshold and the value its scaler returned, the
//! fallback and the scaling-modifiers formula. Built by `input::keda`, read by `calc::keda`.

use crate::quantity::parse_milli;
use crate::time::{Duration, Timestamp};

/// `CompositeMetricName`: the External metric KEDA serves for a scaling-modifiers formula.
pub const COMPOSITE_METRIC: &str = "composite-metric";

/// One ScaledObject, as KEDA's scale loop (`RequestScale`) and metrics server see it.
#[derive(Debug, Clone, PartialEq)]
pub struct KedaInput {
    /// `metadata.name` of the ScaledObject.
    pub name: String,
    /// `spec.minReplicaCount` as written (KEDA reads a missing one as 0).
    pub min_replica_count: Option<i32>,
    pub max_replica_count: i32,
    pub idle_replica_count: Option<i32>,
    /// `cooldownPeriod`, default 300 s.
    pub cooldown: Duration,
    /// `initialCooldownPeriod`, default 0 s.
    pub initial_cooldown: Duration,
    /// `pollingInterval`, default 30 s (used only to say how often KEDA looks).
    pub polling_interval: Duration,
    /// `status.lastActiveTime` or `--last-active`; `None`: never recorded.
    pub last_active: Option<Timestamp>,
    /// `metadata.creationTimestamp`, when given.
    pub created: Option<Timestamp>,
    /// Neither `--last-active` nor `status.lastActiveTime` was given: assumed long ago.
    pub last_active_assumed: bool,
    pub triggers: Vec<Trigger>,
    pub fallback: Option<Fallback>,
    pub modifiers: Option<Modifiers>,
    pub paused: Option<Paused>,
    /// `autoscaling.keda.sh/paused-scale-in` is true.
    pub pause_scale_in: bool,
    /// `autoscaling.keda.sh/paused-scale-out` is true.
    pub pause_scale_out: bool,
    /// `autoscaling.keda.sh/force-activation` is true.
    pub force_activation: bool,
    /// The ScaledObject's `status`, when the input carries one: what KEDA itself last wrote.
    pub status: Option<KedaStatus>,
}

impl KedaInput {
    /// The same ScaledObject on another clock: its times (`lastActiveTime`, the creation) keep
    /// their distance from `from`, now counted from `to` (a simulation starts its clock at the
    /// capture).
    pub fn shift(&mut self, from: Timestamp, to: Timestamp) {
        let moved = |t: Timestamp| Timestamp(to.0.saturating_add(t.0.saturating_sub(from.0)));
        self.last_active = self.last_active.map(moved);
        self.created = self.created.map(moved);
    }

    /// Some trigger's value is not given: the status is the evidence it is inferred from.
    pub fn has_unknown(&self) -> bool {
        self.triggers
            .iter()
            .any(|t| matches!(t.value, TriggerValue::Unknown))
    }
}

/// The ScaledObject's `status` (kedacore/keda `apis/keda/v1alpha1/scaledobject_types.go`,
/// `ScaledObjectStatus`), as KEDA last wrote it: evidence of the state KEDA was in at its last
/// poll, which the inputs may not show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KedaStatus {
    /// `status.conditions` (`Ready`, `Active`, `Fallback`, `Paused`, `HPAActive`), in order.
    pub conditions: Vec<KedaCondition>,
    /// `status.health`, by metric name.
    pub health: std::collections::BTreeMap<String, Health>,
    /// `status.externalMetricNames`.
    pub external_metric_names: Vec<String>,
    /// `status.originalReplicaCount`: the target's count before KEDA first scaled it.
    pub original_replica_count: Option<i32>,
    /// `status.pausedReplicaCount`.
    pub paused_replica_count: Option<i32>,
}

impl KedaStatus {
    /// The condition of this type (`Active`, ...), if written.
    pub fn condition(&self, condition_type: &str) -> Option<&KedaCondition> {
        (self.conditions.iter()).find(|c| c.condition_type == condition_type)
    }

    /// The condition of this type, when its status is `True` (`Some(true)`) or `False`.
    pub fn is(&self, condition_type: &str) -> Option<bool> {
        match self.condition(condition_type)?.status.as_str() {
            "True" => Some(true),
            "False" => Some(false),
            _ => None,
        }
    }
}

/// One `status.conditions` entry (KEDA's conditions carry no times).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KedaCondition {
    pub condition_type: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// One `status.health` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Health {
    /// `numberOfFailures`.
    pub failures: i32,
    /// `status: Failing` (else `Happy`).
    pub failing: bool,
}

/// The `paused` / `paused-replicas` annotations: the HPA is deleted while they are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paused {
    /// `paused-replicas`: KEDA sets the target to it; `None` (`paused: true`): left as it is.
    pub replicas: Option<i32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    pub index: usize,
    /// `type` (`prometheus`, `kafka`, `cpu`, ...).
    pub scaler: String,
    /// `name`, empty when not given.
    pub name: String,
    /// The External metric name KEDA generates (`s0-prometheus`); `None` for cpu and memory.
    pub metric_name: Option<String>,
    /// Active iff the value is strictly above this.
    pub activation: f64,
    /// Where the activation threshold came from (`activationThreshold`, a default).
    pub activation_source: String,
    /// The External target (milli) and whether it is a `Value` target; `None` for cpu/memory.
    pub target: Option<ExternalTarget>,
    pub value: TriggerValue,
    /// The value the scaler serves whenever it is active, where its rules fix it (cron: its
    /// `desiredReplicas`); `None`: only "above the activation threshold" is known.
    pub active_value: Option<f64>,
    /// Consecutive failures recorded before this query (`status.health` or `--metric-failures`).
    pub failures: i32,
    /// The trigger's `metadata` key that sets its target (`lagThreshold`, `threshold`, `value`
    /// for cpu and memory); `None` where no key does (cron's target is always 1).
    pub threshold_key: Option<String>,
    /// The threshold is read as an integer (`GetMetricTarget`), not in milli-units.
    pub threshold_integer: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExternalTarget {
    pub milli: i64,
    pub value_type: bool,
}

/// What the scaler returned at this poll.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TriggerValue {
    /// cpu and memory: KEDA reads no value (always active; the HPA reads the pods).
    Resource,
    /// The raw total, as the scaler computed it (NaN, Inf, negatives included).
    Value(f64),
    /// `--metric-value NAME=failed`: the scaler returned an error.
    Failed,
    /// Not given: inferred from the ScaledObject's status (`calc::keda::status`).
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FallbackBehavior {
    Static,
    CurrentReplicas,
    CurrentReplicasIfHigher,
    CurrentReplicasIfLower,
    ScalingModifiers,
}

impl FallbackBehavior {
    pub fn as_str(self) -> &'static str {
        match self {
            FallbackBehavior::Static => "static",
            FallbackBehavior::CurrentReplicas => "currentReplicas",
            FallbackBehavior::CurrentReplicasIfHigher => "currentReplicasIfHigher",
            FallbackBehavior::CurrentReplicasIfLower => "currentReplicasIfLower",
            FallbackBehavior::ScalingModifiers => "scalingModifiers",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fallback {
    pub failure_threshold: i32,
    pub replicas: i32,
    pub behavior: FallbackBehavior,
}

/// `advanced.scalingModifiers` with a formula (the webhook requires one).
#[derive(Debug, Clone, PartialEq)]
pub struct Modifiers {
    /// The formula as written.
    pub text: String,
    pub formula: crate::formula::Expr,
    /// `target` as a float (> 0).
    pub target: f64,
    /// `target` parses as a positive integer (`HasValidFallback` needs it).
    pub target_is_integer: bool,
    pub activation_target: f64,
    /// `metricType: Value`.
    pub value_type: bool,
}

// Port of quantityFromFloat64 (pkg/scalers/scaler.go): NaN, Inf and negatives are 0, otherwise
// `%.3f`.
pub fn milli_from_float(v: f64) -> i64 {
    if !v.is_finite() || v < 0.0 {
        return 0;
    }
    parse_milli(&format!("{v:.3}")).unwrap_or(i64::MAX)
}

/// `int64(v*1000)`: Go's conversion truncates toward zero.
#[allow(clippy::cast_possible_truncation)]
pub fn truncate_milli(v: f64) -> i64 {
    (v * 1000.0) as i64
}
