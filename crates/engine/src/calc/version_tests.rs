//! Each rule that changed between Kubernetes releases, pinned on both sides of the change.

use crate::calc::evaluate;
use crate::calc::testing::{at_version, cpu_sample, cpu_utilization, external, pod, scenario};
use crate::scenario::{
    Behavior, Container, ContainerKind, MetricSpec, MetricTarget, Resources, TargetType,
};

fn desired(s: &crate::scenario::Scenario) -> i32 {
    evaluate(s).desired_replicas
}

fn proposal(s: &crate::scenario::Scenario) -> Option<i32> {
    evaluate(s).metrics[0].proposed_replicas
}

#[test]
fn ratio_of_exactly_1_1_scales_up_to_1_32_and_holds_from_1_33() {
    // 550m of 1 cpu is 55 % against 50 %: a ratio of exactly 1.1.
    let s = scenario(vec![cpu_utilization(50)], 4, 550);
    assert_eq!(desired(&at_version(s.clone(), 32)), 5);
    assert_eq!(desired(&at_version(s, 33)), 4);
}

fn default_behavior(up_tolerance: Option<f64>) -> Behavior {
    let mut b = Behavior::api_defaults();
    b.scale_up.tolerance = up_tolerance;
    b
}

#[test]
fn per_hpa_tolerance_applies_only_with_the_gate_on_by_default_from_1_35() {
    // 54 % against 50 %: ratio 1.08, inside 0.1 but outside a per-HPA scale-up tolerance of 0.05.
    let mut s = scenario(vec![cpu_utilization(50)], 4, 540);
    s.hpa.behavior = Some(default_behavior(Some(0.05)));
    assert_eq!(desired(&at_version(s.clone(), 34)), 4);
    assert_eq!(desired(&at_version(s, 35)), 5);
}

fn container_cpu(target: i32) -> MetricSpec {
    MetricSpec::Resource {
        resource: "cpu".into(),
        container: Some("app".into()),
        target: MetricTarget {
            target_type: TargetType::Utilization,
            average_utilization: Some(target),
            average_value_milli: None,
            value_milli: None,
        },
    }
}

#[test]
fn missing_container_metric_fails_the_metric_before_1_32_and_is_a_missing_pod_after() {
    let mut s = scenario(vec![container_cpu(50)], 2, 900);
    s.metrics.resource[1].containers[0].name = "other".into();
    let old = evaluate(&at_version(s.clone(), 31));
    assert_eq!(old.metrics[0].proposed_replicas, None);
    assert!(
        old.metrics[0]
            .error
            .as_deref()
            .unwrap_or("")
            .contains("not present in metrics")
    );
    let new = evaluate(&at_version(s, 32));
    assert_eq!(new.metrics[0].missing_pods, 1);
    assert!(new.metrics[0].proposed_replicas.is_some());
}

#[test]
fn sidecar_requests_count_from_1_29() {
    let mut s = scenario(vec![cpu_utilization(50)], 2, 500);
    for p in &mut s.pods {
        p.containers[0].requests = Resources(vec![("cpu".into(), 500)]);
        p.containers.push(Container {
            name: "proxy".into(),
            kind: ContainerKind::Sidecar,
            requests: Resources(vec![("cpu".into(), 500)]),
        });
    }
    // 1.28: request 500m → 100 % → ratio 2 → 4 pods. 1.29: request 1 cpu → 50 % → hold.
    assert_eq!(desired(&at_version(s.clone(), 28)), 4);
    assert_eq!(desired(&at_version(s, 29)), 2);
}

#[test]
fn pod_level_requests_replace_the_container_sum_from_1_34() {
    let mut s = scenario(vec![cpu_utilization(50)], 2, 1000);
    for p in &mut s.pods {
        p.pod_requests = Some(Resources(vec![("cpu".into(), 2000)]));
    }
    assert_eq!(desired(&at_version(s.clone(), 33)), 4);
    assert_eq!(desired(&at_version(s, 34)), 2);
}

#[test]
fn external_average_value_sum_overflow_is_guarded_from_1_34() {
    let mut s = scenario(vec![external("queue", None, Some(1000))], 2, 0);
    s.metrics.external.insert(0, vec![i64::MAX, 1]);
    assert!(proposal(&at_version(s.clone(), 33)).is_some_and(|p| p < 0));
    assert_eq!(proposal(&at_version(s, 34)), Some(i32::MAX));
}

