//! One test per translation rule of `controllers/keda/hpa.go`, the webhook and `resolve`.

use serde_json::{Value, json};

use super::*;

fn so(spec: Value) -> Value {
    json!({
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "worker", "namespace": "jobs"},
        "spec": spec,
    })
}

fn prom(threshold: &str) -> Value {
    json!({"type": "prometheus", "name": "rps", "metadata": {
        "serverAddress": "http://p:9090", "query": "sum(x)", "threshold": threshold}})
}

fn ok(spec: Value) -> Translated {
    translate(&so(spec), &mut |_, _| {}).unwrap()
}

fn error(spec: Value) -> FieldError {
    translate(&so(spec), &mut |_, _| {}).unwrap_err()
}

fn metrics(t: &Translated) -> &Vec<Value> {
    t.hpa["spec"]["metrics"].as_array().unwrap()
}

#[test]
fn name_is_keda_hpa_prefix_or_the_advanced_name() {
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    assert_eq!(t.hpa["metadata"]["name"], "keda-hpa-worker");
    assert_eq!(t.hpa["apiVersion"], "autoscaling/v2");
    let t = ok(
        json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")],
        "advanced": {"horizontalPodAutoscalerConfig": {"name": "custom"}}}),
    );
    assert_eq!(t.hpa["metadata"]["name"], "custom");
}

#[test]
fn bounds_min_at_least_one_max_default_100() {
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    assert_eq!(t.hpa["spec"]["minReplicas"], 1);
    assert_eq!(t.hpa["spec"]["maxReplicas"], 100);
    let t = ok(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 3,
        "maxReplicaCount": 7, "triggers": [prom("10")]}),
    );
    assert_eq!(t.hpa["spec"]["minReplicas"], 3);
    assert_eq!(t.hpa["spec"]["maxReplicas"], 7);
    assert_eq!(t.keda.input.min_replica_count, Some(3));
}

#[test]
fn target_defaults_to_apps_v1_deployment() {
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    assert_eq!(
        t.hpa["spec"]["scaleTargetRef"],
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "w"})
    );
}

#[test]
fn cpu_and_memory_become_resource_or_container_resource() {
    let t = ok(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1, "triggers": [
        {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}},
        {"type": "memory", "metricType": "AverageValue",
         "metadata": {"value": "512Mi", "containerName": "app"}}]}),
    );
    let m = metrics(&t);
    assert_eq!(m[0]["type"], "ContainerResource");
    assert_eq!(m[0]["containerResource"]["target"]["averageValue"], "512Mi");
    assert_eq!(m[1]["type"], "Resource");
    assert_eq!(m[1]["resource"]["target"]["averageUtilization"], 60);
}

#[test]
fn cpu_needs_metric_type_and_rejects_the_removed_type_key() {
    let e = error(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1,
        "triggers": [{"type": "cpu", "metadata": {"value": "60"}}]}),
    );
    assert!(e.message.contains("Utilization or AverageValue"), "{e:?}");
    let e = error(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1,
        "triggers": [{"type": "cpu", "metricType": "Utilization",
                      "metadata": {"value": "60", "type": "Utilization"}}]}),
    );
    assert!(e.message.contains("v2.18"), "{e:?}");
}

#[test]
fn external_name_index_scaler_suffix_and_selector() {
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [
        prom("10"),
        {"type": "kafka", "metadata": {"bootstrapServers": "k:9092", "consumerGroup": "g",
                                       "topic": "orders.v1", "lagThreshold": "50"}}]}));
    let m = metrics(&t);
    assert_eq!(m[0]["external"]["metric"]["name"], "s0-prometheus");
    assert_eq!(m[1]["external"]["metric"]["name"], "s1-kafka-orders-v1");
    assert_eq!(
        m[1]["external"]["metric"]["selector"]["matchLabels"][OWNER_LABEL],
        "worker"
    );
    assert_eq!(m[1]["external"]["target"]["averageValue"], "50");
}

#[test]
fn milli_thresholds_print_as_quantities() {
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("2.5")]}));
    assert_eq!(
        metrics(&t)[0]["external"]["target"]["averageValue"],
        "2500m"
    );
    assert_eq!(t.keda.input.triggers[0].target.unwrap().milli, 2500);
}

