//! `autoscaling/v1` → `autoscaling/v2`, as the API server converts
//! (`pkg/apis/autoscaling/v1/conversion.go`).
//!
//! v1 has only `targetCPUUtilizationPercentage`; everything else an HPA stored through v2 has
//! travels in `autoscaling.alpha.kubernetes.io/*` annotations of the v1 view, which is what
//! `kubectl get hpa.v1.autoscaling -o yaml` shows. The metrics annotation holds a JSON list of
//! v1 (v2beta1-shaped) metric specs, the behavior annotation the internal Go struct marshalled
//! without JSON tags (so its keys are Go field names), and the status annotations the current
//! metrics and conditions.

use std::collections::BTreeMap;

use k8s_openapi::api::autoscaling::{v1 as api_v1, v2 as api};
use serde_json::{Map, Value, json};

use super::locate::{FieldPath, Seg};
use super::validate::{self, DEFAULT_CPU_UTILIZATION, FieldError, field_error};
use super::{CurrentMetric, HpaStatus};

/// `autoscaling.MetricSpecsAnnotation` (pkg/apis/autoscaling/annotations.go).
pub const METRICS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// `autoscaling.MetricStatusesAnnotation`.
pub const CURRENT_METRICS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// `autoscaling.HorizontalPodAutoscalerConditionsAnnotation`.
pub const CONDITIONS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// `autoscaling.BehaviorSpecsAnnotation`.
pub const BEHAVIOR_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/behavior";

fn annotation_path(key: &str) -> FieldPath {
    FieldPath::of(&["metadata", "annotations", key])
}

/// A v1 spec converted to v2, and where each converted part came from.
pub struct Converted {
    pub spec: api::HorizontalPodAutoscalerSpec,
    /// Index of the metric made from `targetCPUUtilizationPercentage` (the last one).
    cpu_metric: Option<usize>,
    /// How many metrics came from the metrics annotation (they come first).
    annotation_metrics: usize,
    behavior_from_annotation: bool,
}

impl Converted {
    /// Maps a path in the converted v2 spec back to where the value is in the v1 manifest.
    pub fn source_path(&self, path: &FieldPath) -> FieldPath {
        let metrics = FieldPath::of(&["spec", "metrics"]);
        if let Some(rest) = path.strip_prefix(&metrics)
            && let Some(Seg::Index(i)) = rest.0.first()
        {
            if Some(*i) == self.cpu_metric {
                return FieldPath::of(&["spec", "targetCPUUtilizationPercentage"]);
            }
            if *i < self.annotation_metrics {
                return annotation_path(METRICS_ANNOTATION).join(&rest);
            }
        }
        let behavior = FieldPath::of(&["spec", "behavior"]);
        if self.behavior_from_annotation
            && let Some(rest) = path.strip_prefix(&behavior)
        {
            return annotation_path(BEHAVIOR_ANNOTATION).join(&rest);
        }
        path.clone()
    }
}

