//! One sync of one HPA: `reconcileAutoscaler` of `horizontal.go`, minus the API calls. It reads a
//! `Scenario`, updates the controller's memory, and returns every intermediate value.

use crate::calc::conditions::Conditions;
use crate::calc::metrics::{
    Combined, MetricInputs, MetricOutcome, choose, combine, compute_replicas_for_metric,
};
use crate::calc::normalize::{
    self, LegacyLimits, Limited, NormalizationArg, READY_FOR_NEW_SCALE, SCALE_DOWN_STABILIZED,
};
use crate::calc::pods::{GroupSettings, RequestSettings};
use crate::calc::replicas::{CalcContext, ExternalGuards, Tolerances};
use crate::scenario::{ControllerMemory, HpaSpec, Recommendation, Scenario};
use crate::time::{Duration, Timestamp};

/// Which branch of `reconcileAutoscaler` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    /// `currentReplicas == 0` and scaling from zero is not allowed.
    ScalingDisabled,
    AboveMax,
    BelowMin,
    /// Metrics were computed.
    Metrics,
    /// Metrics were computed and the controller gave up (invalid metrics).
    MetricsFailed,
    /// The scale could not be read: the sync stopped before anything else.
    FailedGetScale,
}

/// What the normalization did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalization {
    pub stabilized: i32,
    /// The AbleToScale reason and message of the stabilization step.
    pub stabilization: (&'static str, &'static str),
    pub limited: Limited,
    /// The downscale (legacy) or scale-down (behavior) window in seconds, and the scale-up window.
    pub down_window_seconds: i32,
    pub up_window_seconds: i32,
    /// Legacy path: `max(factor × current, minimum)`.
    pub legacy_scale_up_limit: Option<i32>,
}

/// Everything one sync computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Sync<'a> {
    pub branch: Branch,
    pub min_replicas: i32,
    pub tolerances: Tolerances,
    pub outcomes: Vec<MetricOutcome<'a>>,
    pub combined: Option<Combined>,
    pub rescale_reason: Option<String>,
    pub metric_proposal: Option<i32>,
    pub normalization: Option<Normalization>,
    pub desired_replicas: i32,
    pub rescale: bool,
    pub conditions: Conditions,
    /// Whether `recordInitialRecommendation` seeded the memory at this sync.
    pub seeded_initial_recommendation: bool,
}

/// Settings that depend on the Kubernetes version and the feature gates.
#[derive(Debug, Clone, Copy)]
pub struct VersionRules {
    pub symmetric_tolerance: bool,
    pub per_hpa_tolerance: bool,
    pub sidecars: bool,
    pub pod_level: bool,
    pub missing_container_is_error: bool,
    /// `HPAContainerMetrics`: off makes ContainerResource metrics fail (1.27–1.29).
    pub container_metrics: bool,
    pub guards: ExternalGuards,
    /// The newest code's zero-replica rules (`shouldComputeMetricsForZeroReplicas`, 1.37+).
    pub scale_to_zero_conditions: bool,
    /// `HPAScaleToZero` on, in a release with the newest code: the `ScaledToZero` condition is
    /// read and written.
    pub scale_to_zero_gate: bool,
}

impl VersionRules {
    pub fn for_scenario(s: &Scenario) -> VersionRules {
        VersionRules::for_config(&s.config)
    }

    /// The rules of the release and the gates of the controller's flags.
    pub fn for_config(config: &crate::scenario::ControllerConfig) -> VersionRules {
        let minor = config.kube_minor;
        let gates = config.features;
        VersionRules {
            symmetric_tolerance: minor <= 32,
            per_hpa_tolerance: minor >= 33 && gates.hpa_configurable_tolerance,
            sidecars: minor >= 29,
            pod_level: minor >= 34 && gates.pod_level_resources,
            container_metrics: gates.hpa_container_metrics,
            missing_container_is_error: minor <= 31,
            guards: ExternalGuards {
                per_pod_overflow: minor >= 34,
                value_sum_saturates: minor >= 37,
                value_clamp: minor >= 35,
            },
            scale_to_zero_conditions: minor >= 37,
            scale_to_zero_gate: minor >= 37 && gates.hpa_scale_to_zero,
        }
    }
}

