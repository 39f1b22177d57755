//! Tests of manifest loading, on the fixtures under `fixtures/hpa/` and on small inline specs.

use super::*;
use crate::scenario::{
    Behavior, MetricIdentifier, MetricSpec, MetricTarget, ObjectReference, PolicyType,
    ScalingPolicy, ScalingRules, SelectPolicy, TargetType,
};

macro_rules! fixture {
    ($path:literal) => {
        include_str!(concat!("../../../fixtures/hpa/", $path))
    };
}

fn ok(text: &str) -> LoadedHpa {
    load("hpa.yaml", text, None).unwrap()
}

fn fail(text: &str) -> InputError {
    load("hpa.yaml", text, None).unwrap_err()
}

/// A v2 HPA whose spec is `spec` (lines indented by two spaces).
fn v2(spec: &str) -> String {
    format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n{spec}"
    )
}

const TARGET: &str = "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n";

/// Asserts that `spec` is rejected at `field` with a message containing `fragment`, located on a
/// line, and that the printed error names the field.
fn rejects(spec: &str, field: &str, fragment: &str) {
    let text = v2(spec);
    let err = fail(&text);
    assert_eq!(err.field.as_deref(), Some(field), "{err}\n{text}");
    assert!(err.message.contains(fragment), "{err}");
    assert!(err.message.starts_with("found "), "{err}");
    assert!(err.line.is_some(), "{err}");
    assert!(err.to_string().contains(field), "{err}");
}

fn utilization(pct: i32) -> MetricTarget {
    MetricTarget {
        target_type: TargetType::Utilization,
        average_utilization: Some(pct),
        average_value_milli: None,
        value_milli: None,
    }
}

fn cpu(pct: i32) -> MetricSpec {
    MetricSpec::Resource {
        resource: "cpu".to_string(),
        container: None,
        target: utilization(pct),
    }
}

fn policy(policy_type: PolicyType, value: i32, period_seconds: i32) -> ScalingPolicy {
    ScalingPolicy {
        policy_type,
        value,
        period_seconds,
    }
}

fn default_scale_up() -> ScalingRules {
    ScalingRules {
        stabilization_window_seconds: Some(0),
        select_policy: SelectPolicy::Max,
        policies: vec![
            policy(PolicyType::Pods, 4, 15),
            policy(PolicyType::Percent, 100, 15),
        ],
        tolerance: None,
    }
}

fn default_scale_down() -> ScalingRules {
    ScalingRules {
        stabilization_window_seconds: None,
        select_policy: SelectPolicy::Max,
        policies: vec![policy(PolicyType::Percent, 100, 15)],
        tolerance: None,
    }
}

// ---- mapping and defaults ----

