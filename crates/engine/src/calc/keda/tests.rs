//! One test per rule of KEDA's poll: activation, from zero, cooldown, idle, minimum, fallback,
//! the formula, paused.

use super::*;
use crate::formula::parse;
use crate::scenario::keda::{
    ExternalTarget, Fallback, FallbackBehavior, KedaInput, Modifiers, Paused, Trigger,
};
use crate::time::Duration;

const NOW: Timestamp = Timestamp(10_000_000);

fn trigger(index: usize, name: &str, value: TriggerValue) -> Trigger {
    Trigger {
        index,
        scaler: "prometheus".into(),
        name: name.into(),
        metric_name: Some(format!("s{index}-prometheus")),
        activation: 5.0,
        activation_source: "activationThreshold".into(),
        target: Some(ExternalTarget {
            milli: 100_000,
            value_type: false,
        }),
        value,
        active_value: None,
        failures: 0,
        threshold_key: Some("threshold".into()),
        threshold_integer: false,
    }
}

fn input(triggers: Vec<Trigger>) -> KedaInput {
    KedaInput {
        name: "worker".into(),
        min_replica_count: None,
        max_replica_count: 20,
        idle_replica_count: None,
        cooldown: Duration::from_secs(300),
        initial_cooldown: Duration::ZERO,
        polling_interval: Duration::from_secs(30),
        last_active: None,
        created: None,
        last_active_assumed: true,
        triggers,
        fallback: None,
        modifiers: None,
        paused: None,
        pause_scale_in: false,
        pause_scale_out: false,
        force_activation: false,
        status: None,
    }
}

fn value(v: f64) -> KedaInput {
    input(vec![trigger(0, "rps", TriggerValue::Value(v))])
}

