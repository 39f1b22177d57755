//! `normalization.json`: the cases of `horizontal_test.go` (stabilization, rate limits, scale-event
//! storage, `buildQuantity`) and `defaults_test.go` (behavior defaulting), run through
//! `hpacalc::calc::normalize`, `hpacalc::quantity` and the manifest defaulting.

use hpacalc::calc::normalize::{
    LegacyLimits, Limited, NormalizationArg, calculate_scale_down_limit_with_behaviors,
    calculate_scale_up_limit_with_scaling_rules, convert_desired_replicas_with_behavior_rate,
    convert_desired_replicas_with_rules, replicas_change_per_period, stabilize_recommendation,
    stabilize_recommendation_with_behaviors, store_scale_event,
};
use hpacalc::input::manifest::load;
use hpacalc::quantity::{Format, build_quantity, build_quantity_format, format_milli, parse_milli};
use hpacalc::scenario::{
    Behavior, ControllerMemory, PolicyType, Recommendation, ScaleEvent, ScalingPolicy,
    ScalingRules, SelectPolicy,
};
use hpacalc::time::{Duration, Timestamp};
use serde_json::Value;

use super::{
    Check, ago, array, boolean, float, get, int, int32, opt_int, opt_int32, opt_text, text,
};

/// The test's `now`; every age in the vectors is before it.
const NOW: Timestamp = Timestamp(0);

pub fn run(v: &Value) -> Check {
    let id = text(v, "id");
    // Ids read `normalization/<Go test>/<subtest>`.
    let test = id.split('/').nth(1).unwrap_or_default();
    let inputs = get(v, "inputs");
    let expected = get(v, "expected");
    match test {
        "TestConvertDesiredReplicasWithRules" => legacy_rules(inputs, expected),
        "TestCalculateScaleUpLimitWithScalingRules" => {
            scale_limit(inputs, expected, "scaleUpLimit")
        }
        "TestCalculateScaleDownLimitWithBehaviors" => {
            scale_limit(inputs, expected, "scaleDownLimit")
        }
        "TestNormalizeDesiredReplicas" => legacy_stabilization(inputs, expected),
        "TestScalingWithRules" => behavior_rate(inputs, expected),
        "TestStoreScaleEvents" => store_events(inputs, expected),
        "TestNormalizeDesiredReplicasWithBehavior" => behavior_stabilization(inputs, expected),
        "TestBuildQuantity" => build_quantity_vector(inputs, expected),
        "TestGenerateScaleUpRules" | "TestGenerateScaleDownRules" => {
            defaulting(test, inputs, expected)
        }
        other => {
            let mut check = Check::default();
            check.fail(format!("harness: unknown test {other:?}"));
            check
        }
    }
}

fn select_policy(name: Option<&str>) -> SelectPolicy {
    match name {
        // Only the scale-event vectors leave it unset, and storing an event does not read it.
        None | Some("Max") => SelectPolicy::Max,
        Some("Min") => SelectPolicy::Min,
        Some("Disabled") => SelectPolicy::Disabled,
        Some(other) => panic!("unknown selectPolicy {other:?}"),
    }
}

fn policy_type(name: &str) -> PolicyType {
    match name {
        "Pods" => PolicyType::Pods,
        "Percent" => PolicyType::Percent,
        other => panic!("unknown policy type {other:?}"),
    }
}

fn policies(rules: &Value) -> Vec<ScalingPolicy> {
    array(rules, "policies")
        .iter()
        .map(|p| ScalingPolicy {
            policy_type: policy_type(text(p, "type")),
            value: int32(p, "value"),
            period_seconds: int32(p, "periodSeconds"),
        })
        .collect()
}

/// One `HPAScalingRules`, as the vector gives it (already defaulted where the Go test defaults).
fn rules(r: &Value) -> ScalingRules {
    ScalingRules {
        stabilization_window_seconds: opt_int32(r, "stabilizationWindowSeconds"),
        select_policy: select_policy(opt_text(r, "selectPolicy")),
        policies: policies(r),
        tolerance: r.get("tolerance").and_then(Value::as_f64),
    }
}