#[test]
fn metric_type_value_and_utilization_rejected_for_external() {
    let mut p = prom("10");
    p["metricType"] = json!("Value");
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [p]}));
    assert_eq!(
        metrics(&t)[0]["external"]["target"],
        json!({"type": "Value", "value": "10"})
    );
    let mut p = prom("10");
    p["metricType"] = json!("Utilization");
    let e = error(json!({"scaleTargetRef": {"name": "w"}, "triggers": [p]}));
    assert!(e.message.contains("unsupported for external"), "{e:?}");
    assert_eq!(e.path.to_string(), "spec.triggers[0].metricType");
}

#[test]
fn metrics_sorted_by_type_container_resource_external_resource() {
    let t = ok(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1, "triggers": [
        {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}},
        prom("10"),
        {"type": "memory", "metricType": "Utilization",
         "metadata": {"value": "70", "containerName": "app"}}]}),
    );
    let types: Vec<&str> = metrics(&t)
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["ContainerResource", "External", "Resource"]);
    // Errors in spec.metrics[i] point back at the trigger.
    assert_eq!(t.metric_sources[2].to_string(), "spec.triggers[0]");
}

#[test]
fn behavior_copied_and_paused_scale_in_out_disable_policies() {
    let spec = json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")],
        "advanced": {"horizontalPodAutoscalerConfig": {"behavior":
            {"scaleDown": {"stabilizationWindowSeconds": 60}}}}});
    let t = ok(spec.clone());
    assert_eq!(
        t.hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"],
        60
    );
    let mut o = so(spec);
    o["metadata"]["annotations"] = json!({
        "autoscaling.keda.sh/paused-scale-in": "true",
        "autoscaling.keda.sh/paused-scale-out": "yes"});
    let t = translate(&o, &mut |_, _| {}).unwrap();
    let b = &t.hpa["spec"]["behavior"];
    assert_eq!(b["scaleDown"]["selectPolicy"], "Disabled");
    assert_eq!(b["scaleDown"]["stabilizationWindowSeconds"], 60);
    // getBoolAnnotation: a value ParseBool refuses counts as true.
    assert_eq!(b["scaleUp"]["selectPolicy"], "Disabled");
    assert!(t.keda.input.pause_scale_in && t.keda.input.pause_scale_out);
}

#[test]
fn paused_annotations() {
    let mut o = so(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    o["metadata"]["annotations"] = json!({"autoscaling.keda.sh/paused-replicas": "2"});
    let t = translate(&o, &mut |_, _| {}).unwrap();
    assert_eq!(t.keda.input.paused, Some(Paused { replicas: Some(2) }));
    o["metadata"]["annotations"] = json!({"autoscaling.keda.sh/paused": "false"});
    let t = translate(&o, &mut |_, _| {}).unwrap();
    assert_eq!(t.keda.input.paused, None);
}

#[test]
fn labels_copied_minus_excluded_plus_keda_labels() {
    let mut o = so(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    o["metadata"]["labels"] = json!({"team": "a", "secret": "x"});
    o["metadata"]["annotations"] = json!({EXCLUDED_LABELS_ANNOTATION: "secret"});
    let t = translate(&o, &mut |_, _| {}).unwrap();
    let labels = &t.hpa["metadata"]["labels"];
    assert_eq!(labels["team"], "a");
    assert!(labels.get("secret").is_none());
    assert_eq!(labels["app.kubernetes.io/managed-by"], "keda-operator");
}

#[test]
fn webhook_replica_bounds() {
    let e = error(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 5,
        "maxReplicaCount": 3, "triggers": [prom("10")]}),
    );
    assert_eq!(e.path.to_string(), "spec.minReplicaCount");
    let e = error(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 2,
        "idleReplicaCount": 2, "triggers": [prom("10")]}),
    );
    assert_eq!(e.path.to_string(), "spec.idleReplicaCount");
    // idle needs min set above it: with min unset (0), any idle is refused.
    assert!(
        translate(
            &so(
                json!({"scaleTargetRef": {"name": "w"}, "idleReplicaCount": 0,
                       "triggers": [prom("10")]})
            ),
            &mut |_, _| {}
        )
        .is_err()
    );
    ok(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1, "idleReplicaCount": 0,
              "triggers": [prom("10")]}),
    );
}

