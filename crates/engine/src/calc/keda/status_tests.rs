//! One test per rule of the status as evidence: each inference and each conflict, with inputs
//! shaped as `kubectl get scaledobject -o yaml` prints them (through `KedaStatus`).

use crate::calc::evaluate;
use crate::calc::testing::{KAFKA_METRIC, NOW, external, kafka_scaled_object, scenario};
use crate::report::Report;
use crate::scenario::Scenario;
use crate::scenario::keda::{
    Fallback, FallbackBehavior, Health, KedaCondition, KedaInput, KedaStatus, Paused, TriggerValue,
};
use crate::time::Duration;

pub const METRIC: &str = KAFKA_METRIC;

pub fn condition(t: &str, status: &str, reason: &str) -> KedaCondition {
    KedaCondition {
        condition_type: t.into(),
        status: status.into(),
        reason: reason.into(),
        message: String::new(),
    }
}

/// A ScaledObject `orders` with one kafka trigger (lagThreshold `threshold`, AverageValue or
/// Value), at `current` replicas with as many ready pods, min 0, max 10.
pub fn so(current: usize, threshold: i64, value: TriggerValue, value_type: bool) -> Scenario {
    let target = if value_type {
        external(METRIC, Some(threshold * 1000), None)
    } else {
        external(METRIC, None, Some(threshold * 1000))
    };
    let mut s = scenario(vec![target], current, 100);
    s.hpa.max_replicas = 10;
    s.keda = Some(kafka_scaled_object(threshold, value_type, value));
    s
}

fn keda(s: &mut Scenario) -> &mut KedaInput {
    s.keda.as_mut().unwrap()
}

fn codes(r: &Report) -> Vec<&str> {
    r.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

fn inactive(reason: &str) -> KedaStatus {
    KedaStatus {
        conditions: vec![
            condition("Ready", "True", "ScaledObjectReady"),
            condition("Active", "False", reason),
            condition("Fallback", "False", "NoFallbackFound"),
            condition("Paused", "False", ""),
        ],
        external_metric_names: vec![METRIC.into()],
        ..KedaStatus::default()
    }
}

#[test]
fn active_false_after_the_cooldown_is_keda_scaling_to_zero_first_in_why() {
    let mut s = so(4, 10, TriggerValue::Unknown, false);
    keda(&mut s).status = Some(inactive("ScalerCooldown"));
    keda(&mut s).last_active = Some(NOW.sub(Duration::from_secs(600)));
    keda(&mut s).last_active_assumed = false;
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 0, "{:#?}", r.diagnostics);
    let first = &r.diagnostics[0];
    assert_eq!(first.code, "StatusKedaInactive");
    assert!(
        first.message.contains("Active=False (ScalerCooldown)")
            && first
                .message
                .contains("the cooldown it was waiting for ended at")
            && first.message.contains("KEDA deactivates 4 → 0"),
        "{}",
        first.message
    );
    assert!(
        r.assumptions
            .iter()
            .any(|a| a.contains("no value given for 'orders'")),
        "{:?}",
        r.assumptions
    );
}

#[test]
fn active_false_inside_the_cooldown_leaves_the_count_to_the_hpa() {
    let mut s = so(4, 10, TriggerValue::Unknown, false);
    keda(&mut s).status = Some(inactive("ScalerCooldown"));
    keda(&mut s).last_active = Some(NOW.sub(Duration::from_secs(60)));
    keda(&mut s).last_active_assumed = false;
    let r = evaluate(&s);
    // Cooling down: KEDA waits, the HPA reads at most the activation threshold (5 of 10 per
    // pod): 1 replica, not 0.
    assert_eq!(r.desired_replicas, 1, "{}", r.decision.summary);
    assert_eq!(r.diagnostics[0].code, "StatusKedaInactive");
    assert!(
        r.diagnostics[0].message.contains("KEDA is cooling down"),
        "{}",
        r.diagnostics[0].message
    );
    assert!(!r.diagnostics[0].message.contains("ended at"));
}