/// Rules for a direction the Go test leaves nil; the function under test never reads them.
fn unread_rules() -> ScalingRules {
    ScalingRules {
        stabilization_window_seconds: None,
        select_policy: SelectPolicy::Max,
        policies: Vec::new(),
        tolerance: None,
    }
}

fn direction(behavior: &Value, key: &str) -> ScalingRules {
    match behavior.get(key) {
        None | Some(Value::Null) => unread_rules(),
        Some(r) => rules(r),
    }
}

fn behavior(inputs: &Value) -> Option<Behavior> {
    match inputs.get("behavior") {
        None | Some(Value::Null) => None,
        Some(b) => Some(Behavior {
            scale_up: direction(b, "scaleUp"),
            scale_down: direction(b, "scaleDown"),
        }),
    }
}

fn events(inputs: &Value, key: &str) -> Vec<ScaleEvent> {
    array(inputs, key)
        .iter()
        .map(|e| ScaleEvent {
            replica_change: int32(e, "replicaChange"),
            timestamp: ago(NOW, int(e, "age_s")),
            outdated: boolean(e, "outdated"),
        })
        .collect()
}

fn memory(inputs: &Value) -> ControllerMemory {
    ControllerMemory {
        recommendations: array(inputs, "recommendations")
            .iter()
            .map(|r| Recommendation {
                replicas: int32(r, "replicas"),
                timestamp: ago(NOW, int(r, "age_s")),
            })
            .collect(),
        scale_up_events: events(inputs, "scaleUpEvents"),
        scale_down_events: events(inputs, "scaleDownEvents"),
    }
}

fn compare_limited(check: &mut Check, expected: &Value, got: &Limited) {
    check.eq(
        "desiredReplicas",
        int32(expected, "desiredReplicas"),
        got.replicas,
    );
    check.eq("reason", text(expected, "reason"), got.reason);
    check.only_keys(expected, &["desiredReplicas", "reason"]);
}

/// `convertDesiredReplicasWithRules` with the package's `scaleUpLimitFactor` (8 in these tests).
fn legacy_rules(inputs: &Value, expected: &Value) -> Check {
    let got = convert_desired_replicas_with_rules(
        int32(inputs, "currentReplicas"),
        int32(inputs, "prenormalizedDesiredReplicas"),
        int32(inputs, "minReplicas"),
        int32(inputs, "maxReplicas"),
        LegacyLimits {
            factor: float(inputs, "scaleUpLimitFactor"),
            minimum: float(inputs, "scaleUpLimitMinimum"),
        },
    );
    let mut check = Check::default();
    compare_limited(&mut check, expected, &got);
    check
}

/// `calculateScaleUpLimitWithScalingRules` / `calculateScaleDownLimitWithBehaviors`.
fn scale_limit(inputs: &Value, expected: &Value, key: &str) -> Check {
    let memory = memory(inputs);
    let rules = rules(get(inputs, "rules"));
    let current = int32(inputs, "currentReplicas");
    let got = if key == "scaleUpLimit" {
        calculate_scale_up_limit_with_scaling_rules(current, &memory, &rules, NOW)
    } else {
        calculate_scale_down_limit_with_behaviors(current, &memory, &rules, NOW)
    };
    let mut check = Check::default();
    check.eq(key, int32(expected, key), got);
    check.only_keys(expected, &[key]);
    check
}

/// `stabilizeRecommendation`: the result and the length of the stored list.
fn legacy_stabilization(inputs: &Value, expected: &Value) -> Check {
    let mut memory = memory(inputs);
    let got = stabilize_recommendation(
        &mut memory,
        NOW,
        Duration::from_secs(int(inputs, "downscaleStabilizationWindowSeconds")),
        int32(inputs, "prenormalizedDesiredReplicas"),
    );
    let mut check = Check::default();
    check.eq(
        "stabilizedReplicas",
        int32(expected, "stabilizedReplicas"),
        got,
    );
    check.eq(
        "recommendationsLength",
        int(expected, "recommendationsLength"),
        i64::try_from(memory.recommendations.len()).unwrap_or(i64::MAX),
    );
    check.only_keys(expected, &["stabilizedReplicas", "recommendationsLength"]);
    check
}