#[test]
fn v2_resource_utilization_maps_to_the_spec() {
    let loaded = ok(fixture!("web-cpu.yaml"));
    assert_eq!(
        loaded.spec,
        HpaSpec {
            name: "web".to_string(),
            namespace: "shop".to_string(),
            target: ObjectReference {
                api_version: "apps/v1".to_string(),
                kind: "Deployment".to_string(),
                name: "web".to_string(),
            },
            min_replicas: 2,
            max_replicas: 10,
            metrics: vec![cpu(50)],
            behavior: None,
        }
    );
    assert_eq!(loaded.status, HpaStatus::default());
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

#[test]
fn absent_behavior_stays_absent_for_the_legacy_path() {
    assert_eq!(ok(fixture!("web-cpu.yaml")).spec.behavior, None);
}

#[test]
fn empty_behavior_gets_every_default() {
    let loaded = ok(fixture!("behavior-empty.yaml"));
    assert_eq!(
        loaded.spec.behavior,
        Some(Behavior {
            scale_up: default_scale_up(),
            scale_down: default_scale_down(),
        })
    );
}

#[test]
fn missing_min_replicas_and_metrics_get_api_defaults() {
    let loaded = ok(fixture!("behavior-empty.yaml"));
    assert_eq!(loaded.spec.min_replicas, 1);
    assert_eq!(loaded.spec.metrics, vec![cpu(80)]);
    assert_eq!(loaded.spec.namespace, "default");
    let empty_list = ok(&v2(&format!("{TARGET}  maxReplicas: 3\n  metrics: []\n")));
    assert_eq!(empty_list.spec.metrics, vec![cpu(80)]);
}

#[test]
fn set_rule_fields_win_and_a_policy_list_replaces_the_defaults() {
    let loaded = ok(&v2(&format!(
        "{TARGET}  maxReplicas: 10
  behavior:
    scaleUp:
      policies:
      - {{type: Percent, value: 50, periodSeconds: 60}}
    scaleDown:
      selectPolicy: Min
      stabilizationWindowSeconds: 30
"
    )));
    let behavior = loaded.spec.behavior.unwrap();
    assert_eq!(
        behavior.scale_up,
        ScalingRules {
            policies: vec![policy(PolicyType::Percent, 50, 60)],
            ..default_scale_up()
        }
    );
    assert_eq!(
        behavior.scale_down,
        ScalingRules {
            stabilization_window_seconds: Some(30),
            select_policy: SelectPolicy::Min,
            ..default_scale_down()
        }
    );
}

#[test]
fn tolerance_is_converted_like_as_approximate_float64() {
    let loaded = ok(&v2(&format!(
        "{TARGET}  maxReplicas: 10
  behavior:
    scaleUp:
      tolerance: 50m
    scaleDown:
      tolerance: \"0.2\"
"
    )));
    let behavior = loaded.spec.behavior.unwrap();
    assert_eq!(behavior.scale_up.tolerance, Some(0.05));
    assert_eq!(behavior.scale_down.tolerance, Some(0.2));
}

#[test]
fn kubectl_capture_keeps_behavior_and_status_without_warnings() {
    let loaded = ok(fixture!("kubectl-get-hpa.yaml"));
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(
        (loaded.spec.min_replicas, loaded.spec.max_replicas),
        (3, 20)
    );
    let behavior = loaded.spec.behavior.unwrap();
    assert_eq!(
        behavior.scale_down,
        ScalingRules {
            stabilization_window_seconds: Some(300),
            select_policy: SelectPolicy::Min,
            policies: vec![
                policy(PolicyType::Percent, 10, 60),
                policy(PolicyType::Pods, 2, 60),
            ],
            tolerance: None,
        }
    );
    assert_eq!(behavior.scale_up, default_scale_up());
    let conditions: Vec<(&str, &str, Option<&str>)> = loaded
        .status
        .conditions
        .iter()
        .map(|c| {
            (
                c.condition_type.as_str(),
                c.reason.as_str(),
                c.last_transition_time.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        conditions,
        [
            (
                "AbleToScale",
                "ReadyForNewScale",
                Some("2025-03-02T09:14:22Z")
            ),
            (
                "ScalingActive",
                "ValidMetricFound",
                Some("2025-03-04T16:41:52Z")
            ),
            (
                "ScalingLimited",
                "DesiredWithinRange",
                Some("2025-03-04T12:03:37Z")
            ),
        ]
    );
    assert_eq!(
        loaded.status,
        HpaStatus {
            current_replicas: Some(6),
            desired_replicas: Some(7),
            scaled_to_zero: false,
            last_scale_time: loaded.status.last_scale_time.clone(),
            conditions: loaded.status.conditions.clone(),
            current_metrics: vec![
                CurrentMetric {
                    metric_type: "Resource".to_string(),
                    name: "cpu".to_string(),
                    value_milli: None,
                    average_value_milli: Some(361),
                    average_utilization: Some(72),
                },
                CurrentMetric {
                    metric_type: "Pods".to_string(),
                    name: "http_requests_per_second".to_string(),
                    value_milli: None,
                    average_value_milli: Some(87_500),
                    average_utilization: None,
                },
            ],
        }
    );
}

#[test]
fn every_metric_type_maps_field_for_field() {
    let loaded = ok(fixture!("all-metric-types.yaml"));
    let average = |milli| MetricTarget {
        target_type: TargetType::AverageValue,
        average_utilization: None,
        average_value_milli: Some(milli),
        value_milli: None,
    };
    assert_eq!(
        loaded.spec.metrics,
        vec![
            MetricSpec::Resource {
                resource: "memory".to_string(),
                container: None,
                target: average(500 * 1024 * 1024 * 1000),
            },
            MetricSpec::Resource {
                resource: "cpu".to_string(),
                container: Some("app".to_string()),
                target: utilization(60),
            },
            MetricSpec::Pods {
                metric: MetricIdentifier {
                    name: "packets-per-second".to_string(),
                    selector: None,
                },
                target: average(1_000_000),
            },
            MetricSpec::Object {
                described_object: ObjectReference {
                    api_version: "networking.k8s.io/v1".to_string(),
                    kind: "Ingress".to_string(),
                    name: "main-route".to_string(),
                },
                metric: MetricIdentifier {
                    name: "requests-per-second".to_string(),
                    selector: None,
                },
                target: MetricTarget {
                    target_type: TargetType::Value,
                    average_utilization: None,
                    average_value_milli: None,
                    value_milli: Some(10_000_000),
                },
            },
            MetricSpec::External {
                metric: MetricIdentifier {
                    name: "queue_messages_ready".to_string(),
                    selector: Some(BTreeMap::from([(
                        "queue".to_string(),
                        "worker_tasks".to_string()
                    )])),
                },
                target: average(30_000),
            },
        ]
    );
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

#[test]
fn status_scaled_to_zero_condition_is_read() {
    let loaded = ok(&format!(
        "{}status:
  currentReplicas: 0
  desiredReplicas: 0
  conditions:
  - {{type: ScaledToZero, status: \"True\"}}
",
        v2(&format!("{TARGET}  maxReplicas: 3\n"))
    ));
    assert!(loaded.status.scaled_to_zero);
    assert_eq!(loaded.status.current_replicas, Some(0));
    let absent = ok(&format!(
        "{}status: {{currentReplicas: 2}}\n",
        v2(&format!("{TARGET}  maxReplicas: 3\n"))
    ));
    assert_eq!(absent.status.desired_replicas, None, "absent, not 0");
}

// ---- several objects ----

#[test]
fn list_items_are_picked_by_name() {
    let loaded = load("multi.yaml", fixture!("multi.yaml"), Some("worker")).unwrap();
    assert_eq!(loaded.spec.name, "worker");
    assert_eq!(loaded.spec.max_replicas, 8);
    let api = load("multi.yaml", fixture!("multi.yaml"), Some("api")).unwrap();
    assert_eq!(api.spec.metrics, vec![cpu(70)]);
    assert!(api.warnings.is_empty(), "{:?}", api.warnings);
}

#[test]
fn several_hpas_without_a_name_list_the_names() {
    for (file, text) in [
        ("multi.yaml", fixture!("multi.yaml")),
        ("multi-doc.yaml", fixture!("multi-doc.yaml")),
    ] {
        let err = load(file, text, None).unwrap_err();
        assert!(err.message.contains("api, worker"), "{err}");
        assert!(err.message.contains("--name"), "{err}");
        let err = load(file, text, Some("web")).unwrap_err();
        assert!(err.message.contains("\"web\""), "{err}");
        assert!(err.message.contains("api, worker"), "{err}");
    }
}

#[test]
fn multi_document_files_skip_other_kinds() {
    let text = fixture!("multi-doc.yaml");
    let worker = load("multi-doc.yaml", text, Some("worker")).unwrap();
    assert_eq!(
        (worker.spec.min_replicas, worker.spec.max_replicas),
        (3, 12)
    );
    assert_eq!(worker.spec.metrics, vec![cpu(65)]);
    let api = load("multi-doc.yaml", text, Some("api")).unwrap();
    assert_eq!(api.spec.metrics, vec![cpu(80)]);
}

#[test]
fn errors_in_a_later_document_or_list_item_point_at_its_lines() {
    let text = fixture!("multi-doc.yaml").replace("maxReplicas: 12", "maxReplicas: 0");
    let err = load("multi-doc.yaml", &text, Some("worker")).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("spec.maxReplicas"));
    assert_eq!(err.line, Some(30), "{err}");
    let text = fixture!("multi.yaml").replace("maxReplicas: 8", "maxReplicas: 0");
    let err = load("multi.yaml", &text, Some("worker")).unwrap_err();
    assert_eq!((err.line, err.column), (Some(35), Some(5)), "{err}");
    let text = fixture!("multi.yaml").replace("maxReplicas: 8", "maxReplicas: eight");
    let err = load("multi.yaml", &text, Some("worker")).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("spec.maxReplicas"), "{err}");
    assert_eq!(err.line, Some(35), "{err}");
}

// ---- versions ----

#[test]
fn v1_target_cpu_percentage_becomes_a_cpu_utilization_metric() {
    let loaded = ok(fixture!("v1.yaml"));
    assert_eq!(loaded.spec.metrics, vec![cpu(70)]);
    assert_eq!((loaded.spec.min_replicas, loaded.spec.max_replicas), (1, 4));
    assert_eq!(loaded.spec.behavior, None);
    assert_eq!(loaded.status.current_replicas, Some(2));
    assert_eq!(loaded.status.desired_replicas, Some(3));
    assert_eq!(
        loaded.status.current_metrics,
        vec![CurrentMetric {
            metric_type: "Resource".to_string(),
            name: "cpu".to_string(),
            average_utilization: Some(85),
            ..CurrentMetric::default()
        }]
    );
}

#[test]
fn v1_without_metrics_defaults_to_cpu_80() {
    let text = fixture!("v1.yaml").replace("  targetCPUUtilizationPercentage: 70\n", "");
    assert_eq!(ok(&text).spec.metrics, vec![cpu(80)]);
}

const V1_ANNOTATED: &str = r#"apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
  annotations:
    autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}},{"type":"Object","object":{"target":{"kind":"Service","name":"web","apiVersion":"v1"},"metricName":"hits","targetValue":"0","averageValue":"5"}}]'
    autoscaling.alpha.kubernetes.io/behavior: '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":null,"Policies":null,"Tolerance":null}}'
    autoscaling.alpha.kubernetes.io/current-metrics: '[{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"12500m"}}]'
    autoscaling.alpha.kubernetes.io/conditions: '[{"type":"ScaledToZero","status":"True"}]'
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  targetCPUUtilizationPercentage: 60
status:
  currentReplicas: 3
  desiredReplicas: 3
  currentCPUUtilizationPercentage: 90
"#;

#[test]
fn v1_annotation_metrics_come_first_and_cpu_last() {
    let loaded = ok(V1_ANNOTATED);
    assert_eq!(loaded.spec.metrics.len(), 3);
    assert_eq!(
        loaded.spec.metrics[0],
        MetricSpec::Pods {
            metric: MetricIdentifier {
                name: "qps".to_string(),
                selector: None
            },
            target: MetricTarget {
                target_type: TargetType::AverageValue,
                average_utilization: None,
                average_value_milli: Some(10_000),
                value_milli: None,
            },
        }
    );
    // A zero targetValue next to an averageValue is the v1 view of an AverageValue target.
    assert_eq!(
        loaded.spec.metrics[1].target(),
        &MetricTarget {
            target_type: TargetType::AverageValue,
            average_utilization: None,
            average_value_milli: Some(5000),
            value_milli: None,
        }
    );
    assert_eq!(loaded.spec.metrics[2], cpu(60));
}

#[test]
fn v1_behavior_annotation_selects_the_behavior_path() {
    let behavior = ok(V1_ANNOTATED).spec.behavior.unwrap();
    assert_eq!(behavior.scale_up, default_scale_up());
    assert_eq!(
        behavior.scale_down,
        ScalingRules {
            stabilization_window_seconds: Some(60),
            ..default_scale_down()
        }
    );
}

#[test]
fn v1_status_annotations_replace_the_cpu_status() {
    let status = ok(V1_ANNOTATED).status;
    assert!(status.scaled_to_zero);
    assert_eq!(
        status.current_metrics,
        vec![CurrentMetric {
            metric_type: "Pods".to_string(),
            name: "qps".to_string(),
            average_value_milli: Some(12_500),
            ..CurrentMetric::default()
        }]
    );
}

#[test]
fn v1_errors_point_at_the_v1_field() {
    let text = fixture!("v1.yaml").replace(
        "targetCPUUtilizationPercentage: 70",
        "targetCPUUtilizationPercentage: 0",
    );
    let err = fail(&text);
    assert_eq!(
        err.field.as_deref(),
        Some("spec.targetCPUUtilizationPercentage")
    );
    assert_eq!(err.line, Some(13));
    let text = V1_ANNOTATED.replace(
        "\"targetAverageValue\":\"10\"",
        "\"targetAverageValue\":\"-1\"",
    );
    let err = fail(&text);
    assert_eq!(
        err.field.as_deref(),
        Some(
            "metadata.annotations[\"autoscaling.alpha.kubernetes.io/metrics\"][0].pods.target.averageValue"
        )
    );
    assert_eq!(err.line, Some(6));
}

#[test]
fn v2beta2_reads_like_v2() {
    let loaded = ok(fixture!("v2beta2.yaml"));
    assert_eq!(loaded.spec.metrics, vec![cpu(75)]);
    assert_eq!(
        loaded.spec.behavior.unwrap().scale_down,
        ScalingRules {
            stabilization_window_seconds: Some(120),
            ..default_scale_down()
        }
    );
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
}

#[test]
fn v2beta2_tolerance_comes_from_annotations_only() {
    let text = fixture!("v2beta2.yaml")
        .replace(
            "  namespace: shop\n",
            "  namespace: shop\n  annotations:\n    autoscaling.alpha.kubernetes.io/scale-up-tolerance: 50m\n",
        )
        .replace("stabilizationWindowSeconds: 120", "stabilizationWindowSeconds: 120\n      tolerance: 0.3");
    let loaded = ok(&text);
    let behavior = loaded.spec.behavior.unwrap();
    assert_eq!(behavior.scale_up.tolerance, Some(0.05));
    assert_eq!(behavior.scale_down.tolerance, None);
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(loaded.warnings[0].contains("spec.behavior.scaleDown.tolerance"));
}

#[test]
fn other_api_versions_are_refused() {
    for version in ["autoscaling/v3", "apps/v1"] {
        let text = fixture!("web-cpu.yaml").replace("autoscaling/v2", version);
        let err = fail(&text);
        assert_eq!(err.field.as_deref(), Some("apiVersion"), "{err}");
        assert!(err.message.contains("expected autoscaling/v2"), "{err}");
        assert_eq!(err.line, Some(2));
    }
}

#[test]
fn objects_of_another_kind_are_refused() {
    let err = load(
        "wrong-kind.yaml",
        include_str!("../../../fixtures/malformed/hpa-wrong-kind.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "wrong-kind.yaml:2:1: kind: found Deployment, expected HorizontalPodAutoscaler"
    );
    assert!(fail("").message.contains("no objects"));
    assert!(fail("- a\n- b\n").message.contains("found a list"));
}

// ---- parse errors, unknown keys, limits ----

#[test]
fn yaml_syntax_errors_carry_line_and_column() {
    let err = load(
        "not-yaml.yaml",
        include_str!("../../../fixtures/malformed/hpa-not-yaml.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(err.line, Some(7), "{err}");
    assert!(err.column.is_some(), "{err}");
    assert!(
        !err.message.contains(" at line 7"),
        "location said twice: {err}"
    );
}

#[test]
fn type_errors_carry_path_line_and_column() {
    let err = fail(&v2(&format!("{TARGET}  maxReplicas: ten\n")));
    assert_eq!(err.field.as_deref(), Some("spec.maxReplicas"));
    assert_eq!((err.line, err.column), (Some(7), Some(16)));
    assert!(
        err.message
            .starts_with("found string \"ten\", expected i32"),
        "{err}"
    );
}

const JSON: &str = r#"{
  "apiVersion": "autoscaling/v2",
  "kind": "HorizontalPodAutoscaler",
  "metadata": {"name": "web"},
  "spec": {
    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    "maxReplicas": 4,
    "metrics": [{"type": "Pods", "pods": {"metric": {"name": "qps"},
                 "target": {"type": "AverageValue", "averageValue": 20}}}]
  }
}
"#;

#[test]
fn json_manifests_load_and_locate_errors() {
    let loaded = ok(JSON);
    assert_eq!(loaded.spec.max_replicas, 4);
    assert_eq!(
        loaded.spec.metrics[0].target().average_value_milli,
        Some(20_000)
    );
    let err = fail(&JSON.replace("\"maxReplicas\": 4", "\"maxReplicas\": 0"));
    assert_eq!((err.line, err.column), (Some(7), Some(5)), "{err}");
    let err = fail(&JSON.replace("\"maxReplicas\": 4,", "\"maxReplicas\": 4"));
    assert_eq!(err.line, Some(8), "{err}");
    let err = fail(&JSON.replace("\"maxReplicas\": 4", "\"maxReplicas\": \"4\""));
    assert_eq!(err.line, Some(7), "{err}");
    assert!(err.message.starts_with("found string"), "{err}");
}

#[test]
fn unknown_keys_are_warned_about_with_their_path() {
    let loaded = load("typo.yaml", fixture!("typo.yaml"), None).unwrap();
    assert_eq!(
        loaded.warnings,
        vec![
            "typo.yaml:14:7: unknown field spec.behavior.scaleDown.stabilisationWindowSeconds (ignored)"
                .to_string()
        ]
    );
    // The misspelt key is dropped, so the default window applies.
    assert_eq!(
        loaded.spec.behavior.unwrap().scale_down,
        default_scale_down()
    );
    let text = fixture!("multi.yaml").replace(
        "    minReplicas: 2\n",
        "    minReplicas: 2\n    maxReplica: 3\n",
    );
    let worker = load("multi.yaml", &text, Some("worker")).unwrap();
    assert_eq!(worker.warnings.len(), 1, "{:?}", worker.warnings);
    assert!(worker.warnings[0].ends_with("unknown field spec.maxReplica (ignored)"));
}

#[test]
fn suspicious_targets_and_references_are_warned_about() {
    let loaded = ok(&v2("  scaleTargetRef: {kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Value, averageUtilization: 50}}
"));
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0].starts_with("hpa.yaml:6:3: spec.scaleTargetRef.apiVersion: found \"\""),
        "{:?}",
        loaded.warnings
    );
    assert!(
        loaded.warnings[1]
            .starts_with("hpa.yaml:10:5: spec.metrics[0].resource.target.type: type is Value"),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn oversized_input_is_refused_before_parsing() {
    let text = "#".repeat(MAX_INPUT_BYTES + 1);
    assert!(fail(&text).message.contains("at most 64 MiB"));
}

#[test]
fn yaml_alias_bombs_fail_fast() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("kind: HorizontalPodAutoscaler\n");
    let started = std::time::Instant::now();
    let err = fail(&text);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(err.message.contains("the alias budget"), "{err}");
}

// ---- validation: one test per rule of validation.go ----

#[test]
fn max_replicas_is_required() {
    let err = load(
        "missing-max.yaml",
        include_str!("../../../fixtures/malformed/hpa-missing-max.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "missing-max.yaml:5:1: spec.maxReplicas: found nothing, expected the maximum number of replicas"
    );
    rejects("  maxReplicas: 3\n", "spec.scaleTargetRef", "found nothing");
    let err =
        fail("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n");
    assert_eq!(err.field.as_deref(), Some("spec"));
}

#[test]
fn min_replicas_may_not_be_negative() {
    rejects(
        &format!("{TARGET}  minReplicas: -1\n  maxReplicas: 3\n"),
        "spec.minReplicas",
        "found -1",
    );
}

#[test]
fn zero_min_replicas_needs_an_object_or_external_metric() {
    rejects(
        &format!("{TARGET}  minReplicas: 0\n  maxReplicas: 3\n"),
        "spec.metrics",
        "scaling to zero",
    );
    let loaded = ok(&v2(&format!(
        "{TARGET}  minReplicas: 0
  maxReplicas: 3
  metrics:
  - type: External
    external: {{metric: {{name: queue}}, target: {{type: Value, value: 10}}}}
"
    )));
    assert_eq!(loaded.spec.min_replicas, 0);
}

#[test]
fn max_replicas_must_be_positive() {
    rejects(
        &format!("{TARGET}  maxReplicas: 0\n"),
        "spec.maxReplicas",
        "greater than 0",
    );
}

#[test]
fn max_replicas_may_not_be_below_min_replicas() {
    let err = load(
        "max-below-min.yaml",
        include_str!("../../../fixtures/malformed/hpa-max-below-min.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "max-below-min.yaml:11:3: spec.maxReplicas: found 3, expected a number greater than or equal to `minReplicas` (5)"
    );
}

#[test]
fn scale_target_ref_needs_kind_and_name() {
    let cases = [
        ("{name: web}", "spec.scaleTargetRef.kind", "found nothing"),
        (
            "{kind: Deployment}",
            "spec.scaleTargetRef.name",
            "found nothing",
        ),
        (
            "{kind: Deployment, name: ..}",
            "spec.scaleTargetRef.name",
            "may not be '..'",
        ),
        (
            "{kind: Deployment, name: a/b}",
            "spec.scaleTargetRef.name",
            "may not contain '/'",
        ),
    ];
    for (reference, field, fragment) in cases {
        rejects(
            &format!("  scaleTargetRef: {reference}\n  maxReplicas: 3\n"),
            field,
            fragment,
        );
    }
}

#[test]
fn metric_type_must_be_known() {
    let err = load(
        "unknown.yaml",
        include_str!("../../../fixtures/malformed/hpa-unknown-metric-type.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown.yaml:18:5: spec.metrics[1].type: found \"Custom\", expected ContainerResource, External, Object, Pods or Resource"
    );
    rejects(
        &format!("{TARGET}  maxReplicas: 3\n  metrics:\n  - resource: {{name: cpu}}\n"),
        "spec.metrics[0].type",
        "found nothing",
    );
}

#[test]
fn metric_type_needs_its_own_source_block_only() {
    let cases = [
        (
            "  - type: Resource\n",
            "spec.metrics[0].resource",
            "found no `resource` block",
        ),
        (
            "  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 5}}\n    pods: {metric: {name: a}, target: {type: AverageValue, averageValue: 1}}\n",
            "spec.metrics[0].pods",
            "expected only `resource`",
        ),
    ];
    for (metric, field, fragment) in cases {
        rejects(
            &format!("{TARGET}  maxReplicas: 3\n  metrics:\n{metric}"),
            field,
            fragment,
        );
    }
}

#[test]
fn metric_target_and_its_type_are_required_and_known() {
    let cases = [
        (
            "{name: cpu}",
            "spec.metrics[0].resource.target",
            "found nothing",
        ),
        (
            "{name: cpu, target: {averageUtilization: 5}}",
            "spec.metrics[0].resource.target.type",
            "found nothing",
        ),
        (
            "{name: cpu, target: {type: Percent, averageUtilization: 5}}",
            "spec.metrics[0].resource.target.type",
            "found \"Percent\"",
        ),
    ];
    for (resource, field, fragment) in cases {
        rejects(
            &format!(
                "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Resource\n    resource: {resource}\n"
            ),
            field,
            fragment,
        );
    }
}

#[test]
fn resource_targets_need_one_of_utilization_or_average_value() {
    let base = |target: &str| {
        format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Resource\n    resource: {{name: cpu, target: {target}}}\n"
        )
    };
    rejects(
        &base("{type: Utilization}"),
        "spec.metrics[0].resource.target.averageUtilization",
        "found neither",
    );
    rejects(
        &base("{type: Utilization, averageUtilization: 5, averageValue: 100m}"),
        "spec.metrics[0].resource.target.averageValue",
        "found both",
    );
    rejects(
        &base("{type: Utilization, averageUtilization: 0}"),
        "spec.metrics[0].resource.target.averageUtilization",
        "found 0",
    );
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Resource\n    resource: {{target: {{type: Utilization, averageUtilization: 5}}}}\n"
        ),
        "spec.metrics[0].resource.name",
        "found nothing",
    );
}

#[test]
fn target_values_must_be_positive_quantities() {
    let pods = |value: &str| {
        format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: qps}}, target: {{type: AverageValue, averageValue: {value}}}}}\n"
        )
    };
    rejects(
        &pods("\"0\""),
        "spec.metrics[0].pods.target.averageValue",
        "positive quantity",
    );
    rejects(
        &pods("-1k"),
        "spec.metrics[0].pods.target.averageValue",
        "positive quantity",
    );
    let object = format!(
        "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Object\n    object: {{describedObject: {{kind: Service, name: web}}, metric: {{name: hits}}, target: {{type: Value, value: \"0\"}}}}\n"
    );
    rejects(
        &object,
        "spec.metrics[0].object.target.value",
        "positive quantity",
    );
}