#[test]
fn an_active_status_is_not_reproduced_by_values_at_or_below_activation() {
    // Active=True with an unknown value: no candidate reproduces it; said, not hidden.
    let mut s = so(4, 10, TriggerValue::Unknown, false);
    let mut status = inactive("ScalerActive");
    status.conditions[1] = condition("Active", "True", "ScalerActive");
    keda(&mut s).status = Some(status);
    let r = evaluate(&s);
    assert!(codes(&r).contains(&"StatusKedaConflict"), "{:?}", codes(&r));
}

fn falling_back(failures: i32) -> Scenario {
    let mut s = so(3, 25, TriggerValue::Unknown, false);
    let k = keda(&mut s);
    k.fallback = Some(Fallback {
        failure_threshold: 3,
        replicas: 6,
        behavior: FallbackBehavior::Static,
    });
    k.triggers[0].failures = failures;
    let mut status = inactive("ScalerActive");
    status.conditions[1] = condition("Active", "True", "ScalerActive");
    status.conditions[2] = condition("Fallback", "True", "FallbackExists");
    status.health.insert(
        METRIC.into(),
        Health {
            failures,
            failing: true,
        },
    );
    k.status = Some(status);
    s
}

#[test]
fn fallback_true_serves_target_times_replicas_and_the_hpa_lands_on_them() {
    let r = evaluate(&falling_back(4));
    assert_eq!(r.desired_replicas, 6, "{}", r.decision.summary);
    let first = &r.diagnostics[0];
    assert_eq!(first.code, "StatusKedaFallback");
    assert!(
        first.message.contains("failed 4 time(s)")
            && first
                .message
                .contains("more than fallback.failureThreshold 3")
            && first
                .message
                .contains("served as target 25 × 6 = 150 (doFallback)"),
        "{}",
        first.message
    );
}

#[test]
fn fallback_true_with_a_value_given_is_a_conflict_and_the_value_decides() {
    let mut s = falling_back(4);
    keda(&mut s).triggers[0].value = TriggerValue::Value(50.0);
    let r = evaluate(&s);
    // 50 over a target of 25 per pod: 2, not the fallback's 6.
    assert_eq!(r.desired_replicas, 2);
    let conflicts: Vec<&str> = (r.diagnostics.iter())
        .filter(|d| d.code == "StatusKedaConflict")
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        conflicts
            .iter()
            .any(|m| m.contains("Fallback=True (FallbackExists)")),
        "{conflicts:?}"
    );
    assert!(
        conflicts
            .iter()
            .any(|m| m.contains("is Failing (4 failure(s))")),
        "{conflicts:?}"
    );
    assert!(!codes(&r).contains(&"StatusKedaFallback"));
}

#[test]
fn active_false_against_a_value_above_activation_is_a_conflict() {
    let mut s = so(4, 10, TriggerValue::Value(80.0), false);
    keda(&mut s).status = Some(inactive("ScalerNotActive"));
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 8);
    assert_eq!(r.diagnostics[0].code, "StatusKedaConflict");
    assert!(
        r.diagnostics[0]
            .message
            .contains("Active=False (ScalerNotActive)"),
        "{}",
        r.diagnostics[0].message
    );
    // The same status with a value at the threshold agrees: nothing to say but the fact.
    let mut s = so(2, 10, TriggerValue::Value(5.0), false);
    keda(&mut s).status = Some(inactive("ScalerNotActive"));
    let r = evaluate(&s);
    assert!(
        !codes(&r).contains(&"StatusKedaConflict"),
        "{:?}",
        codes(&r)
    );
    assert_eq!(r.diagnostics[0].code, "StatusKedaInactive");
}