#[test]
fn webhook_names_at_most_63_characters() {
    let long = "a".repeat(56);
    let mut o = so(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    o["metadata"]["name"] = json!(long);
    let e = translate(&o, &mut |_, _| {}).unwrap_err();
    assert!(e.message.contains("keda-hpa-"), "{e:?}");
    o["metadata"]["name"] = json!("b".repeat(64));
    let e = translate(&o, &mut |_, _| {}).unwrap_err();
    assert_eq!(e.path.to_string(), "metadata.name");
}

#[test]
fn duplicate_trigger_names_are_errors_metric_names_differ_by_index() {
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [
        {"type": "redis", "metadata": {"address": "r:6379", "listName": "jobs"}},
        {"type": "redis", "metadata": {"address": "r:6379", "listName": "jobs"}}]}));
    let m = metrics(&t);
    assert_eq!(m[0]["external"]["metric"]["name"], "s0-redis-jobs");
    assert_eq!(m[1]["external"]["metric"]["name"], "s1-redis-jobs");
    let e = error(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("1"), prom("2")]}));
    assert!(e.message.contains("trigger name \"rps\""), "{e:?}");
}

#[test]
fn only_cpu_memory_with_min_zero_is_refused() {
    let e = error(json!({"scaleTargetRef": {"name": "w"}, "triggers": [
        {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}]}));
    assert!(e.message.contains("scale to zero"), "{e:?}");
}