// Port of tolerancesForHpa (horizontal.go).
pub fn tolerances_for_hpa(hpa: &HpaSpec, flag: f64, rules: &VersionRules) -> Tolerances {
    let mut t = Tolerances {
        scale_down: flag,
        scale_up: flag,
        symmetric: rules.symmetric_tolerance,
    };
    if let (Some(behavior), true) = (&hpa.behavior, rules.per_hpa_tolerance) {
        if let Some(down) = behavior.scale_down.tolerance {
            t.scale_down = down;
        }
        if let Some(up) = behavior.scale_up.tolerance {
            t.scale_up = up;
        }
    }
    t
}

// Port of reconcileAutoscaler (horizontal.go), from the scale read on: the pure decision. Its
// phases, in the Go's order: the scale read and the count's own branches, the metrics
// (computeReplicasForMetrics), their normalization, and the rescale with its conditions.
///
/// `assume_steady` skips `recordInitialRecommendation`: with an empty memory every window then
/// holds only this sync's own recommendation, as if the load had been steady.
pub fn reconcile<'a>(
    s: &'a Scenario,
    memory: &mut ControllerMemory,
    assume_steady: bool,
) -> Sync<'a> {
    let rules = VersionRules::for_scenario(s);
    let mut sync = scale_read(s, memory, assume_steady, &rules);
    if sync.branch == Branch::FailedGetScale {
        return sync;
    }
    let (mut desired, compute_metrics) = count_branches(s, &rules, &mut sync);
    if compute_metrics {
        let Some(proposed) = metrics_phase(s, &rules, &mut sync, desired) else {
            return sync;
        };
        desired = normalize_phase(s, memory, &rules, &mut sync, proposed);
    }
    rescale_phase(s, memory, &rules, &mut sync, desired);
    sync
}

/// `scaledToZeroCondition`: the gate and the condition; read only by the newest code.
fn scaled_to_zero(s: &Scenario, rules: &VersionRules) -> bool {
    rules.scale_to_zero_gate && s.scaled_to_zero
}

fn has_object_or_external(s: &Scenario) -> bool {
    s.hpa.metrics.iter().any(|m| m.is_object_or_external())
}

// Port of the scale read of reconcileAutoscaler (horizontal.go). Read: `AbleToScale` says so,
// and a controller new to this HPA seeds its window. Not read (the RESTMapper or the scale's Get
// failed): AbleToScale False FailedGetScale, and the sync returns there, before any count, pod
// or metric is read and before recordInitialRecommendation; the target and the status's counts
// stay as they are.
fn scale_read<'a>(
    s: &'a Scenario,
    memory: &mut ControllerMemory,
    assume_steady: bool,
    rules: &VersionRules,
) -> Sync<'a> {
    let mut sync = Sync {
        branch: Branch::Metrics,
        min_replicas: s.hpa.min_replicas,
        tolerances: tolerances_for_hpa(&s.hpa, s.config.tolerance, rules),
        outcomes: Vec::new(),
        combined: None,
        rescale_reason: None,
        metric_proposal: None,
        normalization: None,
        desired_replicas: 0,
        rescale: true,
        conditions: Conditions::from_status(&s.status_conditions, s.now.to_rfc3339()),
        seeded_initial_recommendation: false,
    };
    if let Some(error) = &s.scale_error {
        sync.conditions.set(
            "AbleToScale",
            false,
            "FailedGetScale",
            format!("the HPA controller was unable to get the target's current scale: {error}"),
        );
        sync.branch = Branch::FailedGetScale;
        sync.rescale = false;
        sync.desired_replicas = s.current_replicas;
        return sync;
    }
    sync.conditions.set(
        "AbleToScale",
        true,
        "SucceededGetScale",
        "the HPA controller was able to get the target's current scale",
    );
    sync.seeded_initial_recommendation = record_initial_recommendation(s, memory, assume_steady);
    sync
}

