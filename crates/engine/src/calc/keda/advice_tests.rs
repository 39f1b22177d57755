//! Each fix checked both ways: offered with the count it gives when the engine shows it helps,
//! and not offered when it does not.

use crate::calc::evaluate;
use crate::calc::keda::status::tests::{METRIC, so};
use crate::calc::testing::{external, scenario};
use crate::report::Diagnostic;
use crate::scenario::Scenario;
use crate::scenario::keda::TriggerValue;

fn at_max(s: &Scenario) -> Diagnostic {
    let r = evaluate(s);
    (r.diagnostics.iter())
        .find(|d| d.code == "AtMaxReplicas")
        .cloned()
        .unwrap_or_else(|| panic!("no AtMaxReplicas in {:#?}", r.diagnostics))
}

#[test]
fn a_tiny_threshold_pinning_max_gets_the_threshold_checked_forward() {
    // 900 of lag over lagThreshold 10: 90 replicas asked, maxReplicaCount 10.
    let s = so(8, 10, TriggerValue::Value(900.0), false);
    let d = at_max(&s);
    assert_eq!(
        d.fix,
        "raise trigger 'orders' (s0, kafka) metadata.lagThreshold from 10 to 90 → 10 replicas; \
         or, if the load needs them, raise spec.maxReplicaCount to 90 → 16 replicas"
    );
    // From 5 the rate limit allows 10 at most: a higher max does not move it, and is not
    // offered as a fix; the threshold is.
    let s = so(5, 10, TriggerValue::Value(900.0), false);
    let d = at_max(&s);
    assert!(
        d.fix.starts_with(
            "raise trigger 'orders' (s0, kafka) metadata.lagThreshold from 10 to 90 → 10 \
             replicas (a higher spec.maxReplicaCount does not move it"
        ),
        "{}",
        d.fix
    );
    assert!(
        !d.fix.contains("raise spec.maxReplicaCount to"),
        "{}",
        d.fix
    );
}

#[test]
fn the_threshold_is_not_offered_when_another_metric_also_pins_max() {
    let mut s = so(5, 10, TriggerValue::Value(900.0), false);
    // A second External metric (not a trigger) asking 90 as well: no threshold of the trigger
    // brings the count under max.
    s.hpa.metrics.push(external("queue", None, Some(10_000)));
    s.metrics.external.insert(1, vec![900_000]);
    let d = at_max(&s);
    assert!(!d.fix.contains("raise trigger"), "{}", d.fix);
}

#[test]
fn a_value_target_that_runs_away_gets_no_raise_max_but_the_threshold() {
    // Value 200 over a Value target of 100 at 4 ready pods: 8 asked, max 6; at 8 it asks 16.
    let mut s = so(4, 100, TriggerValue::Value(200.0), true);
    s.hpa.max_replicas = 6;
    s.keda.as_mut().unwrap().max_replica_count = 6;
    let d = at_max(&s);
    assert!(
        d.fix.starts_with(
            "raise trigger 'orders' (s0, kafka) metadata.lagThreshold from 100 to 200 → 4 \
             replicas; or metricType AverageValue"
        ),
        "{}",
        d.fix
    );
    assert!(d.fix.contains("see ValueTargetRunaway"), "{}", d.fix);
    assert!(
        !d.fix.contains("raise spec.maxReplicaCount to"),
        "{}",
        d.fix
    );
}

#[test]
fn raise_max_is_not_offered_for_a_value_target_that_runs_away_and_is_for_average_value() {
    // A plain HPA: External Value target 100, value 200, 4 pods, max 6.
    let mut s = scenario(vec![external(METRIC, Some(100_000), None)], 4, 100);
    s.hpa.max_replicas = 6;
    s.metrics.external.insert(0, vec![200_000]);
    let d = at_max(&s);
    assert!(d.fix.starts_with("see ValueTargetRunaway"), "{}", d.fix);
    assert!(!d.fix.contains("raise maxReplicas"), "{}", d.fix);
    // The same value over an AverageValue target of 25 per pod: 8 asked, and 8 is where it
    // stays: raising max is offered.
    let mut s = scenario(vec![external(METRIC, None, Some(25_000))], 4, 100);
    s.hpa.max_replicas = 6;
    s.metrics.external.insert(0, vec![200_000]);
    let d = at_max(&s);
    assert!(
        d.fix.starts_with("raise maxReplicas to 8 → 8 replicas"),
        "{}",
        d.fix
    );
}