/// `convertDesiredReplicasWithBehaviorRate` on the prenormalized value.
fn behavior_rate(inputs: &Value, expected: &Value) -> Check {
    let memory = memory(inputs);
    let Some(behavior) = behavior(inputs) else {
        let mut check = Check::default();
        check.fail("harness: a rate-limit vector without a behavior".into());
        return check;
    };
    let arg = NormalizationArg {
        scale_up: &behavior.scale_up,
        scale_down: &behavior.scale_down,
        min_replicas: int32(inputs, "minReplicas"),
        max_replicas: int32(inputs, "maxReplicas"),
        current_replicas: int32(inputs, "currentReplicas"),
        desired_replicas: int32(inputs, "prenormalizedDesiredReplicas"),
    };
    let got = convert_desired_replicas_with_behavior_rate(&memory, NOW, &arg);
    let mut check = Check::default();
    compare_limited(&mut check, expected, &got);
    check
}

fn event_list(events: &[ScaleEvent]) -> Vec<(i32, bool)> {
    events
        .iter()
        .map(|e| (e.replica_change, e.outdated))
        .collect()
}

/// `getReplicasChangePerPeriod(60, events)` then `storeScaleEvent`, one direction.
fn store_events(inputs: &Value, expected: &Value) -> Check {
    let key = match text(inputs, "direction") {
        "up" => "scaleUpEvents",
        "down" => "scaleDownEvents",
        other => panic!("unknown direction {other:?}"),
    };
    let mut memory = memory(inputs);
    let before = if key == "scaleUpEvents" {
        replicas_change_per_period(60, &memory.scale_up_events, NOW)
    } else {
        replicas_change_per_period(60, &memory.scale_down_events, NOW)
    };
    let behavior = behavior(inputs);
    store_scale_event(
        &mut memory,
        behavior.as_ref(),
        int32(inputs, "prevReplicas"),
        int32(inputs, "newReplicas"),
        NOW,
    );
    let after = if key == "scaleUpEvents" {
        &memory.scale_up_events
    } else {
        &memory.scale_down_events
    };
    let want: Vec<(i32, bool)> = array(expected, key)
        .iter()
        .map(|e| (int32(e, "replicaChange"), boolean(e, "outdated")))
        .collect();
    let mut check = Check::default();
    check.eq(
        "replicasChangeInLast60sBeforeStore",
        int32(expected, "replicasChangeInLast60sBeforeStore"),
        before,
    );
    check.eq(key, want, event_list(after));
    check.only_keys(expected, &["replicasChangeInLast60sBeforeStore", key]);
    check
}

/// `stabilizeRecommendationWithBehaviors`: the result and the stored replica values in order.
fn behavior_stabilization(inputs: &Value, expected: &Value) -> Check {
    let mut memory = memory(inputs);
    let up_window = int32(inputs, "scaleUpStabilizationWindowSeconds");
    let down_window = int32(inputs, "scaleDownStabilizationWindowSeconds");
    // The Go test sets only the windows on the rules, and min/max stay 0.
    let scale_up = ScalingRules {
        stabilization_window_seconds: Some(up_window),
        ..unread_rules()
    };
    let scale_down = ScalingRules {
        stabilization_window_seconds: Some(down_window),
        ..unread_rules()
    };
    let arg = NormalizationArg {
        scale_up: &scale_up,
        scale_down: &scale_down,
        min_replicas: 0,
        max_replicas: 0,
        current_replicas: int32(inputs, "currentReplicas"),
        desired_replicas: int32(inputs, "prenormalizedDesiredReplicas"),
    };
    let got =
        stabilize_recommendation_with_behaviors(&mut memory, NOW, &arg, up_window, down_window);
    let mut check = Check::default();
    check.eq(
        "stabilizedReplicas",
        int32(expected, "stabilizedReplicas"),
        got.replicas,
    );
    if expected.get("recommendationsAfter").is_some() {
        let want: Vec<i32> = array(expected, "recommendationsAfter")
            .iter()
            .map(|r| i32::try_from(r.as_i64().unwrap_or(i64::MIN)).unwrap_or(i32::MIN))
            .collect();
        let got: Vec<i32> = memory.recommendations.iter().map(|r| r.replicas).collect();
        check.eq("recommendationsAfter", want, got);
    }
    check.only_keys(expected, &["stabilizedReplicas", "recommendationsAfter"]);
    check
}