#[test]
fn fallback_needs_a_non_resource_trigger_and_modifiers_for_its_behavior() {
    let e = error(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1,
        "fallback": {"failureThreshold": 3, "replicas": 5},
        "triggers": [{"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}}]}),
    );
    assert_eq!(e.path.to_string(), "spec.fallback");
    let e = error(json!({"scaleTargetRef": {"name": "w"},
        "fallback": {"failureThreshold": 3, "replicas": 5, "behavior": "scalingModifiers"},
        "triggers": [prom("10")]}));
    assert!(e.message.contains("formula"), "{e:?}");
    let t = ok(json!({"scaleTargetRef": {"name": "w"},
        "fallback": {"failureThreshold": 3, "replicas": 5, "behavior": "currentReplicasIfHigher"},
        "triggers": [prom("10")]}));
    assert_eq!(
        t.keda.input.fallback.unwrap().behavior,
        FallbackBehavior::CurrentReplicasIfHigher
    );
}

#[test]
fn scaling_modifiers_keep_resource_specs_and_add_the_composite_metric() {
    let mut queue = json!({"type": "rabbitmq", "name": "queue",
        "metadata": {"queueName": "q", "mode": "QueueLength", "value": "20"}});
    queue["metricType"] = json!("AverageValue");
    let t = ok(
        json!({"scaleTargetRef": {"name": "w"}, "minReplicaCount": 1,
        "advanced": {"scalingModifiers": {"formula": "rps + queue", "target": "2.5",
                                          "activationTarget": "1"}},
        "triggers": [
            prom("10"), queue,
            {"type": "cpu", "metricType": "Utilization", "metadata": {"value": "60"}},
            {"type": "memory", "metricType": "Utilization",
             "metadata": {"value": "60", "containerName": "app"}}]}),
    );
    let m = metrics(&t);
    assert_eq!(m.len(), 2, "{m:?}");
    assert_eq!(m[0]["type"], "Resource");
    assert_eq!(m[1]["external"]["metric"]["name"], COMPOSITE_METRIC);
    assert_eq!(m[1]["external"]["target"]["averageValue"], "2500m");
    let modifiers = t.keda.input.modifiers.unwrap();
    assert_eq!(modifiers.activation_target, 1.0);
    assert!(!modifiers.target_is_integer);
}

#[test]
fn scaling_modifiers_validation() {
    let e = error(json!({"scaleTargetRef": {"name": "w"},
        "advanced": {"scalingModifiers": {"formula": "rps * 2"}}, "triggers": [prom("10")]}));
    assert!(e.message.contains("target is empty"), "{e:?}");
    let e = error(json!({"scaleTargetRef": {"name": "w"},
        "advanced": {"scalingModifiers": {"formula": "nope * 2", "target": "5"}},
        "triggers": [prom("10")]}));
    assert!(e.message.contains("unknown name `nope`"), "{e:?}");
    let e = error(json!({"scaleTargetRef": {"name": "w"},
        "advanced": {"scalingModifiers": {"formula": "rps", "target": "0"}},
        "triggers": [prom("10")]}));
    assert_eq!(e.path.to_string(), "spec.advanced.scalingModifiers.target");
}

#[test]
fn scaling_modifiers_trial_run_refuses_type_errors() {
    for formula in ["rps ? 1 : 2", "rps > 1", "rps % 2"] {
        let e = error(json!({"scaleTargetRef": {"name": "w"},
            "advanced": {"scalingModifiers": {"formula": formula, "target": "5"}},
            "triggers": [prom("10")]}));
        assert!(e.message.contains("trial run"), "{formula}: {e:?}");
    }
    ok(json!({"scaleTargetRef": {"name": "w"},
        "advanced": {"scalingModifiers": {"formula": "rps > 1 ? rps : 0", "target": "5"}},
        "triggers": [prom("10")]}));
}

#[test]
fn misplaced_settings_in_metadata_are_warned_about() {
    let mut p = prom("10");
    p["metadata"]["maxReplicaCount"] = json!("50");
    let mut warnings = Vec::new();
    translate(
        &so(json!({"scaleTargetRef": {"name": "w"}, "triggers": [p]})),
        &mut |path, m| warnings.push(format!("{path}: {m}")),
    )
    .unwrap();
    assert!(
        warnings[0].starts_with("spec.triggers[0].metadata.maxReplicaCount"),
        "{warnings:?}"
    );
}

#[test]
fn metadata_values_must_be_strings() {
    let mut p = prom("10");
    p["metadata"]["threshold"] = json!(10);
    let e = error(json!({"scaleTargetRef": {"name": "w"}, "triggers": [p]}));
    assert_eq!(e.path.to_string(), "spec.triggers[0].metadata.threshold");
}

fn spec_for_values() -> KedaSpec {
    let mut queue = json!({"type": "aws-sqs-queue", "metadata": {"queueURL": "orders"}});
    queue["name"] = json!("queue");
    ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10"), queue]})).keda
}

#[test]
fn values_by_name_index_or_metric_name() {
    let spec = spec_for_values();
    let (input, _) = resolve(
        &spec,
        &["rps=12.5".into(), "s1-aws-sqs-orders=failed".into()],
        &BTreeMap::new(),
        None,
        None,
        Timestamp(0),
    )
    .unwrap();
    assert_eq!(input.triggers[0].value, TriggerValue::Value(12.5));
    assert_eq!(input.triggers[1].value, TriggerValue::Failed);
    let (input, _) = resolve(
        &spec,
        &["s0=NaN".into(), "queue=1500m".into()],
        &BTreeMap::new(),
        Some(4),
        None,
        Timestamp(0),
    )
    .unwrap();
    assert!(matches!(input.triggers[0].value, TriggerValue::Value(v) if v.is_nan()));
    assert_eq!(input.triggers[1].value, TriggerValue::Value(1.5));
    assert_eq!(input.triggers[1].failures, 4);
}

#[test]
fn values_missing_or_unknown_are_errors_naming_the_trigger() {
    let spec = spec_for_values();
    let e = resolve(
        &spec,
        &["rps=1".into()],
        &BTreeMap::new(),
        None,
        None,
        Timestamp(0),
    )
    .unwrap_err();
    assert!(e.to_string().contains("queue=VALUE"), "{e}");
    let e = resolve(
        &spec,
        &["nope=1".into()],
        &BTreeMap::new(),
        None,
        None,
        Timestamp(0),
    )
    .unwrap_err();
    assert!(e.to_string().contains("rps (s0)"), "{e}");
}

#[test]
fn served_values_nan_inf_negative_are_zero() {
    assert_eq!(milli_from_float(f64::NAN), 0);
    assert_eq!(milli_from_float(f64::INFINITY), 0);
    assert_eq!(milli_from_float(-3.0), 0);
    assert_eq!(milli_from_float(2.0005), 2001);
    assert_eq!(milli_from_float(850.0), 850_000);
}

#[test]
fn last_active_from_flag_status_or_assumed() {
    let spec = spec_for_values();
    let flags = ["rps=1".to_string(), "queue=1".to_string()];
    let now = Timestamp(1_000_000);
    let (input, _) = resolve(
        &spec,
        &flags,
        &BTreeMap::new(),
        None,
        Some(Duration::from_secs(60)),
        now,
    )
    .unwrap();
    assert_eq!(input.last_active, Some(Timestamp(940_000)));
    let (input, notes) = resolve(&spec, &flags, &BTreeMap::new(), None, None, now).unwrap();
    assert!(input.last_active_assumed);
    assert!(notes.iter().any(|n| n.contains("long ago")));
}

#[test]
fn unknown_keys_below_spec_are_warned_about() {
    let mut warnings = Vec::new();
    translate(
        &so(
            json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")],
            "fallback": {"failureThreshold": 1, "replicas": 2, "replica": 3},
            "advanced": {"horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": {
                "stabilisationWindowSeconds": 60,
                "policies": [{"type": "Pods", "value": 1, "periodSeconds": 15, "period": 1}]}}}}}),
        ),
        &mut |path, m| warnings.push(format!("{path}: {m}")),
    )
    .unwrap();
    assert_eq!(
        warnings,
        [
            "spec.fallback.replica: unknown field (ignored)",
            "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.\
             stabilisationWindowSeconds: unknown field (ignored)",
            "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.policies[0].period: \
             unknown field (ignored)",
        ]
    );
}