#[test]
fn external_value_sum_saturates_from_1_37() {
    let mut s = scenario(vec![external("queue", Some(1000), None)], 2, 0);
    s.metrics.external.insert(0, vec![i64::MAX, 5]);
    assert!(proposal(&at_version(s.clone(), 36)).is_some_and(|p| p < 0));
    assert_eq!(proposal(&at_version(s, 37)), Some(i32::MAX));
}

#[test]
fn scale_from_zero_needs_the_scaled_to_zero_condition_from_1_37() {
    let mut s = scenario(vec![external("queue", Some(1000), None)], 0, 0);
    s.hpa.min_replicas = 0;
    s.metrics.external.insert(0, vec![3000]);
    s.pods = vec![pod("p0", 1000)].into();
    s.metrics.resource = vec![cpu_sample("p0", 0)].into();
    // Up to 1.36 (alpha gate, minReplicas 0): metrics computed from zero, ceil(3000/1000) = 3.
    let mut old = at_version(s.clone(), 36);
    old.config.features.hpa_scale_to_zero = true;
    assert_eq!(desired(&old), 3);
    // 1.37: a manual scale to zero pauses the HPA ...
    let new = evaluate(&at_version(s.clone(), 37));
    assert_eq!(new.desired_replicas, 0);
    assert!(new.conditions.iter().any(|c| c.reason == "ScalingDisabled"));
    // ... unless the controller itself scaled to zero (ScaledToZero=True).
    let mut resumed = at_version(s, 37);
    resumed.scaled_to_zero = true;
    assert_eq!(desired(&resumed), 3);
}

#[test]
fn container_metrics_gate_off_fails_container_resource_metrics() {
    let s = scenario(vec![container_cpu(50)], 2, 900);
    let mut off = at_version(s.clone(), 29);
    off.config.features.hpa_container_metrics = false;
    assert!(evaluate(&off).metrics[0].error.is_some());
    assert!(evaluate(&at_version(s, 29)).metrics[0].error.is_none());
}

#[test]
fn from_zero_with_the_scale_to_zero_gate_off_is_disabled_whatever_min_replicas_is() {
    // shouldComputeMetricsForZeroReplicas: with the gate off scaledToZeroCondition is false.
    let mut s = scenario(vec![external("queue", Some(1000), None)], 0, 0);
    s.hpa.min_replicas = 0;
    s.scaled_to_zero = true;
    s.metrics.external.insert(0, vec![3000]);
    s.status_conditions = vec![crate::report::Condition {
        condition_type: "ScaledToZero".into(),
        status: "True".into(),
        reason: "ScaledToZero".into(),
        message: "the HPA controller scaled the workload to zero".into(),
        last_transition_time: None,
    }];
    let mut off = at_version(s.clone(), 37);
    off.config.features.hpa_scale_to_zero = false;
    let report = evaluate(&off);
    assert_eq!(report.desired_replicas, 0);
    assert!(
        report
            .conditions
            .iter()
            .any(|c| c.reason == "ScalingDisabled")
    );
    // removeCondition(ScaledToZero) when the gate is off.
    assert!(
        report
            .conditions
            .iter()
            .all(|c| c.condition_type != "ScaledToZero")
    );
    // The gate on, the same HPA resumes from zero.
    assert_eq!(desired(&at_version(s, 37)), 3);
}

#[test]
fn a_proposal_of_minus_one_without_an_error_is_a_valid_proposal() {
    // A negative External value: ceil(-500/1000 × 2 ready pods) = -1, with no error.
    let mut s = scenario(vec![external("queue", Some(1000), None)], 2, 0);
    s.metrics.external.insert(0, vec![-500]);
    let report = evaluate(&at_version(s, 37));
    assert_eq!(report.metrics[0].proposed_replicas, Some(-1));
    assert_eq!(report.decision.metric_proposal, Some(-1));
    // desiredReplicas stays 0 (-1 is not above it), then min clamps: scale down to minReplicas.
    assert_eq!(report.desired_replicas, 1);
    assert!(
        report
            .conditions
            .iter()
            .any(|c| c.reason == "ValidMetricFound")
    );
}