#[test]
fn unparsable_quantities_name_their_field() {
    let err = load(
        "bad-quantity.yaml",
        include_str!("../../../fixtures/malformed/hpa-bad-quantity.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.field.as_deref(),
        Some("spec.metrics[0].pods.target.averageValue")
    );
    assert_eq!((err.line, err.column), (Some(18), Some(9)));
    assert!(
        err.message.starts_with("found \"10 qps\", expected"),
        "{err}"
    );
}

#[test]
fn object_and_external_targets_need_value_or_average_value() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Object\n    object: {{describedObject: {{kind: Service, name: web}}, metric: {{name: hits}}, target: {{type: Value}}}}\n"
        ),
        "spec.metrics[0].object.target.averageValue",
        "found neither value nor averageValue",
    );
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: External\n    external: {{metric: {{name: q}}, target: {{type: Value}}}}\n"
        ),
        "spec.metrics[0].external.target.averageValue",
        "found neither value nor averageValue",
    );
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Object\n    object: {{metric: {{name: hits}}, target: {{type: Value, value: 1}}}}\n"
        ),
        "spec.metrics[0].object.describedObject.kind",
        "found nothing",
    );
}

#[test]
fn external_targets_may_not_set_both_values() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: External\n    external: {{metric: {{name: q}}, target: {{type: Value, value: 1, averageValue: 1}}}}\n"
        ),
        "spec.metrics[0].external.target.value",
        "found both",
    );
}