// Port of Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler and
// Convert_v1_HorizontalPodAutoscalerSpec_To_autoscaling_HorizontalPodAutoscalerSpec
// (pkg/apis/autoscaling/v1/conversion.go), with v1's SetDefaults_HorizontalPodAutoscaler.
pub fn convert_spec(
    spec: &api_v1::HorizontalPodAutoscalerSpec,
    annotations: &BTreeMap<String, String>,
    warnings: &mut Vec<String>,
) -> Result<Converted, FieldError> {
    let mut metrics = Vec::new();
    if let Some(raw) = annotations.get(METRICS_ANNOTATION) {
        let path = annotation_path(METRICS_ANNOTATION);
        let list: Vec<Value> = serde_json::from_str(raw).map_err(|e| {
            field_error(
                path.clone(),
                format!(
                    "found invalid JSON ({e}), expected a JSON list of autoscaling/v1 metric specs"
                ),
            )
        })?;
        for (i, item) in list.iter().enumerate() {
            let converted = metric_spec_to_v2(item);
            let metric = serde_json::from_value::<api::MetricSpec>(converted).map_err(|e| {
                field_error(
                    path.index(i),
                    format!("found {item}, expected a metric spec ({e})"),
                )
            })?;
            metrics.push(metric);
        }
    }
    let annotation_metrics = metrics.len();
    // "the normal Spec conversion could have populated out.Spec.Metrics with a single element":
    // the CPU metric goes last.
    let cpu_metric = spec.target_cpu_utilization_percentage.map(|pct| {
        metrics.push(validate::default_cpu_metric(pct));
        metrics.len() - 1
    });
    // "autoscaling/v1 formerly had an implicit default applied in the controller"
    if metrics.is_empty() {
        metrics.push(validate::default_cpu_metric(DEFAULT_CPU_UTILIZATION));
    }
    let behavior = match annotations.get(BEHAVIOR_ANNOTATION) {
        None => None,
        Some(raw) => {
            let behavior = behavior_from_annotation(raw);
            if behavior.is_none() {
                // Go moves only well-formed data from the annotation.
                warnings.push(format!(
                    "{}: not a well-formed behavior (ignored, as the API server ignores it)",
                    annotation_path(BEHAVIOR_ANNOTATION)
                ));
            }
            behavior
        }
    };
    let target = &spec.scale_target_ref;
    Ok(Converted {
        behavior_from_annotation: behavior.is_some(),
        spec: api::HorizontalPodAutoscalerSpec {
            scale_target_ref: api::CrossVersionObjectReference {
                api_version: target.api_version.clone(),
                kind: target.kind.clone(),
                name: target.name.clone(),
            },
            // SetDefaults_HorizontalPodAutoscaler (pkg/apis/autoscaling/v1/defaults.go)
            min_replicas: Some(spec.min_replicas.unwrap_or(1)),
            max_replicas: spec.max_replicas,
            metrics: Some(metrics),
            behavior,
        },
        cpu_metric,
        annotation_metrics,
    })
}

fn present<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

fn copy(out: &mut Map<String, Value>, to: &str, from: &Value, key: &str) {
    if let Some(x) = present(from, key) {
        out.insert(to.to_string(), x.clone());
    }
}

/// `{name, selector}` of a v1 source that names its metric `metricName`.
fn identifier(src: &Value, selector_key: &str) -> Value {
    let mut id = Map::new();
    id.insert(
        "name".into(),
        present(src, "metricName").cloned().unwrap_or(json!("")),
    );
    copy(&mut id, "selector", src, selector_key);
    Value::Object(id)
}

fn is_zero(quantity: Option<&Value>) -> bool {
    match quantity {
        None => true,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::String(s)) => {
            crate::quantity::Quantity::parse(s).is_ok_and(|q| q.mantissa == 0)
        }
        Some(_) => false,
    }
}