#[test]
fn paused_pins_the_count_at_the_annotation_and_a_different_status_count_is_said() {
    let mut s = so(4, 10, TriggerValue::Value(80.0), false);
    let mut status = inactive("ScalerActive");
    status.conditions[3] = condition("Paused", "True", "ScaledObjectPaused");
    status.paused_replica_count = Some(3);
    keda(&mut s).status = Some(status);
    keda(&mut s).paused = Some(Paused { replicas: Some(5) });
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 5);
    assert_eq!(r.diagnostics[0].code, "StatusKedaPaused");
    assert!(
        r.diagnostics[0].message.contains("holds the target at 5"),
        "{}",
        r.diagnostics[0].message
    );
    assert!(
        (r.diagnostics.iter()).any(|d| d.code == "StatusKedaConflict"
            && d.message.contains("status.pausedReplicaCount is 3")),
        "{:#?}",
        r.diagnostics
    );
}

#[test]
fn paused_in_the_status_without_the_annotation_is_a_conflict_and_the_hpa_decides() {
    let mut s = so(4, 10, TriggerValue::Value(80.0), false);
    let mut status = inactive("ScalerActive");
    status.conditions[1] = condition("Active", "True", "ScalerActive");
    status.conditions[3] = condition("Paused", "True", "ScaledObjectPaused");
    keda(&mut s).status = Some(status);
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 8);
    assert!(
        (r.diagnostics.iter())
            .any(|d| d.code == "StatusKedaConflict" && d.message.contains("KEDA unpauses")),
        "{:#?}",
        r.diagnostics
    );
}

#[test]
fn a_last_active_time_after_now_and_other_metric_names_are_conflicts() {
    let mut s = so(2, 10, TriggerValue::Value(80.0), false);
    let mut status = inactive("ScalerActive");
    status.conditions[1] = condition("Active", "True", "ScalerActive");
    status.external_metric_names = vec!["s0-kafka-payments".into()];
    keda(&mut s).status = Some(status);
    keda(&mut s).last_active = Some(NOW.add(Duration::from_secs(30)));
    let r = evaluate(&s);
    let said: Vec<&str> = (r.diagnostics.iter())
        .filter(|d| d.code == "StatusKedaConflict")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].contains("status.externalMetricNames is [s0-kafka-payments]"));
    assert!(said[1].contains("is after now"));
}

#[test]
fn no_status_says_nothing() {
    let r = evaluate(&so(2, 10, TriggerValue::Value(80.0), false));
    assert!(!codes(&r).iter().any(|c| c.starts_with("StatusKeda")));
}

#[test]
fn values_the_status_allows_that_give_other_counts_are_the_other_outcomes() {
    // min 2 (KEDA leaves the count to the HPA), activation 50 over 10 per pod: the status's
    // Active=False allows 0 (the HPA's min, 2) up to 50 (5 at 4 pods).
    let mut s = so(4, 10, TriggerValue::Unknown, false);
    s.hpa.min_replicas = 2;
    let k = keda(&mut s);
    k.min_replica_count = Some(2);
    k.triggers[0].activation = 50.0;
    k.status = Some(inactive("ScalerNotActive"));
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 2, "{}", r.decision.summary);
    assert_eq!(r.other_outcomes.len(), 1, "{:?}", r.other_outcomes);
    assert_eq!(r.other_outcomes[0].replicas, 5);
    assert!(
        r.decision
            .summary
            .ends_with("or 5 if 'orders' (s0, kafka) serves 50 (its activation threshold)"),
        "{}",
        r.decision.summary
    );
    // With activation 0 only 0 is allowed: one answer.
    keda(&mut s).triggers[0].activation = 0.0;
    assert!(evaluate(&s).other_outcomes.is_empty());
}

// ---- where a run starts from the status (`status::start`) ----