/// The branches on the current count alone (zero, above max, below min): the count they set,
/// and whether the metrics are computed at all.
fn count_branches(s: &Scenario, rules: &VersionRules, sync: &mut Sync<'_>) -> (i32, bool) {
    let (current, min_replicas) = (s.current_replicas, s.hpa.min_replicas);
    if current == 0 {
        let allowed = if rules.scale_to_zero_conditions {
            // Port of shouldComputeMetricsForZeroReplicas (horizontal.go): with the gate off
            // scaledToZeroCondition is false, so the target is disabled whatever minReplicas is.
            scaled_to_zero(s, rules) && (min_replicas != 0 || has_object_or_external(s))
        } else {
            // Up to 1.36: metrics are computed from zero only when minReplicas is 0.
            min_replicas == 0
        };
        if allowed {
            return (0, true);
        }
        if rules.scale_to_zero_conditions && !rules.scale_to_zero_gate {
            sync.conditions.remove("ScaledToZero");
        }
        sync.branch = Branch::ScalingDisabled;
        sync.rescale = false;
        sync.conditions.set(
            "ScalingActive",
            false,
            "ScalingDisabled",
            "scaling is disabled since the replica count of the target is zero",
        );
        (0, false)
    } else if current > s.hpa.max_replicas {
        sync.rescale_reason = Some("Current number of replicas above Spec.MaxReplicas".into());
        sync.branch = Branch::AboveMax;
        (s.hpa.max_replicas, false)
    } else if current < min_replicas {
        sync.rescale_reason = Some("Current number of replicas below Spec.MinReplicas".into());
        sync.branch = Branch::BelowMin;
        (min_replicas, false)
    } else {
        (0, true)
    }
}

/// computeReplicasForMetrics and what reconcileAutoscaler does with its answer: the proposal,
/// or `None` when the metrics failed (the sync is then complete and keeps the count).
fn metrics_phase<'a>(
    s: &'a Scenario,
    rules: &VersionRules,
    sync: &mut Sync<'a>,
    mut desired: i32,
) -> Option<i32> {
    let current = s.current_replicas;
    // Port of validateAndParseSelector (horizontal.go), the first step of
    // computeReplicasForMetrics: a bad selector fails every metric at once.
    if let Some(e) = &s.metrics.selector_error {
        sync.conditions
            .set("ScalingActive", false, &e.reason, e.message.clone());
        sync.branch = Branch::MetricsFailed;
        sync.rescale = false;
        sync.desired_replicas = current;
        return None;
    }
    let inputs = metric_inputs(s, rules, sync.tolerances);
    sync.outcomes = (s.hpa.metrics.iter().enumerate())
        .map(|(i, m)| compute_replicas_for_metric(i, m, &inputs))
        .collect();
    let combined = combine(&sync.outcomes, current);
    // `err != nil && metricDesiredReplicas == -1`: a proposal of -1 without an error (a
    // negative metric value) is a valid proposal.
    if combined.failed {
        if let Some(failure) = combined
            .first_invalid
            .and_then(|i| sync.outcomes.get(i))
            .and_then(|o| o.result.as_ref().err())
        {
            sync.conditions.set(
                "ScalingActive",
                false,
                failure.reason,
                format!(
                    "the HPA was unable to compute the replica count: {}",
                    failure.condition_error
                ),
            );
        }
        sync.branch = Branch::MetricsFailed;
        sync.combined = Some(combined);
        sync.rescale = false;
        sync.desired_replicas = current;
        return None;
    }
    let metric_name = combined
        .winner
        .and_then(|i| sync.outcomes.get(i))
        .map(|o| o.name.clone())
        .unwrap_or_default();
    sync.conditions.set(
        "ScalingActive",
        true,
        "ValidMetricFound",
        format!("the HPA was able to successfully calculate a replica count from {metric_name}"),
    );
    let mut rescale_metric = String::new();
    if combined.replicas > desired {
        desired = combined.replicas;
        rescale_metric = metric_name;
    }
    sync.metric_proposal = Some(combined.replicas);
    sync.combined = Some(combined);
    if desired > current {
        sync.rescale_reason = Some(format!("{rescale_metric} above target"));
    }
    if desired < current {
        sync.rescale_reason = Some("All metrics below target".into());
    }
    Some(desired)
}