// Port of Convert_v1_MetricSpec_To_autoscaling_MetricSpec and the per-source conversions
// (pkg/apis/autoscaling/v1/conversion.go), producing the v2 JSON shape.
pub(super) fn metric_spec_to_v2(m: &Value) -> Value {
    let mut out = Map::new();
    out.insert(
        "type".into(),
        present(m, "type").cloned().unwrap_or(json!("")),
    );
    if let Some(o) = present(m, "object") {
        let average = present(o, "averageValue");
        let mut target = Map::new();
        target.insert(
            "type".into(),
            json!(if average.is_none() {
                "Value"
            } else {
                "AverageValue"
            }),
        );
        // Go always sets `Value: &in.TargetValue`, which marshals as "0" when a v2 object had
        // only averageValue; that zero is not a target (the type says AverageValue), so drop it
        // rather than fail validation on it.
        let value = present(o, "targetValue");
        if !(average.is_some() && is_zero(value)) {
            target.insert("value".into(), value.cloned().unwrap_or(json!("0")));
        }
        copy(&mut target, "averageValue", o, "averageValue");
        out.insert(
            "object".into(),
            json!({
                "describedObject": present(o, "target").cloned().unwrap_or(json!({})),
                "metric": identifier(o, "selector"),
                "target": Value::Object(target),
            }),
        );
    }
    if let Some(p) = present(m, "pods") {
        out.insert(
            "pods".into(),
            json!({
                "metric": identifier(p, "selector"),
                "target": {
                    "type": "AverageValue",
                    "averageValue": present(p, "targetAverageValue").cloned().unwrap_or(json!("0")),
                },
            }),
        );
    }
    for (key, container) in [("resource", false), ("containerResource", true)] {
        let Some(r) = present(m, key) else { continue };
        let utilization = present(r, "targetAverageUtilization");
        let mut target = Map::new();
        target.insert(
            "type".into(),
            json!(if utilization.is_none() {
                "AverageValue"
            } else {
                "Utilization"
            }),
        );
        copy(&mut target, "averageValue", r, "targetAverageValue");
        copy(
            &mut target,
            "averageUtilization",
            r,
            "targetAverageUtilization",
        );
        let mut source = Map::new();
        source.insert(
            "name".into(),
            present(r, "name").cloned().unwrap_or(json!("")),
        );
        if container {
            source.insert(
                "container".into(),
                present(r, "container").cloned().unwrap_or(json!("")),
            );
        }
        source.insert("target".into(), Value::Object(target));
        out.insert(key.into(), Value::Object(source));
    }
    if let Some(e) = present(m, "external") {
        let value = present(e, "targetValue");
        let mut target = Map::new();
        target.insert(
            "type".into(),
            json!(if value.is_none() {
                "AverageValue"
            } else {
                "Value"
            }),
        );
        copy(&mut target, "value", e, "targetValue");
        copy(&mut target, "averageValue", e, "targetAverageValue");
        out.insert(
            "external".into(),
            json!({
                "metric": identifier(e, "metricSelector"),
                "target": Value::Object(target),
            }),
        );
    }
    Value::Object(out)
}