#[test]
fn pods_targets_need_average_value() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: qps}}, target: {{type: Value, value: 1}}}}\n"
        ),
        "spec.metrics[0].pods.target.averageValue",
        "found nothing",
    );
}

#[test]
fn metric_names_are_required_path_segments() {
    let pods = |name: &str| {
        format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: Pods\n    pods: {{metric: {{name: {name}}}, target: {{type: AverageValue, averageValue: 1}}}}\n"
        )
    };
    rejects(
        &pods("\"\""),
        "spec.metrics[0].pods.metric.name",
        "found nothing",
    );
    rejects(
        &pods("a%b"),
        "spec.metrics[0].pods.metric.name",
        "may not contain '%'",
    );
}

#[test]
fn container_resource_needs_a_valid_container_name() {
    let metric = |container: &str| {
        format!(
            "{TARGET}  maxReplicas: 3\n  metrics:\n  - type: ContainerResource\n    containerResource: {{name: cpu, {container}target: {{type: Utilization, averageUtilization: 5}}}}\n"
        )
    };
    rejects(
        &metric(""),
        "spec.metrics[0].containerResource.container",
        "found nothing",
    );
    rejects(
        &metric("container: Web_1, "),
        "spec.metrics[0].containerResource.container",
        "found \"Web_1\"",
    );
}