/// The proposal through the stabilization window and the rate limits, with the conditions they
/// set: the count to rescale to.
fn normalize_phase(
    s: &Scenario,
    memory: &mut ControllerMemory,
    rules: &VersionRules,
    sync: &mut Sync<'_>,
    desired: i32,
) -> i32 {
    let (normalized, normalization) =
        normalize_proposal(s, memory, desired, scaled_to_zero(s, rules));
    sync.conditions.set(
        "AbleToScale",
        true,
        normalization.stabilization.0,
        normalization.stabilization.1,
    );
    sync.conditions.set(
        "ScalingLimited",
        normalization.limited.replicas != normalization.stabilized,
        normalization.limited.reason,
        normalization.limited.message,
    );
    sync.normalization = Some(normalization);
    if normalized.raised_to_min_from_zero && sync.rescale_reason.is_none() {
        sync.rescale_reason = Some("Current number of replicas below Spec.MinReplicas".into());
    }
    sync.rescale = normalized.replicas != s.current_replicas;
    normalized.replicas
}

/// The rescale, when there is one: its scale event and conditions; else the count stays.
fn rescale_phase(
    s: &Scenario,
    memory: &mut ControllerMemory,
    rules: &VersionRules,
    sync: &mut Sync<'_>,
    desired: i32,
) {
    let current = s.current_replicas;
    if !sync.rescale {
        sync.desired_replicas = current;
        return;
    }
    sync.conditions.set(
        "AbleToScale",
        true,
        "SucceededRescale",
        format!("the HPA controller was able to update the target scale to {desired}"),
    );
    normalize::store_scale_event(memory, s.hpa.behavior.as_ref(), current, desired, s.now);
    if rules.scale_to_zero_gate {
        if current > 0 && desired == 0 && s.hpa.min_replicas == 0 && has_object_or_external(s) {
            sync.conditions.set(
                "ScaledToZero",
                true,
                "ScaledToZero",
                "the HPA controller scaled the workload to zero",
            );
        } else {
            sync.conditions.set(
                "ScaledToZero",
                false,
                "NotScaledToZero",
                "the HPA controller did not scale the workload to zero",
            );
        }
    } else if rules.scale_to_zero_conditions {
        sync.conditions.remove("ScaledToZero");
    }
    sync.desired_replicas = desired;
}

// Port of recordInitialRecommendation (horizontal.go): a controller that has never seen this HPA
// seeds its window with the current count. Skipped when assuming steady load.
fn record_initial_recommendation(
    s: &Scenario,
    memory: &mut ControllerMemory,
    assume_steady: bool,
) -> bool {
    let seed = !assume_steady && memory.recommendations.is_empty();
    if seed {
        memory.recommendations.push(Recommendation {
            replicas: s.current_replicas,
            timestamp: s.now,
        });
    }
    seed
}

