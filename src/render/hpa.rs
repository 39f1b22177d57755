//! `--print-hpa`: the normalized `autoscaling/v2` HPA hpacalc used, whatever form it was read
//! from (v1, v2beta1, describe text, a get-hpa line), with the API server's defaults filled.
//! A pure function of the validated spec and the status the input carried.

use serde_json::{Map, Value, json};

use crate::quantity::{Format, build_quantity, format_milli};
use crate::scenario::{
    HpaSpec, MetricIdentifier, MetricSpec, MetricTarget, ObjectReference, ObservedStatus,
    ScalingRules, SelectPolicy, TargetType,
};

/// The HPA as an `autoscaling/v2` object.
pub fn to_value(spec: &HpaSpec, status: Option<&ObservedStatus>) -> Value {
    let mut spec_map = Map::new();
    spec_map.insert("scaleTargetRef".into(), reference(&spec.target));
    spec_map.insert("minReplicas".into(), json!(spec.min_replicas));
    spec_map.insert("maxReplicas".into(), json!(spec.max_replicas));
    spec_map.insert(
        "metrics".into(),
        Value::Array(spec.metrics.iter().map(metric).collect()),
    );
    if let Some(b) = &spec.behavior {
        spec_map.insert(
            "behavior".into(),
            json!({"scaleUp": rules(&b.scale_up), "scaleDown": rules(&b.scale_down)}),
        );
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!("autoscaling/v2"));
    object.insert("kind".into(), json!("HorizontalPodAutoscaler"));
    object.insert(
        "metadata".into(),
        json!({"name": spec.name, "namespace": spec.namespace}),
    );
    object.insert("spec".into(), Value::Object(spec_map));
    if let Some(status) = status {
        object.insert("status".into(), status_value(spec, status));
    }
    Value::Object(object)
}

fn reference(r: &ObjectReference) -> Value {
    let mut m = Map::new();
    if !r.api_version.is_empty() {
        m.insert("apiVersion".into(), json!(r.api_version));
    }
    m.insert("kind".into(), json!(r.kind));
    m.insert("name".into(), json!(r.name));
    Value::Object(m)
}

fn quantity(resource: Option<&str>, milli: i64) -> Value {
    json!(match resource {
        Some(r) => build_quantity(r, milli),
        None => format_milli(milli, Format::DecimalSI),
    })
}

fn target(t: &MetricTarget, resource: Option<&str>) -> Value {
    let mut m = Map::new();
    let kind = match t.target_type {
        TargetType::Utilization => "Utilization",
        TargetType::AverageValue => "AverageValue",
        TargetType::Value => "Value",
    };
    m.insert("type".into(), json!(kind));
    if let Some(u) = t.average_utilization {
        m.insert("averageUtilization".into(), json!(u));
    }
    if let Some(v) = t.average_value_milli {
        m.insert("averageValue".into(), quantity(resource, v));
    }
    if let Some(v) = t.value_milli {
        m.insert("value".into(), quantity(resource, v));
    }
    Value::Object(m)
}

fn identifier(id: &MetricIdentifier) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(id.name));
    if let Some(labels) = &id.selector {
        m.insert("selector".into(), json!({ "matchLabels": labels }));
    }
    Value::Object(m)
}

fn metric(spec: &MetricSpec) -> Value {
    match spec {
        MetricSpec::Resource {
            resource,
            container: None,
            target: t,
        } => json!({"type": "Resource", "resource": {
            "name": resource, "target": target(t, Some(resource))}}),
        MetricSpec::Resource {
            resource,
            container: Some(c),
            target: t,
        } => json!({"type": "ContainerResource", "containerResource": {
            "name": resource, "container": c, "target": target(t, Some(resource))}}),
        MetricSpec::Pods { metric, target: t } => json!({"type": "Pods", "pods": {
            "metric": identifier(metric), "target": target(t, None)}}),
        MetricSpec::Object {
            described_object,
            metric,
            target: t,
        } => json!({"type": "Object", "object": {
            "describedObject": reference(described_object),
            "metric": identifier(metric), "target": target(t, None)}}),
        MetricSpec::External { metric, target: t } => json!({"type": "External", "external": {
            "metric": identifier(metric), "target": target(t, None)}}),
    }
}