#[test]
fn stabilization_window_is_0_to_3600_seconds() {
    for (window, fragment) in [("-1", "0 or more"), ("3601", "at most 3600")] {
        rejects(
            &format!(
                "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleDown:\n      stabilizationWindowSeconds: {window}\n"
            ),
            "spec.behavior.scaleDown.stabilizationWindowSeconds",
            fragment,
        );
    }
}

#[test]
fn select_policy_must_be_max_min_or_disabled() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleUp:\n      selectPolicy: Maximum\n"
        ),
        "spec.behavior.scaleUp.selectPolicy",
        "found \"Maximum\"",
    );
}

#[test]
fn scaling_rules_need_at_least_one_policy() {
    rejects(
        &format!("{TARGET}  maxReplicas: 3\n  behavior:\n    scaleUp:\n      policies: []\n"),
        "spec.behavior.scaleUp.policies",
        "found no policies",
    );
}

#[test]
fn policy_fields_are_required() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleUp:\n      policies:\n      - {{type: Pods, periodSeconds: 15}}\n"
        ),
        "spec.behavior.scaleUp.policies[0].value",
        "found nothing",
    );
}

#[test]
fn policy_type_must_be_pods_or_percent() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleUp:\n      policies:\n      - {{type: Replicas, value: 1, periodSeconds: 15}}\n"
        ),
        "spec.behavior.scaleUp.policies[0].type",
        "found \"Replicas\"",
    );
}