/// What `computeReplicasForMetric` reads, for this scenario's version rules.
pub fn metric_inputs<'a>(
    s: &'a Scenario,
    rules: &VersionRules,
    tolerances: Tolerances,
) -> MetricInputs<'a> {
    MetricInputs {
        calc: CalcContext {
            pods: &s.pods,
            ready_pods: None,
            group: GroupSettings {
                cpu_initialization_period: s.config.cpu_initialization_period,
                delay_of_initial_readiness_status: s.config.delay_of_initial_readiness_status,
                now: s.now,
                ignore_succeeded: false,
            },
            requests: RequestSettings {
                sidecars: rules.sidecars,
                pod_level: rules.pod_level,
            },
            tolerances,
        },
        values: &s.metrics,
        namespace: &s.hpa.namespace,
        spec_replicas: s.current_replicas,
        status_replicas: s.status_replicas,
        missing_container_is_error: rules.missing_container_is_error,
        container_metrics: rules.container_metrics,
        guards: rules.guards,
    }
}

/// The desired count after normalization, before the rescale check.
pub struct Normalized {
    pub replicas: i32,
    /// Scaling from zero with `ScaledToZero`: raised to `minReplicas` after normalization.
    pub raised_to_min_from_zero: bool,
}

// Port of reconcileAutoscaler (horizontal.go) from `metricDesiredReplicas` to the rescale check:
// `desiredReplicas` starts at 0 and takes the proposal when it is larger, is normalized, and
// when scaling from zero is raised to minReplicas.
fn normalize_proposal(
    s: &Scenario,
    memory: &mut ControllerMemory,
    metric_desired: i32,
    scaled_to_zero: bool,
) -> (Normalized, Normalization) {
    let current = s.current_replicas;
    let min_replicas = s.hpa.min_replicas;
    let desired = metric_desired.max(0);
    let normalization = normalize_desired_replicas(s, memory, current, desired, min_replicas);
    let mut replicas = normalization.limited.replicas;
    let raise = current == 0 && min_replicas != 0 && scaled_to_zero && replicas < min_replicas;
    if raise {
        replicas = min_replicas;
    }
    (
        Normalized {
            replicas,
            raised_to_min_from_zero: raise,
        },
        normalization,
    )
}

/// One sync replayed with other metric proposals (`None`: an invalid metric), from the memory the
/// controller had before the sync: what the hold band searches on.
pub struct Probe {
    /// The count the sync ends with.
    pub desired: i32,
    /// `computeReplicasForMetrics` gave up (an invalid metric and a scale-down).
    pub failed: bool,
    /// The largest valid proposal, and the metric that gave it.
    pub proposal: i32,
    pub winner: Option<usize>,
    pub normalization: Option<Normalization>,
}

// The same path as `reconcile` from `computeReplicasForMetrics` on, for a sync on the metrics path.
pub fn probe(
    s: &Scenario,
    memory_before: &ControllerMemory,
    assume_steady: bool,
    proposals: &[Option<i32>],
) -> Probe {
    let choice = choose(proposals.iter().copied(), s.current_replicas);
    probe_choice(s, memory_before, assume_steady, choice)
}

/// `probe` from the metrics' choice on.
pub fn probe_choice(
    s: &Scenario,
    memory_before: &ControllerMemory,
    assume_steady: bool,
    choice: crate::calc::metrics::Choice,
) -> Probe {
    let rules = VersionRules::for_scenario(s);
    if choice.failed {
        return Probe {
            desired: s.current_replicas,
            failed: true,
            proposal: choice.replicas,
            winner: None,
            normalization: None,
        };
    }
    let mut memory = memory_before.clone();
    record_initial_recommendation(s, &mut memory, assume_steady);
    let scaled_to_zero = rules.scale_to_zero_gate && s.scaled_to_zero;
    let (normalized, normalization) =
        normalize_proposal(s, &mut memory, choice.replicas, scaled_to_zero);
    Probe {
        desired: normalized.replicas,
        failed: false,
        proposal: choice.replicas,
        winner: choice.winner,
        normalization: Some(normalization),
    }
}