fn with_status(status: Value) -> Value {
    let mut raw = so(
        json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")],
        "fallback": {"failureThreshold": 3, "replicas": 6}}),
    );
    raw["status"] = status;
    raw
}

#[test]
fn the_status_is_read_as_kubectl_prints_it() {
    let raw = with_status(json!({
        "conditions": [
            {"type": "Ready", "status": "True", "reason": "ScaledObjectReady",
             "message": "ScaledObject is defined correctly and is ready for scaling"},
            {"type": "Active", "status": "False", "reason": "ScalerCooldown"},
            {"type": "Fallback", "status": "True", "reason": "FallbackExists"},
            {"type": "Paused", "status": "Unknown"}],
        "externalMetricNames": ["s0-prometheus"],
        "health": {"s0-prometheus": {"numberOfFailures": 4, "status": "Failing"}},
        "originalReplicaCount": 1,
        "pausedReplicaCount": 3,
        "lastActiveTime": "2026-11-30T09:57:30Z"}));
    let t = translate(&raw, &mut |_, _| {}).unwrap();
    let status = t.keda.input.status.clone().unwrap();
    assert_eq!(status.is("Active"), Some(false));
    assert_eq!(status.is("Fallback"), Some(true));
    assert_eq!(status.is("Paused"), None);
    assert_eq!(status.condition("Active").unwrap().reason, "ScalerCooldown");
    assert_eq!(
        status.health["s0-prometheus"],
        Health {
            failures: 4,
            failing: true
        }
    );
    assert_eq!(status.external_metric_names, ["s0-prometheus"]);
    assert_eq!(
        (status.original_replica_count, status.paused_replica_count),
        (Some(1), Some(3))
    );
    // The value the status bounds is inferred, not required.
    let (input, _) = resolve(&t.keda, &[], &BTreeMap::new(), None, None, Timestamp(0)).unwrap();
    assert_eq!(input.triggers[0].value, TriggerValue::Unknown);
    assert_eq!(input.triggers[0].failures, 4);
    // Without a status there is nothing to infer from.
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10")]}));
    assert_eq!(t.keda.input.status, None);
}

#[test]
fn an_active_status_does_not_stand_for_the_value() {
    let raw = with_status(json!({"conditions": [
        {"type": "Active", "status": "True", "reason": "ScalerActive"}]}));
    let t = translate(&raw, &mut |_, _| {}).unwrap();
    let e = resolve(&t.keda, &[], &BTreeMap::new(), None, None, Timestamp(0)).unwrap_err();
    assert!(e.to_string().contains("--metric-value"), "{e}");
}

#[test]
fn a_condition_without_type_or_status_is_located() {
    let raw = with_status(json!({"conditions": [{"type": "Active"}]}));
    let e = translate(&raw, &mut |_, _| {}).unwrap_err();
    assert_eq!(e.path.to_string(), "status.conditions[0]");
    assert!(e.message.contains("without type or status"), "{e:?}");
    let raw = with_status(json!({"conditions": "Active"}));
    let e = translate(&raw, &mut |_, _| {}).unwrap_err();
    assert!(e.message.contains("expected a list of conditions"), "{e:?}");
}

#[test]
fn each_trigger_names_the_key_that_sets_its_threshold() {
    let kafka = json!({"type": "kafka", "metadata": {"consumerGroup": "g", "topic": "t"}});
    let t = ok(json!({"scaleTargetRef": {"name": "w"}, "triggers": [prom("10"), kafka]}));
    let keys: Vec<Option<&str>> = (t.keda.input.triggers.iter())
        .map(|t| t.threshold_key.as_deref())
        .collect();
    // kafka's lagThreshold defaults to 10 when not written: the key is still the lever.
    assert_eq!(keys, [Some("threshold"), Some("lagThreshold")]);
    assert!(!t.keda.input.triggers[0].threshold_integer);
    assert!(t.keda.input.triggers[1].threshold_integer);
}