/// `buildQuantity`: `NewMilliQuantity(raw, BinarySI for memory else DecimalSI)`. The Go test
/// compares the value (`Quantity.Equal`) and the format; here hpacalc's `build_quantity` is
/// compared with the expected quantity printed in the expected format, and parsed back by value.
fn build_quantity_vector(inputs: &Value, expected: &Value) -> Check {
    let raw = int(inputs, "rawProposalMilli");
    let resource = text(inputs, "resourceName");
    let format = build_quantity_format(resource);
    let want = get(expected, "quantity");
    let want_milli = match (opt_int(want, "milliValue"), opt_int(want, "value")) {
        (Some(milli), _) => milli,
        (None, Some(units)) => units * 1000,
        (None, None) => panic!("quantity has neither value nor milliValue"),
    };
    let want_format = match text(want, "format") {
        "BinarySI" => Format::BinarySI,
        "DecimalSI" => Format::DecimalSI,
        "DecimalExponent" => Format::DecimalExponent,
        other => panic!("unknown format {other:?}"),
    };
    let printed = build_quantity(resource, raw);
    let mut check = Check::default();
    check.eq("quantity.format", want_format, format);
    check.eq(
        "quantity (printed)",
        format_milli(want_milli, want_format),
        printed.clone(),
    );
    check.eq(
        &format!("quantity ({printed:?} parsed back, milli)"),
        Ok(want_milli),
        parse_milli(&printed).map_err(|e| e.to_string()),
    );
    check.only_keys(expected, &["quantity"]);
    check
}

/// `GenerateHPAScaleUpRules` / `GenerateHPAScaleDownRules`, through the public manifest loader:
/// an `autoscaling/v2` HPA whose behavior holds only the vector's rules (unset fields omitted,
/// as a nil pointer is), read back from the defaulted `HpaSpec`.
fn defaulting(test: &str, inputs: &Value, expected: &Value) -> Check {
    let (key, pick): (&str, fn(&Behavior) -> &ScalingRules) = if test == "TestGenerateScaleUpRules"
    {
        ("scaleUp", |b| &b.scale_up)
    } else {
        ("scaleDown", |b| &b.scale_down)
    };
    let given: serde_json::Map<String, Value> = get(inputs, "rules")
        .as_object()
        .unwrap_or_else(|| panic!("`rules` is not an object"))
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let manifest = serde_json::json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "conformance", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "app"},
            "minReplicas": 1,
            "maxReplicas": 10,
            "behavior": {key: given},
        },
    });
    let mut check = Check::default();
    let loaded = match load("conformance.json", &manifest.to_string(), None) {
        Ok(loaded) => loaded,
        Err(e) => {
            check.fail(format!("the manifest loader refused the rules: {e}"));
            return check;
        }
    };
    let Some(behavior) = loaded.spec.behavior.as_ref() else {
        check.fail("the loaded spec has no behavior".into());
        return check;
    };
    let got = pick(behavior);
    let want_policies: Vec<(PolicyType, i32, i32)> = array(expected, "policies")
        .iter()
        .map(|p| {
            (
                policy_type(text(p, "type")),
                int32(p, "value"),
                int32(p, "periodSeconds"),
            )
        })
        .collect();
    let got_policies: Vec<(PolicyType, i32, i32)> = got
        .policies
        .iter()
        .map(|p| (p.policy_type, p.value, p.period_seconds))
        .collect();
    check.eq("policies", want_policies, got_policies);
    check.eq(
        "stabilizationWindowSeconds",
        opt_int32(expected, "stabilizationWindowSeconds"),
        got.stabilization_window_seconds,
    );
    check.eq(
        "selectPolicy",
        select_policy(Some(text(expected, "selectPolicy"))),
        got.select_policy,
    );
    check.only_keys(
        expected,
        &["policies", "stabilizationWindowSeconds", "selectPolicy"],
    );
    check
}