// Port of normalizeDesiredReplicas and normalizeDesiredReplicasWithBehaviors (horizontal.go).
fn normalize_desired_replicas(
    s: &Scenario,
    memory: &mut ControllerMemory,
    current: i32,
    prenormalized: i32,
    min_replicas: i32,
) -> Normalization {
    let hpa = &s.hpa;
    match &hpa.behavior {
        None => {
            let window = s.config.downscale_stabilization_window;
            let stabilized =
                normalize::stabilize_recommendation(memory, s.now, window, prenormalized);
            let stabilization = if stabilized != prenormalized {
                SCALE_DOWN_STABILIZED
            } else {
                READY_FOR_NEW_SCALE
            };
            let limits = LegacyLimits {
                factor: s.config.scale_up_limit_factor,
                minimum: s.config.scale_up_limit_minimum,
            };
            let limited = normalize::convert_desired_replicas_with_rules(
                current,
                stabilized,
                min_replicas,
                hpa.max_replicas,
                limits,
            );
            Normalization {
                stabilized,
                stabilization,
                limited,
                down_window_seconds: i32::try_from(window.millis() / 1000).unwrap_or(i32::MAX),
                up_window_seconds: 0,
                legacy_scale_up_limit: Some(normalize::calculate_scale_up_limit(current, limits)),
            }
        }
        Some(behavior) => {
            let down_window =
                normalize::scale_down_window(behavior, s.config.downscale_stabilization_window);
            let up_window = behavior.scale_up.stabilization_window_seconds.unwrap_or(0);
            let mut arg = NormalizationArg {
                scale_up: &behavior.scale_up,
                scale_down: &behavior.scale_down,
                min_replicas,
                max_replicas: hpa.max_replicas,
                current_replicas: current,
                desired_replicas: prenormalized,
            };
            let stabilized = normalize::stabilize_recommendation_with_behaviors(
                memory,
                s.now,
                &arg,
                up_window,
                down_window,
            );
            let stabilization = if stabilized.replicas != prenormalized {
                (stabilized.reason, stabilized.message)
            } else {
                READY_FOR_NEW_SCALE
            };
            arg.desired_replicas = stabilized.replicas;
            let limited =
                normalize::convert_desired_replicas_with_behavior_rate(memory, s.now, &arg);
            Normalization {
                stabilized: stabilized.replicas,
                stabilization,
                limited,
                down_window_seconds: down_window,
                up_window_seconds: up_window,
                legacy_scale_up_limit: None,
            }
        }
    }
}

/// The recommendation that keeps a stabilized count other than the proposal, and when it leaves
/// its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holder {
    pub replicas: i32,
    pub timestamp: Timestamp,
    pub until: Timestamp,
    pub window_seconds: i32,
}

impl Normalization {
    /// Read from the memory the windows read: the newest recommendation of the stabilized value
    /// inside the window that decided (the legacy window is inclusive, the behavior windows
    /// exclusive), or the current count a just-started controller recorded.
    pub fn holder(&self, s: &Scenario, sync: &Sync<'_>) -> Option<Holder> {
        let proposal = sync.metric_proposal.unwrap_or(s.current_replicas).max(0);
        if self.stabilized == proposal {
            return None;
        }
        let down = self.stabilized > proposal;
        let window_seconds = if down || s.hpa.behavior.is_none() {
            self.down_window_seconds
        } else {
            self.up_window_seconds
        };
        let window = Duration::from_secs(i64::from(window_seconds));
        let holder = |timestamp: Timestamp| Holder {
            replicas: self.stabilized,
            timestamp,
            until: timestamp.add(window),
            window_seconds,
        };
        if sync.seeded_initial_recommendation {
            return Some(holder(s.now));
        }
        let cutoff = s.now.sub(window);
        let inclusive = s.hpa.behavior.is_none();
        s.memory
            .as_ref()?
            .recommendations
            .iter()
            .filter(|r| {
                r.replicas == self.stabilized
                    && if inclusive {
                        !r.timestamp.before(cutoff)
                    } else {
                        r.timestamp.after(cutoff)
                    }
            })
            .map(|r| r.timestamp)
            .max_by_key(|t| t.0)
            .map(holder)
    }
}