#[test]
fn a_paused_start_is_the_paused_replicas_annotation_over_the_status_count() {
    let mut s = so(0, 10, TriggerValue::Value(0.0), false);
    let mut status = inactive("ScalerNotActive");
    status.paused_replica_count = Some(3);
    keda(&mut s).status = Some(status);
    keda(&mut s).paused = Some(Paused { replicas: Some(5) });
    let (n, why) = super::start(keda(&mut s)).unwrap();
    assert_eq!(n, 5);
    assert!(why.contains("status.pausedReplicaCount 3"), "{why}");
    // `paused: true` leaves the count where it was, which the status does not say.
    keda(&mut s).paused = Some(Paused { replicas: None });
    assert_eq!(super::start(keda(&mut s)), None);
}

#[test]
fn a_fallback_start_is_the_count_the_fallback_serves_for() {
    let mut s = so(0, 10, TriggerValue::Failed, false);
    let mut status = inactive("ScalerActive");
    status.conditions[2] = condition("Fallback", "True", "FallbackExists");
    keda(&mut s).status = Some(status);
    keda(&mut s).min_replica_count = Some(2);
    for (behavior, replicas, want) in [
        (FallbackBehavior::Static, 6, 6),
        (FallbackBehavior::CurrentReplicasIfHigher, 6, 6),
        (FallbackBehavior::CurrentReplicasIfLower, 6, 2),
        // Above maxReplicaCount (10): the HPA's maximum.
        (FallbackBehavior::Static, 14, 10),
    ] {
        keda(&mut s).fallback = Some(Fallback {
            failure_threshold: 3,
            replicas,
            behavior,
        });
        assert_eq!(super::start(keda(&mut s)).map(|(n, _)| n), Some(want));
    }
    // Fallback=False: nothing of the fallback's.
    keda(&mut s).status = Some(inactive("ScalerNotActive"));
    assert_eq!(super::start(keda(&mut s)), None);
}

#[test]
fn a_cooldown_start_is_above_zero_until_keda_scales_in() {
    let mut s = so(0, 10, TriggerValue::Value(0.0), false);
    keda(&mut s).status = Some(inactive("ScalerCooldown"));
    assert_eq!(super::start(keda(&mut s)).map(|(n, _)| n), Some(1));
    keda(&mut s).status = Some(inactive("ScalerNotActive"));
    assert_eq!(super::start(keda(&mut s)), None);
}

// ---- HPAActive: the HPA's ScalingActive, mirrored by KEDA (getHPAHealth) ----

#[test]
fn hpa_active_false_failed_get_external_metric_infers_a_failing_trigger_forward() {
    let mut s = so(4, 10, TriggerValue::Unknown, false);
    let mut status = inactive("ScalerNotActive");
    keda(&mut s).status = Some(status.clone());
    // Without HPAActive the trigger's candidates are 0 and its activation threshold: KEDA is not
    // active, minReplicaCount is 0, and it scales to 0.
    assert_eq!(evaluate(&s).desired_replicas, 0);
    // HPAActive=False FailedGetExternalMetric: the HPA got no value, so only a failing trigger
    // (no fallback: KEDA does nothing) reproduces it, and the HPA keeps 4.
    status
        .conditions
        .push(condition("HPAActive", "False", "FailedGetExternalMetric"));
    keda(&mut s).status = Some(status);
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 4);
    assert!(
        r.assumptions.iter().any(|a| a.contains("fails reproduces")),
        "{:#?}",
        r.assumptions
    );
    assert!(
        !codes(&r).contains(&"StatusKedaConflict"),
        "{:?}",
        codes(&r)
    );
}

#[test]
fn hpa_active_false_against_a_value_given_is_a_conflict() {
    let mut s = so(4, 10, TriggerValue::Value(80.0), false);
    let mut status = inactive("ScalerActive");
    status.conditions[1] = condition("Active", "True", "ScalerActive");
    status
        .conditions
        .push(condition("HPAActive", "False", "FailedGetExternalMetric"));
    keda(&mut s).status = Some(status);
    let r = evaluate(&s);
    assert!(
        (r.diagnostics.iter()).any(|d| d.code == "StatusKedaConflict"
            && d.message
                .contains("HPAActive=False (FailedGetExternalMetric)")),
        "{:#?}",
        r.diagnostics
    );
}