fn codes(o: &KedaOutcome) -> Vec<&str> {
    o.diagnostics.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn activation_is_strictly_above_the_threshold() {
    let o = decide(&value(5.0), 0, 0, NOW);
    assert!(!o.active);
    assert_eq!(o.scale_to, None);
    let o = decide(&value(5.001), 0, 0, NOW);
    assert!(o.active);
}

#[test]
fn from_zero_an_active_trigger_sets_max_min_one() {
    let o = decide(&value(50.0), 0, 0, NOW);
    assert_eq!(o.scale_to, Some(1));
    assert_eq!(codes(&o), ["KedaActivation"]);
    let mut k = value(50.0);
    k.min_replica_count = Some(3);
    k.idle_replica_count = Some(0);
    // Idle mode: active below min scales to min.
    assert_eq!(decide(&k, 0, 0, NOW).scale_to, Some(3));
    // Active above zero: the HPA decides.
    assert_eq!(decide(&value(50.0), 4, 4, NOW).scale_to, None);
}

#[test]
fn served_value_is_the_raw_total_in_milli() {
    let o = decide(&value(850.0), 2, 2, NOW);
    assert_eq!(o.external["s0-prometheus"], vec![850_000]);
    let o = decide(&value(f64::NAN), 2, 2, NOW);
    assert_eq!(o.external["s0-prometheus"], vec![0]);
    assert!(!o.active);
}

#[test]
fn cooldown_comparison_is_strict() {
    let mut k = value(0.0);
    k.last_active_assumed = false;
    // Exactly the cooldown ago: lastActive + cooldown is not Before(now): KEDA waits.
    k.last_active = Some(NOW.sub(Duration::from_secs(300)));
    let o = decide(&k, 3, 3, NOW);
    assert_eq!(o.scale_to, None);
    assert_eq!(codes(&o), ["KedaCooldown"]);
    k.last_active = Some(NOW.sub(Duration(300_001)));
    let o = decide(&k, 3, 3, NOW);
    assert_eq!(o.scale_to, Some(0));
    assert_eq!(codes(&o), ["KedaIdle"]);
}

#[test]
fn never_active_uses_creation_plus_initial_cooldown() {
    let mut k = value(0.0);
    k.created = Some(NOW.sub(Duration::from_secs(10)));
    k.initial_cooldown = Duration::from_secs(60);
    assert_eq!(decide(&k, 2, 2, NOW).scale_to, None);
    k.initial_cooldown = Duration::from_secs(5);
    assert_eq!(decide(&k, 2, 2, NOW).scale_to, Some(0));
}

#[test]
fn inactive_goes_to_idle_when_set() {
    let mut k = value(0.0);
    k.min_replica_count = Some(2);
    k.idle_replica_count = Some(0);
    assert_eq!(decide(&k, 5, 5, NOW).scale_to, Some(0));
    // Without idle and min > 0, KEDA leaves the count to the HPA.
    k.idle_replica_count = None;
    assert_eq!(decide(&k, 5, 5, NOW).scale_to, None);
    // ... and raises it to min when below.
    assert_eq!(decide(&k, 1, 1, NOW).scale_to, Some(2));
}

#[test]
fn paused_scale_in_keeps_the_count() {
    let mut k = value(0.0);
    k.pause_scale_in = true;
    assert_eq!(decide(&k, 3, 3, NOW).scale_to, None);
    let mut k = value(50.0);
    k.pause_scale_out = true;
    assert_eq!(decide(&k, 0, 0, NOW).scale_to, None);
}

#[test]
fn paused_holds_the_paused_replicas() {
    let mut k = value(50.0);
    k.paused = Some(Paused { replicas: Some(2) });
    let o = decide(&k, 7, 7, NOW);
    assert!(o.paused);
    assert_eq!(o.scale_to, Some(2));
}

fn failing(behavior: FallbackBehavior, failures: i32) -> KedaInput {
    let mut t = trigger(0, "rps", TriggerValue::Failed);
    t.failures = failures;
    let mut k = input(vec![t]);
    k.fallback = Some(Fallback {
        failure_threshold: 3,
        replicas: 6,
        behavior,
    });
    k
}

#[test]
fn failure_within_threshold_is_an_error_and_serves_nothing() {
    // 2 recorded + this one = 3, not more than 3.
    let o = decide(&failing(FallbackBehavior::Static, 2), 4, 4, NOW);
    assert!(o.error && !o.fallback_active);
    assert!(o.external.is_empty());
    assert_eq!(o.scale_to, None);
}

#[test]
fn fallback_serves_target_times_replicas() {
    let cases = [
        (FallbackBehavior::Static, 4, 600_000),
        (FallbackBehavior::CurrentReplicas, 4, 400_000),
        (FallbackBehavior::CurrentReplicasIfHigher, 4, 600_000),
        (FallbackBehavior::CurrentReplicasIfHigher, 9, 900_000),
        (FallbackBehavior::CurrentReplicasIfLower, 4, 400_000),
        (FallbackBehavior::CurrentReplicasIfLower, 9, 600_000),
    ];
    for (behavior, current, served) in cases {
        let o = decide(&failing(behavior, 3), current, current, NOW);
        assert!(o.fallback_active && o.active, "{behavior:?}");
        assert_eq!(o.external["s0-prometheus"], vec![served], "{behavior:?}");
        assert_eq!(codes(&o), ["KedaFallback"]);
    }
}

#[test]
fn fallback_with_a_value_target_divides_by_ready_pods() {
    let mut k = failing(FallbackBehavior::Static, 3);
    if let Some(t) = k.triggers.first_mut() {
        t.target = Some(ExternalTarget {
            milli: 100_000,
            value_type: true,
        });
    }
    let o = decide(&k, 4, 3, NOW);
    // 100 × 6 / 3 ready pods.
    assert_eq!(o.external["s0-prometheus"], vec![200_000]);
    let o = decide(&k, 4, 0, NOW);
    assert!(o.error);
}

#[test]
fn failing_without_fallback_does_nothing() {
    let k = input(vec![trigger(0, "rps", TriggerValue::Failed)]);
    let o = decide(&k, 0, 0, NOW);
    assert!(o.error && !o.active);
    assert_eq!(o.scale_to, None);
}

fn with_formula(text: &str, triggers: Vec<Trigger>) -> KedaInput {
    let names: Vec<&str> = triggers.iter().map(|t| t.name.as_str()).collect();
    let formula = parse(text, &names).unwrap();
    let mut k = input(triggers);
    k.modifiers = Some(Modifiers {
        text: text.into(),
        formula,
        target: 10.0,
        target_is_integer: true,
        activation_target: 2.0,
        value_type: false,
    });
    k
}

#[test]
fn formula_feeds_the_composite_metric_and_its_activation() {
    let k = with_formula(
        "(a + b) / 2",
        vec![
            trigger(0, "a", TriggerValue::Value(3.0)),
            trigger(1, "b", TriggerValue::Value(4.0)),
        ],
    );
    let o = decide(&k, 0, 0, NOW);
    assert_eq!(o.external.len(), 1);
    assert_eq!(o.external[COMPOSITE_METRIC], vec![3500]);
    assert!(o.active);
    assert_eq!(o.scale_to, Some(1));
    let k = with_formula(
        "a < 2 ? 1 : 0",
        vec![
            trigger(0, "a", TriggerValue::Value(3.0)),
            trigger(1, "b", TriggerValue::Value(400.0)),
        ],
    );
    let o = decide(&k, 0, 0, NOW);
    // 0 is not above activationTarget 2, although b alone is above its own threshold.
    assert!(!o.active);
}

#[test]
fn formula_nil_falls_back_to_replicas_times_target() {
    let mut failed = trigger(0, "a", TriggerValue::Failed);
    failed.failures = 5;
    let mut k = with_formula("a ?? nil", vec![failed]);
    k.fallback = Some(Fallback {
        failure_threshold: 3,
        replicas: 4,
        behavior: FallbackBehavior::ScalingModifiers,
    });
    let o = decide(&k, 2, 2, NOW);
    assert_eq!(o.external[COMPOSITE_METRIC], vec![40_000]);
    let mut k2 = with_formula(
        "(a ?? 0) + b",
        vec![
            trigger(0, "a", TriggerValue::Failed),
            trigger(1, "b", TriggerValue::Value(7.0)),
        ],
    );
    if let Some(t) = k2.triggers.first_mut() {
        t.failures = 5;
    }
    k2.fallback = k.fallback;
    let o = decide(&k2, 2, 2, NOW);
    assert_eq!(o.external[COMPOSITE_METRIC], vec![7000]);
}

#[test]
fn only_resource_triggers_are_always_active() {
    let mut t = trigger(0, "", TriggerValue::Resource);
    t.metric_name = None;
    t.target = None;
    let mut k = input(vec![t]);
    k.min_replica_count = Some(1);
    let o = decide(&k, 3, 3, NOW);
    assert!(o.active);
    assert_eq!(o.scale_to, None);
}

#[test]
fn force_activation_annotation_wakes_an_inactive_workload() {
    let mut k = value(0.0);
    k.force_activation = true;
    let o = decide(&k, 0, 0, NOW);
    assert!(!o.active);
    assert_eq!(o.scale_to, Some(1));
}

#[test]
fn exactly_at_zero_with_min_and_no_idle_active_sets_min() {
    let mut k = value(50.0);
    k.min_replica_count = Some(4);
    assert_eq!(decide(&k, 0, 0, NOW).scale_to, Some(4));
}

#[test]
fn the_fallback_value_multiplies_in_gos_order() {
    // doFallback: int64(normalisationValue*1000*replicas). 0.7 × 1000 × 3 = 2100, where
    // 0.7 × 3 × 1000 would truncate to 2099.
    let (milli, replicas) = fallback_value(FallbackBehavior::Static, 3, 1, 1, false, 0.7).unwrap();
    assert_eq!((milli, replicas), (2100, 3.0));
    assert_eq!(truncate_milli(0.7 * 3.0), 2099);
}