#[test]
fn a_cpu_trigger_pinning_max_gets_its_value_checked_and_not_when_it_cannot_help() {
    use crate::calc::testing::cpu_utilization;
    use crate::scenario::keda::Trigger;
    // A cpu trigger (Utilization 50) at 150 % on 4 pods asks 12; maxReplicaCount 6.
    let mut s = so(4, 10, TriggerValue::Value(0.0), false);
    s.hpa.metrics = vec![cpu_utilization(50)];
    s.hpa.max_replicas = 6;
    s.metrics = scenario(vec![cpu_utilization(50)], 4, 1500).metrics;
    let k = s.keda.as_mut().unwrap();
    k.max_replica_count = 6;
    k.triggers = vec![Trigger {
        index: 0,
        scaler: "cpu".into(),
        name: "cpu".into(),
        metric_name: None,
        activation: 0.0,
        activation_source: "always active (cpu and memory)".into(),
        target: None,
        value: TriggerValue::Resource,
        active_value: None,
        failures: 0,
        threshold_key: Some("value".into()),
        threshold_integer: true,
    }];
    let d = at_max(&s);
    assert!(
        d.fix.starts_with(
            "raise trigger 'cpu' (s0, cpu) metadata.value from 50 to 100 → 6 replicas"
        ),
        "{}",
        d.fix
    );
    // Without a key to name (a cron trigger's target is always 1), no trigger fix.
    s.keda.as_mut().unwrap().triggers[0].threshold_key = None;
    let d = at_max(&s);
    assert!(!d.fix.contains("raise trigger"), "{}", d.fix);
}

/// The ScaledObject `orders` whose scalingModifiers formula `orders * 1` feeds the HPA's one
/// composite metric (AverageValue target `target`), at `current` replicas, max `max`; the kafka
/// trigger serves `value`.
fn composite(current: usize, max: i32, target: f64, value: f64) -> Scenario {
    use crate::scenario::keda::{COMPOSITE_METRIC, Modifiers};
    let mut s = so(current, 10, TriggerValue::Value(value), false);
    #[allow(clippy::cast_possible_truncation)]
    let milli = (target * 1000.0) as i64;
    s.hpa.metrics = vec![external(COMPOSITE_METRIC, None, Some(milli))];
    s.metrics.external.clear();
    s.hpa.max_replicas = max;
    let k = s.keda.as_mut().unwrap();
    k.max_replica_count = max;
    k.modifiers = Some(Modifiers {
        text: "orders * 1".into(),
        formula: crate::formula::parse("orders * 1", &["orders"]).unwrap(),
        target,
        target_is_integer: target.fract() == 0.0,
        activation_target: 0.0,
        value_type: false,
    });
    s
}

#[test]
fn a_composite_metric_pinning_max_gets_the_modifiers_target_checked_forward() {
    // 36 over target 2: 18 asked, maxReplicaCount 10; from 8 a higher max would give 16.
    let s = composite(8, 10, 2.0, 36.0);
    let r = evaluate(&s);
    assert_eq!(r.desired_replicas, 10);
    let d = at_max(&s);
    assert_eq!(
        d.fix,
        "raise advanced.scalingModifiers.target from 2 to 4 → 9 replicas; or, if the load needs \
         them, raise spec.maxReplicaCount to 18 → 16 replicas"
    );
    // The fix run as a what-if gives the count the sentence says.
    let idx = 0;
    let changed = super::with_modifiers_target(&s, idx, 4.0).unwrap();
    assert_eq!(evaluate(&changed).desired_replicas, 9);
}

#[test]
fn a_composite_metric_where_a_higher_max_does_not_move_the_count_gets_only_the_target() {
    // From 2 the legacy limit allows 4 at most: max 4 is not what holds the count.
    let s = composite(2, 4, 2.0, 36.0);
    let d = at_max(&s);
    assert!(
        d.fix.starts_with(
            "raise advanced.scalingModifiers.target from 2 to 9 → 4 replicas (a higher \
             spec.maxReplicaCount does not move it"
        ),
        "{}",
        d.fix
    );
    assert!(
        !d.fix.contains("raise spec.maxReplicaCount to"),
        "{}",
        d.fix
    );
}

#[test]
fn no_modifiers_target_is_offered_when_the_composite_metric_does_not_pin_max() {
    // 12 over 2 asks 6, within max 10: nothing pins max, nothing to raise.
    let s = composite(4, 10, 2.0, 12.0);
    let r = evaluate(&s);
    assert!(
        (r.diagnostics.iter()).all(|d| !d.fix.contains("scalingModifiers.target")),
        "{:#?}",
        r.diagnostics
    );
}