#[test]
fn policy_value_must_be_positive() {
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleDown:\n      policies:\n      - {{type: Percent, value: 0, periodSeconds: 15}}\n"
        ),
        "spec.behavior.scaleDown.policies[0].value",
        "found 0",
    );
}

#[test]
fn policy_period_is_1_to_1800_seconds() {
    let err = load(
        "bad-policy-period.yaml",
        include_str!("../../../fixtures/malformed/hpa-bad-policy-period.yaml"),
        None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad-policy-period.yaml:16:9: spec.behavior.scaleUp.policies[0].periodSeconds: found 3600, expected 1 to 1800 seconds"
    );
    rejects(
        &format!(
            "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleDown:\n      policies:\n      - {{type: Percent, value: 5, periodSeconds: 0}}\n"
        ),
        "spec.behavior.scaleDown.policies[0].periodSeconds",
        "found 0",
    );
}

#[test]
fn tolerance_must_be_a_quantity_of_0_or_more() {
    for (tolerance, fragment) in [
        ("-0.1", "greater than or equal to 0"),
        ("lots", "found \"lots\""),
    ] {
        rejects(
            &format!(
                "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleUp:\n      tolerance: {tolerance}\n"
            ),
            "spec.behavior.scaleUp.tolerance",
            fragment,
        );
    }
    let loaded = ok(&v2(&format!(
        "{TARGET}  maxReplicas: 3\n  behavior:\n    scaleUp:\n      tolerance: 0\n"
    )));
    assert_eq!(loaded.spec.behavior.unwrap().scale_up.tolerance, Some(0.0));
}