#[cfg(test)]
mod selector_tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};
    use crate::scenario::SelectorError;

    fn ambiguous() -> SelectorError {
        SelectorError {
            reason: "AmbiguousSelector".into(),
            message:
                "pods by selector app=web are controlled by multiple HPAs: [default/a default/web]"
                    .into(),
        }
    }

    #[test]
    fn a_selector_error_fails_every_metric_and_keeps_the_count() {
        // Usage at twice the target would scale up; the selector check comes first.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1000);
        s.metrics.selector_error = Some(ambiguous());
        let sync = reconcile(&s, &mut ControllerMemory::default(), true);
        assert_eq!(sync.branch, Branch::MetricsFailed);
        assert_eq!(sync.desired_replicas, 4);
        assert!(sync.outcomes.is_empty());
        let report = crate::calc::evaluate(&s);
        let active = report
            .conditions
            .iter()
            .find(|c| c.condition_type == "ScalingActive")
            .unwrap();
        assert_eq!(
            (active.status.as_str(), active.reason.as_str()),
            ("False", "AmbiguousSelector")
        );
        assert!(
            report
                .decision
                .summary
                .contains("controlled by multiple HPAs")
        );
    }

    #[test]
    fn a_selector_error_is_not_reached_above_max() {
        // computeReplicasForMetrics (and its selector check) runs only in the metrics branch.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1000);
        s.hpa.max_replicas = 3;
        s.metrics.selector_error = Some(ambiguous());
        let sync = reconcile(&s, &mut ControllerMemory::default(), true);
        assert_eq!(sync.branch, Branch::AboveMax);
        assert_eq!(sync.desired_replicas, 3);
    }
}

#[cfg(test)]
mod scale_read_tests {
    use super::*;
    use crate::calc::testing::{cpu_utilization, scenario};

    const NOT_FOUND: &str = "deployments/scale.apps \"web\" not found";

    #[test]
    fn a_scale_that_cannot_be_read_stops_the_sync_with_failed_get_scale() {
        // Usage at twice the target, above maxReplicas: neither is reached.
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1000);
        s.hpa.max_replicas = 3;
        s.scale_error = Some(NOT_FOUND.into());
        let mut memory = ControllerMemory::default();
        let sync = reconcile(&s, &mut memory, false);
        assert_eq!(sync.branch, Branch::FailedGetScale);
        assert_eq!(sync.desired_replicas, 4);
        assert!(!sync.rescale);
        assert!(sync.outcomes.is_empty() && sync.normalization.is_none());
        // recordInitialRecommendation comes after the scale read: nothing is remembered.
        assert!(memory.recommendations.is_empty() && !sync.seeded_initial_recommendation);
        let able = sync.conditions.get("AbleToScale").unwrap();
        assert_eq!(
            (able.status.as_str(), able.reason.as_str()),
            ("False", "FailedGetScale")
        );
        assert_eq!(
            able.message,
            "the HPA controller was unable to get the target's current scale: deployments/scale.apps \"web\" not found"
        );
        assert!(sync.conditions.get("ScalingActive").is_none());
    }

    #[test]
    fn a_failed_scale_read_keeps_the_count_in_the_report_and_compares_nothing() {
        let mut s = scenario(vec![cpu_utilization(50)], 4, 1000);
        s.scale_error = Some(NOT_FOUND.into());
        s.observed_status = Some(crate::scenario::ObservedStatus {
            current_replicas: Some(4),
            desired_replicas: Some(6),
            ..Default::default()
        });
        let report = crate::calc::evaluate(&s);
        assert_eq!((report.current_replicas, report.desired_replicas), (4, 4));
        assert_eq!(report.decision.change, "none");
        assert!(report.metrics.is_empty());
        assert_eq!(report.status_comparison, None);
        assert!(
            report.decision.summary.starts_with(
                "no change: the HPA controller was unable to get the target's current scale"
            ),
            "{}",
            report.decision.summary
        );
    }
}