/// A member looked up as `encoding/json` matches struct fields: exactly, else ignoring case.
fn get_ci<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let map = v.as_object()?;
    map.get(name)
        .or_else(|| {
            map.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

// The behavior annotation: `json.Unmarshal` into the internal HorizontalPodAutoscalerBehavior,
// kept only when it decodes and is not the zero value (conversion.go).
pub(super) fn behavior_from_annotation(raw: &str) -> Option<api::HorizontalPodAutoscalerBehavior> {
    let v: Value = serde_json::from_str(raw).ok()?;
    let rules = |r: Option<&Value>| -> Option<Value> {
        let r = r?;
        let mut out = Map::new();
        for (go, json) in [
            ("StabilizationWindowSeconds", "stabilizationWindowSeconds"),
            ("SelectPolicy", "selectPolicy"),
            ("Tolerance", "tolerance"),
        ] {
            if let Some(x) = get_ci(r, go) {
                out.insert(json.into(), x.clone());
            }
        }
        if let Some(policies) = get_ci(r, "Policies").and_then(Value::as_array) {
            let policies = policies
                .iter()
                .map(|p| {
                    json!({
                        "type": get_ci(p, "Type").cloned().unwrap_or(json!("")),
                        "value": get_ci(p, "Value").cloned().unwrap_or(json!(0)),
                        "periodSeconds": get_ci(p, "PeriodSeconds").cloned().unwrap_or(json!(0)),
                    })
                })
                .collect();
            out.insert("policies".into(), Value::Array(policies));
        }
        Some(Value::Object(out))
    };
    let mut behavior = Map::new();
    if let Some(r) = rules(get_ci(&v, "ScaleUp")) {
        behavior.insert("scaleUp".into(), r);
    }
    if let Some(r) = rules(get_ci(&v, "ScaleDown")) {
        behavior.insert("scaleDown".into(), r);
    }
    if behavior.is_empty() {
        return None;
    }
    serde_json::from_value(Value::Object(behavior)).ok()
}

// Port of Convert_v1_HorizontalPodAutoscalerStatus_To_autoscaling_HorizontalPodAutoscalerStatus
// and the status half of Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
// (conversion.go). `raw` is the manifest's `status`, to tell an absent count from 0. Status
// annotations that do not decode are warned about and skipped: the status only informs defaults.
pub fn convert_status(
    status: Option<&api_v1::HorizontalPodAutoscalerStatus>,
    raw: Option<&Value>,
    annotations: &BTreeMap<String, String>,
    warnings: &mut Vec<String>,
) -> Result<HpaStatus, FieldError> {
    let mut out = HpaStatus::default();
    if let (Some(status), Some(raw)) = (status, raw) {
        out.current_replicas = present(raw, "currentReplicas").map(|_| status.current_replicas);
        out.desired_replicas = present(raw, "desiredReplicas").map(|_| status.desired_replicas);
        out.last_scale_time = status.last_scale_time.as_ref().map(|t| t.0.to_string());
        if let Some(pct) = status.current_cpu_utilization_percentage {
            out.current_metrics.push(CurrentMetric {
                metric_type: "Resource".to_string(),
                name: "cpu".to_string(),
                average_utilization: Some(pct),
                ..CurrentMetric::default()
            });
        }
    }
    if let Some(raw) = annotations.get(CURRENT_METRICS_ANNOTATION) {
        let path = annotation_path(CURRENT_METRICS_ANNOTATION);
        match serde_json::from_str::<Vec<Value>>(raw) {
            // "ignore any existing status values -- the ones here have more information"
            Ok(list) => {
                out.current_metrics = list
                    .iter()
                    .enumerate()
                    .map(|(i, m)| current_metric(m, &path.index(i)))
                    .collect::<Result<_, _>>()?;
            }
            Err(e) => warnings.push(format!("{path}: found invalid JSON ({e}), ignored")),
        }
    }
    if let Some(raw) = annotations.get(CONDITIONS_ANNOTATION) {
        match serde_json::from_str::<Vec<Value>>(raw) {
            Ok(list) => {
                out.scaled_to_zero = list.iter().any(|c| {
                    c.get("type").and_then(Value::as_str) == Some("ScaledToZero")
                        && c.get("status").and_then(Value::as_str) == Some("True")
                });
                out.conditions = conditions(list.iter());
            }
            Err(e) => warnings.push(format!(
                "{}: found invalid JSON ({e}), ignored",
                annotation_path(CONDITIONS_ANNOTATION)
            )),
        }
    }
    Ok(out)
}

/// One v1 (v2beta1-shaped) metric status from the current-metrics annotation.
pub(super) fn current_metric(m: &Value, path: &FieldPath) -> Result<CurrentMetric, FieldError> {
    let metric_type = present(m, "type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (key, name_key, value_key, average_key) = match metric_type {
        "Resource" => ("resource", "name", None, "currentAverageValue"),
        "ContainerResource" => ("containerResource", "name", None, "currentAverageValue"),
        "Pods" => ("pods", "metricName", None, "currentAverageValue"),
        "Object" => ("object", "metricName", Some("currentValue"), "averageValue"),
        "External" => (
            "external",
            "metricName",
            Some("currentValue"),
            "currentAverageValue",
        ),
        _ => {
            return Ok(CurrentMetric {
                metric_type: metric_type.to_string(),
                ..CurrentMetric::default()
            });
        }
    };
    let src = present(m, key).cloned().unwrap_or(json!({}));
    let milli = |field: &str| -> Result<Option<i64>, FieldError> {
        let Some(v) = present(&src, field) else {
            return Ok(None);
        };
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        crate::quantity::parse_milli(&text)
            .map(Some)
            .map_err(|e| field_error(path.key(key).key(field), e.to_string()))
    };
    Ok(CurrentMetric {
        metric_type: metric_type.to_string(),
        name: present(&src, name_key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        value_milli: value_key.map(milli).transpose()?.flatten(),
        average_value_milli: milli(average_key)?,
        average_utilization: present(&src, "currentAverageUtilization")
            .and_then(Value::as_i64)
            .and_then(|u| i32::try_from(u).ok()),
    })
}

/// `status.conditions` given as JSON (the v1 conditions annotation, a v2beta1 status), in order.
pub(super) fn conditions<'v>(
    list: impl Iterator<Item = &'v Value>,
) -> Vec<crate::report::Condition> {
    let text = |c: &Value, key: &str| {
        c.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    list.map(|c| crate::report::Condition {
        condition_type: text(c, "type"),
        status: text(c, "status"),
        reason: text(c, "reason"),
        message: text(c, "message"),
        last_transition_time: c
            .get("lastTransitionTime")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
    .collect()
}