#[test]
fn metadata_name_is_required() {
    let text = fixture!("web-cpu.yaml").replace("  name: web\n  namespace", "  namespace");
    let err = fail(&text);
    assert_eq!(err.field.as_deref(), Some("metadata.name"));
    assert_eq!(err.line, Some(4));
}

#[test]
fn placeholders_in_fields_hpacalc_ignores_are_warnings() {
    let loaded = ok(fixture!("docs-placeholders.yaml"));
    assert_eq!(loaded.status.current_replicas, Some(1));
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(
        loaded.warnings[0]
            .starts_with("hpa.yaml:22:3: status.lastScaleTime: found \"<some-time>\""),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn placeholders_in_fields_hpacalc_reads_stay_located_errors() {
    let text = fixture!("docs-placeholders.yaml").replace("maxReplicas: 10", "maxReplicas: <max>");
    let err = fail(&text);
    assert_eq!(err.field.as_deref(), Some("spec.maxReplicas"), "{err}");
    assert_eq!(err.line, Some(12), "{err}");
}

#[test]
fn an_ignored_time_that_is_not_rfc3339_is_a_warning_too() {
    let text = fixture!("web-cpu.yaml").replace(
        "  namespace: shop\n",
        "  namespace: shop\n  creationTimestamp: yesterday\n",
    );
    let loaded = ok(&text);
    assert!(
        loaded.warnings[0].contains("metadata.creationTimestamp: found \"yesterday\""),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn yaml_tags_and_scalars_that_change_a_fields_type_are_refused_in_every_version() {
    let v1 = fixture!("v1.yaml");
    let v2 = fixture!("web-cpu.yaml");
    // (manifest, what to replace, with what, the field refused, the message's start)
    let cases = [
        (
            v2,
            "maxReplicas: 10",
            "maxReplicas: !!str 10",
            "spec.maxReplicas",
            "found the string \"10\"",
        ),
        (
            v2,
            "name: web\n  namespace",
            "name: !!int 5\n  namespace",
            "metadata.name",
            "found the number 5",
        ),
        (
            v2,
            "name: web\n  namespace",
            "name: 5\n  namespace",
            "metadata.name",
            "found the number 5",
        ),
        (
            v2,
            "namespace: shop",
            "namespace: !!bool true",
            "metadata.namespace",
            "found the boolean true",
        ),
        (
            v2,
            "name: cpu",
            "name: !!float 1.5",
            "spec.metrics[0].resource.name",
            "found the number 1.5",
        ),
        (
            v1,
            "maxReplicas: 4",
            "maxReplicas: !!str 4",
            "spec.maxReplicas",
            "found the string \"4\"",
        ),
        (
            v1,
            "currentReplicas: 2",
            "currentReplicas: !!str 2",
            "status.currentReplicas",
            "found the string \"2\"",
        ),
        (
            v1,
            "name: legacy\n  namespace",
            "name: !!int 7\n  namespace",
            "metadata.name",
            "found the number 7",
        ),
    ];
    for (text, from, to, field, start) in cases {
        assert!(text.contains(from), "{from}");
        let err = fail(&text.replacen(from, to, 1));
        assert_eq!(err.field.as_deref(), Some(field), "{to}: {err}");
        assert!(err.message.starts_with(start), "{to}: {err}");
    }
    // A tag that keeps the field's type, and a quantity written as a number, are read as the API
    // server reads them.
    ok(&v2.replacen("averageUtilization: 50", "averageUtilization: !!int 50", 1));
    ok(&v2.replacen("name: web\n  namespace", "name: !!str web\n  namespace", 1));
    let all = ok(fixture!("all-metric-types.yaml"));
    assert!(!all.spec.metrics.is_empty());
}