fn rules(r: &ScalingRules) -> Value {
    let mut m = Map::new();
    if let Some(w) = r.stabilization_window_seconds {
        m.insert("stabilizationWindowSeconds".into(), json!(w));
    }
    let select = match r.select_policy {
        SelectPolicy::Max => "Max",
        SelectPolicy::Min => "Min",
        SelectPolicy::Disabled => "Disabled",
    };
    m.insert("selectPolicy".into(), json!(select));
    let policies: Vec<Value> = r
        .policies
        .iter()
        .map(|p| {
            json!({"type": p.policy_type.as_str(), "value": p.value, "periodSeconds": p.period_seconds})
        })
        .collect();
    m.insert("policies".into(), Value::Array(policies));
    if let Some(t) = r.tolerance {
        m.insert("tolerance".into(), json!(t.to_string()));
    }
    Value::Object(m)
}

fn status_value(spec: &HpaSpec, status: &ObservedStatus) -> Value {
    let mut m = Map::new();
    if let Some(n) = status.current_replicas {
        m.insert("currentReplicas".into(), json!(n));
    }
    if let Some(n) = status.desired_replicas {
        m.insert("desiredReplicas".into(), json!(n));
    }
    let metrics: Vec<Value> = status
        .current_metrics
        .iter()
        .map(|c| {
            let resource = matches!(c.metric_type.as_str(), "Resource" | "ContainerResource")
                .then_some(c.name.as_str());
            let mut current = Map::new();
            if let Some(u) = c.average_utilization {
                current.insert("averageUtilization".into(), json!(u));
            }
            if let Some(v) = c.average_value_milli {
                current.insert("averageValue".into(), quantity(resource, v));
            }
            if let Some(v) = c.value_milli {
                current.insert("value".into(), quantity(resource, v));
            }
            let key = match c.metric_type.as_str() {
                "Resource" => "resource",
                "ContainerResource" => "containerResource",
                "Pods" => "pods",
                "Object" => "object",
                _ => "external",
            };
            let mut source = Map::new();
            if resource.is_some() {
                source.insert("name".into(), json!(c.name));
                if c.metric_type == "ContainerResource"
                    && let Some(MetricSpec::Resource {
                        container: Some(container),
                        ..
                    }) = spec
                        .metrics
                        .iter()
                        .find(|s| s.type_name() == "ContainerResource" && s.metric_name() == c.name)
                {
                    source.insert("container".into(), json!(container));
                }
            } else {
                source.insert("metric".into(), json!({"name": c.name}));
            }
            source.insert("current".into(), Value::Object(current));
            json!({"type": c.metric_type, key: Value::Object(source)})
        })
        .collect();
    if !metrics.is_empty() {
        m.insert("currentMetrics".into(), Value::Array(metrics));
    }
    if !status.conditions.is_empty() {
        m.insert(
            "conditions".into(),
            serde_json::to_value(&status.conditions).unwrap_or_default(),
        );
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Behavior, PolicyType, ScalingPolicy};

    fn spec() -> HpaSpec {
        HpaSpec {
            name: "web".into(),
            namespace: "shop".into(),
            target: ObjectReference {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                name: "web".into(),
            },
            min_replicas: 1,
            max_replicas: 10,
            metrics: vec![MetricSpec::Resource {
                resource: "memory".into(),
                container: None,
                target: MetricTarget {
                    target_type: TargetType::AverageValue,
                    average_utilization: None,
                    average_value_milli: Some(500 * 1024 * 1024 * 1000),
                    value_milli: None,
                },
            }],
            behavior: Some(Behavior {
                scale_up: ScalingRules {
                    stabilization_window_seconds: Some(0),
                    select_policy: SelectPolicy::Max,
                    policies: vec![ScalingPolicy {
                        policy_type: PolicyType::Pods,
                        value: 4,
                        period_seconds: 15,
                    }],
                    tolerance: None,
                },
                scale_down: ScalingRules {
                    stabilization_window_seconds: None,
                    select_policy: SelectPolicy::Max,
                    policies: vec![],
                    tolerance: None,
                },
            }),
        }
    }

    #[test]
    fn memory_quantities_print_binary_si_as_build_quantity_does() {
        let v = to_value(&spec(), None);
        assert_eq!(
            v.pointer("/spec/metrics/0/resource/target/averageValue"),
            Some(&json!("500Mi"))
        );
    }

    #[test]
    fn behavior_defaults_are_printed_and_an_unset_scale_down_window_is_left_out() {
        let v = to_value(&spec(), None);
        assert_eq!(
            v.pointer("/spec/behavior/scaleUp/stabilizationWindowSeconds"),
            Some(&json!(0))
        );
        assert_eq!(
            v.pointer("/spec/behavior/scaleDown/stabilizationWindowSeconds"),
            None
        );
        assert_eq!(v.get("status"), None);
    }
}
